/**
 * Runs Keychain operations in a separate process whose D-Bus session the parent test controls, and prints one JSON
 * line per step: `{step, ok, code?, message?}`. Scenarios:
 *   unavailable <dataDir>  — the parent points DBUS_SESSION_BUS_ADDRESS at a dead socket;
 *   locked <dataDir>       — the parent starts a private session; we store a key, lock the collection, then retry.
 */
import { execFileSync } from 'node:child_process';
import { Keychain } from '../../../src/main/keychain/keychain';
import { toQkError } from '../../../src/shared/errors';

const [scenario, dataDir] = process.argv.slice(2);
if (!dataDir || (scenario !== 'unavailable' && scenario !== 'locked')) {
  throw new Error('usage: keychain-child.ts unavailable|locked <dataDir>');
}
const keychain = new Keychain({ dataDir, serviceName: 'qk-child-test' });

async function step(name: string, operation: () => Promise<unknown>): Promise<void> {
  try {
    await operation();
    console.log(JSON.stringify({ step: name, ok: true }));
  } catch (error) {
    const { code, message } = toQkError(error);
    console.log(JSON.stringify({ step: name, ok: false, code, message }));
  }
}

function lockDefaultCollection(): void {
  const alias = execFileSync('gdbus', [
    'call',
    '--session',
    '--dest',
    'org.freedesktop.secrets',
    '--object-path',
    '/org/freedesktop/secrets',
    '--method',
    'org.freedesktop.Secret.Service.ReadAlias',
    'default',
  ]).toString();
  const collection = /'([^']+)'/.exec(alias)?.[1];
  if (!collection) throw new Error(`no default collection in ${alias}`);
  execFileSync('gdbus', [
    'call',
    '--session',
    '--dest',
    'org.freedesktop.secrets',
    '--object-path',
    '/org/freedesktop/secrets',
    '--method',
    'org.freedesktop.Secret.Service.Lock',
    `['${collection}']`,
  ]);
}

if (scenario === 'unavailable') {
  await step('generateApiKey', () => keychain.generateApiKey({ name: 'first' }));
  await step('importEncryptionKey', () => keychain.importEncryptionKey({ name: 'target', privateKey: '11'.repeat(32) }));
} else {
  await step('generateApiKey', () => keychain.generateApiKey({ name: 'before-lock' }));
  lockDefaultCollection();
  await step('withApiKeySigner', () => keychain.withApiKeySigner('before-lock', (signer) => signer.sign(new Uint8Array(1))));
  await step('generateApiKey', () => keychain.generateApiKey({ name: 'after-lock' }));
  await step('deleteApiKey', () => keychain.deleteApiKey('before-lock'));
}
