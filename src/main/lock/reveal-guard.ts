import type { Channel } from '../../shared/ipc/contract';
import type { IpcHandlers } from '../ipc/register';
import type { Unlocker } from './unlocker';

/** The channels whose answer is a plaintext mnemonic, passphrase or private key. */
export const REVEALING_CHANNELS: ReadonlySet<Channel> = new Set<Channel>(['exports.reveal', 'exports.decryptBundle']);

/**
 * Wraps the revealing channels so that each first checks the last authentication is recent enough
 * (`maxAgeMs()`, from the settings); otherwise they answer REAUTH_REQUIRED and the renderer asks again.
 */
export function guardReveals(
  handlers: IpcHandlers,
  unlocker: Pick<Unlocker, 'requireRecentAuthentication'>,
  maxAgeMs: () => Promise<number>,
): IpcHandlers {
  const guarded: Record<string, (input: never) => Promise<unknown>> = { ...handlers };
  for (const name of REVEALING_CHANNELS) {
    const handler = handlers[name] as (input: never) => Promise<unknown>;
    guarded[name] = async (input) => {
      await unlocker.requireRecentAuthentication(await maxAgeMs());
      return handler(input);
    };
  }
  return guarded as unknown as IpcHandlers;
}
