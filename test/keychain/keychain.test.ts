/**
 * The Keychain end to end against a real Secret Service (gnome-keyring in a private D-Bus session, see
 * test/support/with-secret-service.sh). Public keys and signatures are checked with @noble/curves directly.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AsyncEntry, findCredentialsAsync } from '@napi-rs/keyring';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Keychain } from '../../src/main/keychain/keychain';
import { OsSecretStore } from '../../src/main/keychain/secret-store';
import { Profiles } from '../../src/main/profiles/profiles';
import { QkError } from '../../src/shared/errors';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import { RecordingStore } from '../support/recording-secret-store';
import { scanForSecrets } from '../support/scan-for-secrets';
import { rejection } from '../support/assertions';

const run = promisify(execFile);
const message = new TextEncoder().encode('{"type":"ACTIVITY_TYPE_CREATE_POLICY_V3"}');

function verify(curve: 'p256' | 'secp256k1' | 'ed25519', publicKey: string, signature: string): boolean {
  const sig = Buffer.from(signature, 'hex');
  const pub = Buffer.from(publicKey, 'hex');
  if (curve === 'ed25519') return ed25519.verify(sig, message, pub);
  return (curve === 'p256' ? p256 : secp256k1).verify(sig, message, pub, { format: 'der', lowS: false });
}

const ORG = '5f2c3e4a-0b1d-4c6e-9f8a-7b6c5d4e3f21';

beforeAll(() => {
  if (process.platform === 'linux' && !process.env.QK_IN_SECRET_SERVICE) {
    throw new Error('run keychain tests inside a private Secret Service: bash test/support/with-secret-service.sh npx vitest run test/keychain');
  }
});

let dataDir: string;
let serviceName: string;
let store: RecordingStore;
let keychain: Keychain;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-keychain-'));
  serviceName = `qk-test-${randomUUID()}`;
  store = new RecordingStore(new OsSecretStore(serviceName));
  keychain = new Keychain({ dataDir, serviceName, store });
});

afterEach(async () => {
  expect(await scanForSecrets(dataDir, store.secrets)).toEqual([]);
  for (const { account } of await findCredentialsAsync(serviceName)) {
    await new AsyncEntry(serviceName, account).deleteCredential();
  }
  await rm(dataDir, { recursive: true, force: true });
});

const reopen = () => new Keychain({ dataDir, serviceName });
const accounts = async () => (await findCredentialsAsync(serviceName)).map((credential) => credential.account);

describe('Keychain API keys', () => {
  it.each(['p256', 'secp256k1', 'ed25519'] as const)('generates a %s key that signs through a fresh instance', async (curve) => {
    const created = await keychain.generateApiKey({ name: `gen ${curve}`, curve });
    expect(created).toMatchObject({ name: `gen ${curve}`, curve, missing: false, usedByProfiles: [] });
    expect(created.publicKey).toMatch(curve === 'ed25519' ? /^[0-9a-f]{64}$/ : /^0[23][0-9a-f]{64}$/);
    const signature = await reopen().withApiKeySigner(`gen ${curve}`, (signer) => {
      expect(signer.publicKey).toBe(created.publicKey);
      return signer.sign(message);
    });
    expect(verify(curve, created.publicKey, signature)).toBe(true);
    expect(await accounts()).toEqual([`api-key:${created.id}`]);
  });

  it('defaults to p256 and lists keys with their metadata', async () => {
    const first = await keychain.generateApiKey({ name: 'first' });
    const second = await keychain.generateApiKey({ name: 'second', curve: 'ed25519' });
    expect(first.curve).toBe('p256');
    expect(await reopen().listApiKeys()).toEqual([first, second]);
    expect(await keychain.getApiKeyPublic('second')).toEqual(second);
    expect(Date.parse(first.createdAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('imports a hex pair, accepting the public key compressed or uncompressed', async () => {
    const secret = p256.utils.randomSecretKey();
    const compressed = bytesToHex(p256.getPublicKey(secret, true));
    const imported = await keychain.importApiKey({
      name: 'imported',
      curve: 'p256',
      privateKey: `0x${bytesToHex(secret).toUpperCase()}`,
      publicKey: bytesToHex(p256.getPublicKey(secret, false)),
    });
    expect(imported.publicKey).toBe(compressed);
    const signature = await keychain.withApiKeySigner('imported', (signer) => signer.sign(message));
    expect(verify('p256', compressed, signature)).toBe(true);
  });

  it('refuses a mismatched pair and invalid keys, storing nothing', async () => {
    const mismatch = await rejection(
      keychain.importApiKey({
        name: 'mismatch',
        curve: 'secp256k1',
        privateKey: bytesToHex(secp256k1.utils.randomSecretKey()),
        publicKey: bytesToHex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)),
      }),
    );
    expect(mismatch.code).toBe('KEY_INVALID');
    expect(mismatch.message).toContain('does not belong to the private key');
    const wrongCurve = await rejection(
      keychain.importApiKey({
        name: 'wrong curve',
        curve: 'p256',
        privateKey: bytesToHex(secp256k1.utils.randomSecretKey()),
        publicKey: bytesToHex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)),
      }),
    );
    expect(wrongCurve.code).toBe('KEY_INVALID');
    const short = await rejection(keychain.importApiKey({ name: 'short', curve: 'p256', privateKey: 'abcd' }));
    expect(short.code).toBe('KEY_INVALID');
    expect(short.message).toContain('32 bytes');
    const zero = await rejection(keychain.importApiKey({ name: 'zero', curve: 'p256', privateKey: '00'.repeat(32) }));
    expect(zero.code).toBe('KEY_INVALID');
    const curve = await rejection(keychain.generateApiKey({ name: 'rsa', curve: 'rsa' as never }));
    expect(curve.code).toBe('CURVE_UNSUPPORTED');
    expect(await keychain.listApiKeys()).toEqual([]);
    expect(await accounts()).toEqual([]);
  });

  it('imports tkcli key files of each curve', async () => {
    const p256Secret = p256.utils.randomSecretKey();
    const k1Secret = secp256k1.utils.randomSecretKey();
    const edSeed = ed25519.utils.randomSecretKey();
    const edPublic = bytesToHex(ed25519.getPublicKey(edSeed));
    const files = {
      'p256.private': `${bytesToHex(p256Secret)}\n`,
      'p256.public': `${bytesToHex(p256.getPublicKey(p256Secret, true))}\n`,
      'k1.private': `${bytesToHex(k1Secret)}:secp256k1\n`,
      'k1.public': bytesToHex(secp256k1.getPublicKey(k1Secret, true)),
      'ed.private': `${bytesToHex(edSeed)}:ed25519`,
      'ed.public': edPublic,
      'edgo.private': `${bytesToHex(edSeed)}${edPublic}:ed25519`,
    };
    for (const [file, content] of Object.entries(files)) await writeFile(join(dataDir, '..', `${serviceName}-${file}`), content);
    const path = (file: string) => join(dataDir, '..', `${serviceName}-${file}`);
    try {
      const imported = [
        await keychain.importTkcliApiKey({ name: 'tk p256', privateKeyFile: path('p256.private'), publicKeyFile: path('p256.public') }),
        await keychain.importTkcliApiKey({ name: 'tk k1', privateKeyFile: path('k1.private'), publicKeyFile: path('k1.public') }),
        await keychain.importTkcliApiKey({ name: 'tk ed', privateKeyFile: path('ed.private'), publicKeyFile: path('ed.public') }),
        await keychain.importTkcliApiKey({ name: 'tk ed go', privateKeyFile: path('edgo.private') }),
      ];
      expect(imported.map((key) => [key.curve, key.publicKey])).toEqual([
        ['p256', files['p256.public'].trim()],
        ['secp256k1', files['k1.public']],
        ['ed25519', edPublic],
        ['ed25519', edPublic],
      ]);
      for (const key of imported) {
        const signature = await keychain.withApiKeySigner(key.name, (signer) => signer.sign(message));
        expect(verify(key.curve, key.publicKey, signature)).toBe(true);
      }
      await writeFile(path('bad.private'), `${bytesToHex(p256Secret)}:rsa`);
      const badCurve = await rejection(keychain.importTkcliApiKey({ name: 'bad', privateKeyFile: path('bad.private') }));
      expect(badCurve.code).toBe('CURVE_UNSUPPORTED');
      expect(badCurve.message).toContain(path('bad.private'));
      const mismatched = await rejection(
        keychain.importTkcliApiKey({ name: 'bad', privateKeyFile: path('k1.private'), publicKeyFile: path('p256.public') }),
      );
      expect(mismatched.code).toBe('KEY_INVALID');
      expect(mismatched.message).toContain(path('k1.private'));
      const absent = await rejection(keychain.importTkcliApiKey({ name: 'bad', privateKeyFile: path('absent.private') }));
      expect(absent.code).toBe('FILE_ERROR');
    } finally {
      for (const file of [...Object.keys(files), 'bad.private']) await rm(path(file), { force: true });
    }
  });

  it('renames in the index only: same keychain item, same signer, profiles follow', async () => {
    const created = await keychain.generateApiKey({ name: 'old name' });
    const profiles = new Profiles({ dataDir });
    const profile = await profiles.add({
      name: 'Prod',
      kind: 'hosted',
      baseUrl: 'https://api.turnkey.com',
      organizationId: ORG,
      apiKeyName: 'old name',
    });
    expect((await keychain.getApiKeyPublic('old name')).usedByProfiles).toEqual(['Prod']);
    const renamed = await keychain.renameApiKey('old name', 'new name');
    expect(renamed).toMatchObject({ id: created.id, name: 'new name', publicKey: created.publicKey, usedByProfiles: ['Prod'] });
    expect(await accounts()).toEqual([`api-key:${created.id}`]);
    expect((await profiles.get(profile.id)).apiKeyName).toBe('new name');
    const signature = await reopen().withApiKeySigner('new name', (signer) => signer.sign(message));
    expect(verify('p256', created.publicKey, signature)).toBe(true);
    expect((await rejection(keychain.getApiKeyPublic('old name'))).code).toBe('KEY_NOT_FOUND');
  });

  it('enforces unique valid names per kind', async () => {
    await keychain.generateApiKey({ name: 'taken' });
    await keychain.generateApiKey({ name: 'other' });
    expect((await rejection(keychain.generateApiKey({ name: 'taken' }))).code).toBe('KEY_EXISTS');
    expect((await rejection(keychain.renameApiKey('other', 'taken'))).code).toBe('KEY_EXISTS');
    const invalid = await rejection(keychain.generateApiKey({ name: 'a/b' }));
    expect(invalid.code).toBe('REQUEST_INVALID');
    expect(invalid.message).toContain('name contains "/"');
    expect((await rejection(keychain.generateApiKey({ name: 'x'.repeat(65) }))).message).toContain('65 characters');
    expect((await rejection(keychain.renameApiKey('other', ''))).details).toEqual({ field: 'newName' });
    // the same name may be used by an encryption key
    await keychain.generateEncryptionKey({ name: 'taken' });
    expect(await accounts()).toHaveLength(3);
  });

  it('deletes the secret from the OS keychain, and refuses while a profile uses the key', async () => {
    await keychain.generateApiKey({ name: 'doomed' });
    const kept = await keychain.generateApiKey({ name: 'kept' });
    const profiles = new Profiles({ dataDir });
    const profile = await profiles.add({
      name: 'Uses doomed',
      kind: 'hosted',
      baseUrl: 'https://api.turnkey.com',
      organizationId: ORG,
      apiKeyName: 'doomed',
    });
    const inUse = await rejection(keychain.deleteApiKey('doomed'));
    expect(inUse.code).toBe('FAILED_PRECONDITION');
    expect(inUse.message).toContain('"Uses doomed"');
    await profiles.remove(profile.id);

    await keychain.deleteApiKey('doomed');
    const fresh = reopen();
    expect((await fresh.listApiKeys()).map((key) => key.name)).toEqual(['kept']);
    expect(await accounts()).toEqual([`api-key:${kept.id}`]);
    expect((await rejection(fresh.withApiKeySigner('doomed', () => undefined))).code).toBe('KEY_NOT_FOUND');
    expect((await rejection(fresh.deleteApiKey('doomed'))).code).toBe('KEY_NOT_FOUND');
  });

  it('reports a key whose secret vanished as missing, and its signer as KEY_NOT_FOUND', async () => {
    const vanished = await keychain.generateApiKey({ name: 'vanished' });
    await new AsyncEntry(serviceName, `api-key:${vanished.id}`).deleteCredential();
    expect(await keychain.listApiKeys()).toEqual([{ ...vanished, missing: true }]);
    const error = await rejection(keychain.withApiKeySigner('vanished', () => undefined));
    expect(error.code).toBe('KEY_NOT_FOUND');
    expect(error.message).toContain('no longer holds the private key');
    await keychain.deleteApiKey('vanished');
    expect(await keychain.listApiKeys()).toEqual([]);
  });

  it('refuses a keychain item that no longer matches the recorded public key', async () => {
    const key = await keychain.generateApiKey({ name: 'swapped' });
    await new AsyncEntry(serviceName, `api-key:${key.id}`).setSecret(p256.utils.randomSecretKey());
    expect((await rejection(keychain.withApiKeySigner('swapped', () => undefined))).code).toBe('KEY_INVALID');
  });

  it('wipes the key after the callback and disables the signer', async () => {
    await keychain.generateApiKey({ name: 'scoped' });
    const leaked = await keychain.withApiKeySigner('scoped', (signer) => signer);
    expect(() => leaked.sign(message)).toThrow(/after its scope ended/);
    const failing = await rejection(
      keychain.withApiKeySigner('scoped', () => {
        throw new QkError('NETWORK_ERROR', 'request failed');
      }),
    );
    expect(failing.code).toBe('NETWORK_ERROR');
  });

  it('isolates instances with different data directories and service names', async () => {
    const otherDir = await mkdtemp(join(tmpdir(), 'qk-keychain-other-'));
    const otherService = `qk-test-${randomUUID()}`;
    const other = new Keychain({ dataDir: otherDir, serviceName: otherService });
    try {
      await keychain.generateApiKey({ name: 'shared name' });
      const theirs = await other.generateApiKey({ name: 'shared name', curve: 'ed25519' });
      expect((await keychain.listApiKeys()).map((key) => key.curve)).toEqual(['p256']);
      expect(await other.listApiKeys()).toEqual([theirs]);
      expect((await findCredentialsAsync(otherService)).map((credential) => credential.account)).toEqual([`api-key:${theirs.id}`]);
      expect(await accounts()).toHaveLength(1);
      // the index of one instance pointed at the other's service finds no secrets
      expect((await new Keychain({ dataDir: otherDir, serviceName }).listApiKeys())[0]?.missing).toBe(true);
      await other.deleteApiKey('shared name');
      expect((await keychain.listApiKeys()).map((key) => key.name)).toEqual(['shared name']);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });
});

describe('Keychain encryption keys', () => {
  it('generates, imports, lists, opens and deletes P-256 encryption keys', async () => {
    const generated = await keychain.generateEncryptionKey({ name: 'export target' });
    expect(generated.publicKey).toMatch(/^04[0-9a-f]{128}$/);
    const secret = p256.utils.randomSecretKey();
    const imported = await keychain.importEncryptionKey({ name: 'tkcli target', privateKey: `${bytesToHex(secret)}\n` });
    expect(imported.publicKey).toBe(bytesToHex(p256.getPublicKey(secret, false)));
    expect(await reopen().listEncryptionKeys()).toEqual([generated, imported]);
    expect(await keychain.listApiKeys()).toEqual([]);

    const opened = await reopen().withEncryptionPrivateKey('tkcli target', (privateKey) => {
      expect(bytesToHex(privateKey)).toBe(bytesToHex(secret));
      return privateKey;
    });
    expect(opened).toEqual(new Uint8Array(32));
    expect(await keychain.withEncryptionPrivateKey('export target', (privateKey) => bytesToHex(p256.getPublicKey(privateKey, false)))).toBe(
      generated.publicKey,
    );

    await keychain.deleteEncryptionKey('export target');
    expect((await keychain.listEncryptionKeys()).map((key) => key.name)).toEqual(['tkcli target']);
    expect(await accounts()).toEqual([`encryption-key:${imported.id}`]);
    expect((await rejection(keychain.deleteEncryptionKey('export target'))).code).toBe('KEY_NOT_FOUND');
    expect((await rejection(keychain.importEncryptionKey({ name: 'bad', privateKey: 'zz' }))).code).toBe('KEY_INVALID');
  });
});

describe('Keychain without a usable Secret Service', () => {
  const child = join(import.meta.dirname, 'support', 'keychain-child.ts');
  const tsx = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'tsx');
  const parse = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it.runIf(process.platform === 'linux')('fails with KEYCHAIN_UNAVAILABLE and writes nothing when no bus answers', async () => {
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dataDir, 'no-such-bus')}` };
    const { stdout } = await run(tsx, [child, 'unavailable', dataDir], { env });
    const steps = parse(stdout);
    expect(steps.map((step) => [step.step, step.code])).toEqual([
      ['generateApiKey', 'KEYCHAIN_UNAVAILABLE'],
      ['importEncryptionKey', 'KEYCHAIN_UNAVAILABLE'],
    ]);
    expect(steps[0]!.message).toMatch(/^No Secret Service is running \(.*no-such-bus.*\): install and start gnome-keyring or KWallet/);
    expect(await readdir(dataDir)).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('fails with KEYCHAIN_LOCKED when the keyring is locked, changing nothing', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.QK_IN_SECRET_SERVICE; // ask the wrapper for a private session of our own: locking must not disturb others
    const wrapper = join(import.meta.dirname, '..', 'support', 'with-secret-service.sh');
    const { stdout } = await run('bash', [wrapper, tsx, child, 'locked', dataDir], { env });
    expect(parse(stdout).map((step) => [step.step, step.ok, step.code])).toEqual([
      ['generateApiKey', true, undefined],
      ['withApiKeySigner', false, 'KEYCHAIN_LOCKED'],
      ['generateApiKey', false, 'KEYCHAIN_LOCKED'],
      ['deleteApiKey', false, 'KEYCHAIN_LOCKED'],
    ]);
    const index = JSON.parse(await readFile(join(dataDir, 'keys.json'), 'utf8')) as { keys: { name: string }[] };
    expect(index.keys.map((key) => key.name)).toEqual(['before-lock']);
  });
});
