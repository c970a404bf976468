/**
 * The built CLI with a key on a SoftHSM2 token: `keys generate --pkcs11` makes it on the token, `profiles add
 * --pkcs11-*` pins it, and a request stamped by it is answered by a real Sandbox. The PIN comes from QK_PKCS11_PIN, as
 * on CI; without it and without a terminal, nothing is signed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initSoftHsmToken, SOFTHSM_MODULE, softhsmPresent } from '../support/softhsm';
import { startTestService, type ApiPublicKey, type TestService } from '../support/service';
import { runCli } from './helpers';

const TOKEN_LABEL = 'qk-cli';
const PIN = '975310';
const TOKEN_FLAGS = ['--pkcs11-module', SOFTHSM_MODULE, '--pkcs11-token', TOKEN_LABEL];

let dataDir: string;
let removeToken: () => Promise<void>;
let service: TestService<ApiPublicKey> | undefined;

function cli(args: string[], pin: string | undefined, input?: string) {
  const previous = process.env.QK_PKCS11_PIN;
  if (pin === undefined) delete process.env.QK_PKCS11_PIN;
  else process.env.QK_PKCS11_PIN = pin;
  try {
    return runCli(dataDir, args, input === undefined ? {} : { input });
  } finally {
    if (previous === undefined) delete process.env.QK_PKCS11_PIN;
    else process.env.QK_PKCS11_PIN = previous;
  }
}

beforeAll(async () => {
  if (!softhsmPresent) return;
  dataDir = await mkdtemp(join(tmpdir(), 'qk-cli-pkcs11-'));
  removeToken = await initSoftHsmToken(TOKEN_LABEL, PIN);
});

afterAll(async () => {
  if (!softhsmPresent) return;
  await service?.close();
  await removeToken();
  await rm(dataDir, { recursive: true, force: true });
});

describe.skipIf(!softhsmPresent)('the CLI with a PKCS#11 token key', () => {
  it('generates a key on the token, adds a profile that signs with it, and stamps a request the Sandbox answers', async () => {
    const generated = await cli(['keys', 'generate', 'ops', '--pkcs11', ...TOKEN_FLAGS], PIN);
    expect(generated.stderr).toBe('');
    expect(generated.code).toBe(0);
    const key = JSON.parse(generated.stdout) as { publicKey: string; keyLabel: string; keyId: string };
    expect(key).toMatchObject({ module: SOFTHSM_MODULE, tokenLabel: TOKEN_LABEL, keyLabel: 'ops' });

    const listed = await cli(['keys', 'list', '--pkcs11', ...TOKEN_FLAGS], PIN);
    expect(JSON.parse(listed.stdout)).toEqual([{ ...key, canSign: true, keptOnToken: true }]);

    service = await startTestService({ rootPublicKey: { publicKey: key.publicKey, curve: 'p256' } });
    const { baseUrl, organizationId, rootUserId } = service.info;
    const added = await cli(
      ['profiles', 'add', '--name', 'token', '--base-url', baseUrl, '--organization', organizationId, ...TOKEN_FLAGS, '--pkcs11-key', 'ops'],
      PIN,
      'yes\n',
    );
    expect(added.code).toBe(0);
    expect(added.stderr).toContain(`Token key: key "ops" (CKA_ID ${key.keyId}) on token "${TOKEN_LABEL}"`);
    expect(JSON.parse(added.stdout)).toMatchObject({ apiKeyName: 'ops', tokenKey: { ...key } });

    const whoami = await cli(
      ['--profile', 'token', 'request', '--path', '/public/v1/query/whoami', '--body', JSON.stringify({ organizationId })],
      PIN,
    );
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ organizationId, userId: rootUserId });

    const wrongPin = await cli(
      ['--profile', 'token', 'request', '--path', '/public/v1/query/whoami', '--body', JSON.stringify({ organizationId })],
      '000000',
    );
    expect(wrongPin.code).toBe(1);
    expect(wrongPin.stderr).toContain(`token "${TOKEN_LABEL}" refused the PIN (CKR_PIN_INCORRECT)`);

    const noPin = await cli(['keys', 'list', '--pkcs11', ...TOKEN_FLAGS], undefined);
    expect(noPin.code).toBe(1);
    expect(noPin.stderr).toContain(`the PIN of token "${TOKEN_LABEL}" was not given`);
  });
});
