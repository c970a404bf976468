/**
 * keys.importTkcliApiKey takes file paths from the renderer: main must read only small regular tkcli key files and
 * never send a file's text back in an error. Runs against an in-memory secret store (the files are the subject here).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Keychain } from '../../src/main/keychain/keychain';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import { rejection } from '../support/assertions';
import { MemoryStore } from '../support/memory-secret-store';

const SECRET_LINE = 'root:$6$S3cretHashThatMustNotLeak$abcdefghijklmnop';

let dir: string;
let keychain: Keychain;
let store: MemoryStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qk-key-files-'));
  store = new MemoryStore();
  keychain = new Keychain({ dataDir: join(dir, 'data'), store });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('keys.importTkcliApiKey file reads', () => {
  it('still imports a tkcli p256 key pair', async () => {
    const secret = p256.utils.randomSecretKey();
    await writeFile(join(dir, 'op.private'), `${bytesToHex(secret)}\n`);
    await writeFile(join(dir, 'op.public'), `${bytesToHex(p256.getPublicKey(secret, true))}\n`);
    const imported = await keychain.importTkcliApiKey({ name: 'op', privateKeyFile: join(dir, 'op.private'), publicKeyFile: join(dir, 'op.public') });
    expect(imported.publicKey).toBe(bytesToHex(p256.getPublicKey(secret, true)));
    expect(store.secrets.size).toBe(1);
  });

  it('refuses files not named like tkcli key files, without reading them', async () => {
    await writeFile(join(dir, 'shadow'), `${SECRET_LINE}\n`);
    const privateRefused = await rejection(keychain.importTkcliApiKey({ name: 'x', privateKeyFile: join(dir, 'shadow') }));
    expect(privateRefused.code).toBe('FILE_ERROR');
    expect(privateRefused.message).toContain('.private');
    expect(JSON.stringify(privateRefused.toData())).not.toContain('S3cret');

    const secret = p256.utils.randomSecretKey();
    await writeFile(join(dir, 'op.private'), bytesToHex(secret));
    const publicRefused = await rejection(
      keychain.importTkcliApiKey({ name: 'x', privateKeyFile: join(dir, 'op.private'), publicKeyFile: join(dir, 'shadow') }),
    );
    expect(publicRefused.code).toBe('FILE_ERROR');
    expect(JSON.stringify(publicRefused.toData())).not.toContain('S3cret');
    expect(store.secrets.size).toBe(0);
  });

  it('never echoes the text after the last colon of a private key file', async () => {
    await writeFile(join(dir, 'leak.private'), `${SECRET_LINE}\n`);
    const refused = await rejection(keychain.importTkcliApiKey({ name: 'x', privateKeyFile: join(dir, 'leak.private') }));
    expect(refused.code).toBe('CURVE_UNSUPPORTED');
    expect(JSON.stringify(refused.toData())).not.toMatch(/S3cret|abcdefghijklmnop/);
  });

  it('never echoes a public key file that is not a hex key', async () => {
    const secret = p256.utils.randomSecretKey();
    await writeFile(join(dir, 'op.private'), bytesToHex(secret));
    await writeFile(join(dir, 'leak.public'), SECRET_LINE);
    const refused = await rejection(
      keychain.importTkcliApiKey({ name: 'x', privateKeyFile: join(dir, 'op.private'), publicKeyFile: join(dir, 'leak.public') }),
    );
    expect(refused.code).toBe('KEY_INVALID');
    expect(JSON.stringify(refused.toData())).not.toMatch(/S3cret|abcdefghijklmnop/);
  });

  it('refuses oversized files, directories and devices', async () => {
    await writeFile(join(dir, 'big.private'), 'a'.repeat(4096));
    await mkdir(join(dir, 'folder.private'));
    for (const privateKeyFile of [join(dir, 'big.private'), join(dir, 'folder.private'), '/dev/zero', '/dev/urandom', '/proc/self/environ']) {
      const refused = await rejection(keychain.importTkcliApiKey({ name: 'x', privateKeyFile }));
      expect(refused.code, privateKeyFile).toBe('FILE_ERROR');
    }
    expect(store.secrets.size).toBe(0);
  });
});
