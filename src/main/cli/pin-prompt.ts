/**
 * The CLI's PKCS#11 PIN prompt: `QK_PKCS11_PIN` when set (CI and scripts), else a line typed on the terminal without
 * echo. The PIN goes to the token's login and is not kept.
 */
import type { AskPin } from '../pkcs11/pkcs11-tokens';

export const PIN_ENVIRONMENT_VARIABLE = 'QK_PKCS11_PIN';

export const askPinOnTerminal: AskPin = async ({ tokenLabel }) => {
  const fromEnvironment = process.env[PIN_ENVIRONMENT_VARIABLE];
  if (fromEnvironment !== undefined && fromEnvironment !== '') return fromEnvironment;
  if (!process.stdin.isTTY) return undefined;
  process.stderr.write(`PIN of token ${JSON.stringify(tokenLabel)} (or set ${PIN_ENVIRONMENT_VARIABLE}): `);
  return readHidden();
};

/** One line from the terminal in raw mode, so the typed PIN is not echoed; Ctrl-C or Ctrl-D cancels. */
function readHidden(): Promise<string | undefined> {
  const input = process.stdin;
  return new Promise((resolve) => {
    let typed = '';
    const finish = (answer: string | undefined) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      resolve(answer);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish(typed);
        if (char === '\u0003' || char === '\u0004') return finish(undefined);
        typed = char === '\u007f' || char === '\b' ? typed.slice(0, -1) : typed + char;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}
