/**
 * Issue 34: the offline commands on an air-gapped machine with no keychain. The CLI runs with no D-Bus session (so no
 * Secret Service can be reached) and, where the test may make one, in a network namespace of its own with no network
 * at all (`unshare -n`; elsewhere a preload that makes every socket connection throw). It decrypts with a key file,
 * encrypts, and the journal then verifies with the reveal in it, signed by a journal key kept in the data directory.
 * The same commands with the keychain present (this test runs under test/support/with-secret-service.sh) keep the
 * journal key in the keychain, as before.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOURNAL_KEY_FILE } from '../../src/main/journal/journal-key';
import { JOURNAL_FILE } from '../../src/main/journal/journal';
import { buildExportBundle, buildImportBundle, openImportCiphertext, decodeWalletImportPlaintext } from '../../src/shared/crypto/bundles';
import { ecdsaSign } from '../../src/shared/crypto/ecdsa';
import { hexToBytes, utf8Encode } from '../../src/shared/crypto/encoding';
import { generateEncryptionKeyPair } from '../../src/shared/crypto/keys';
import { runCli, writeNoNetworkPreload, type CliRun } from './helpers';

const enclave = generateEncryptionKeyPair();
const sign = (data: Uint8Array) => ecdsaSign('p256', data, hexToBytes(enclave.privateKey, 'enclave key'), 'der');
const organizationId = randomUUID();
const mnemonic = generateMnemonic(english, 256);

/** Whether this machine lets the test run a process in a network namespace of its own (root, or user namespaces). */
function canUnshareNetwork(): boolean {
  try {
    execFileSync('unshare', ['-rn', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let work: string;
let noNetworkPreload: string;
let target: { privateKey: string; publicKey: string };
let keyFile: string;
let bundlePath: string;
let tamperedPath: string;
const unshare = canUnshareNetwork();

/**
 * The CLI as an air-gapped machine runs it: no D-Bus session bus, no network (a network namespace of its own where the
 * machine allows one, else the no-network preload).
 */
function airGapped(dataDir: string, args: string[]): Promise<CliRun> {
  return runCli(dataDir, args, unshare ? { airGapped: { unshare } } : { airGapped: { unshare }, noNetwork: noNetworkPreload });
}

function decryptArgs(bundle: string, output: string): string[] {
  return [
    'decrypt',
    '--bundle',
    bundle,
    '--encryption-key-file',
    keyFile,
    '--organization',
    organizationId,
    '--signer-public-key',
    enclave.publicKey,
    '--plaintext-output',
    output,
  ];
}

async function journalLines(
  dataDir: string,
): Promise<{ action: string; journalKey?: string; reading: { facts: { label: string; value: string }[] } }[]> {
  return (await readFile(join(dataDir, JOURNAL_FILE), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as never);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'qk-air-gapped-'));
  noNetworkPreload = await writeNoNetworkPreload(work);
  target = generateEncryptionKeyPair();
  keyFile = join(work, 'key.hex');
  await writeFile(keyFile, `${target.privateKey}\n`, { mode: 0o600 });
  const bundle = await buildExportBundle({
    plaintext: utf8Encode(mnemonic),
    targetPublicKey: target.publicKey,
    organizationId,
    sign,
    enclaveSignerPublicKey: enclave.publicKey,
  });
  bundlePath = join(work, 'bundle.json');
  await writeFile(bundlePath, bundle);
  // The same bundle with one byte of its signed data changed: its enclave signature no longer holds.
  const outer = JSON.parse(bundle) as { data: string };
  const data = outer.data;
  const flipped = `${data.slice(0, 10)}${data[10] === '0' ? '1' : '0'}${data.slice(11)}`;
  tamperedPath = join(work, 'tampered.json');
  await writeFile(tamperedPath, JSON.stringify({ ...outer, data: flipped }));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('with no keychain and no network', () => {
  it('decrypts with a key file, refuses a tampered bundle, encrypts, and the journal verifies with the reveal in it', async () => {
    const dataDir = join(work, 'air-gapped');

    const tampered = await airGapped(dataDir, decryptArgs(tamperedPath, join(work, 'tampered.out')));
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/^BUNDLE_SIGNATURE_INVALID/);
    await expect(access(join(work, 'tampered.out'))).rejects.toThrow();

    const decrypted = await airGapped(dataDir, decryptArgs(bundlePath, '-'));
    expect(decrypted.stderr).toBe('');
    expect(decrypted.code).toBe(0);
    expect(decrypted.stdout).toBe(`${mnemonic}\n`);

    // The journal key was made in the data directory, readable by its owner only, and entry 0 says where it is held.
    const keyFileStat = await stat(join(dataDir, JOURNAL_KEY_FILE));
    expect(keyFileStat.mode & 0o777).toBe(0o600);
    const [started, reveal] = await journalLines(dataDir);
    expect(started?.reading.facts).toContainEqual({ label: 'Held in', value: expect.stringContaining(JOURNAL_KEY_FILE) });
    expect(reveal?.action).toBe('export.decrypted');
    expect(reveal?.reading.facts).toContainEqual({ label: 'Opened with', value: keyFile });

    // A second reveal is signed by the same key, read from the file.
    expect((await airGapped(dataDir, decryptArgs(bundlePath, join(work, 'mnemonic.txt')))).code).toBe(0);
    expect(await readFile(join(work, 'mnemonic.txt'), 'utf8')).toBe(`${mnemonic}\n`);

    const userId = randomUUID();
    const enclaveTarget = generateEncryptionKeyPair();
    const importBundlePath = join(work, 'import.bundle.json');
    await writeFile(
      importBundlePath,
      await buildImportBundle({ targetPublicKey: enclaveTarget.publicKey, organizationId, userId, sign, enclaveSignerPublicKey: enclave.publicKey }),
    );
    const encryptedPath = join(work, 'encrypted.json');
    const encrypted = await airGapped(dataDir, [
      'encrypt',
      '--import-bundle',
      importBundlePath,
      '--plaintext-input',
      join(work, 'mnemonic.txt'),
      '--organization',
      organizationId,
      '--user',
      userId,
      '--key-format',
      'mnemonic',
      '--signer-public-key',
      enclave.publicKey,
      '--output',
      encryptedPath,
    ]);
    expect(encrypted.stderr).toBe('');
    expect(encrypted.code).toBe(0);
    const opened = await openImportCiphertext({
      encryptedBundle: (await readFile(encryptedPath, 'utf8')).trim(),
      targetPrivateKey: enclaveTarget.privateKey,
      targetPublicKey: enclaveTarget.publicKey,
    });
    expect(decodeWalletImportPlaintext(opened).mnemonic).toBe(mnemonic);

    const verified = await airGapped(dataDir, ['journal', 'verify', join(dataDir, JOURNAL_FILE)]);
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ valid: true, entries: 3, journalKey: started?.journalKey });
  });

  it('refuses to reveal, writing nothing, when the journal was begun with a key held in an unreachable keychain', async () => {
    const dataDir = join(work, 'desktop');
    // On the desktop, with its keychain: the journal key is there, and no key file is made.
    const desktop = await runCli(dataDir, decryptArgs(bundlePath, join(work, 'desktop.out')));
    expect(desktop.stderr).toBe('');
    expect(desktop.code).toBe(0);
    await expect(access(join(dataDir, JOURNAL_KEY_FILE))).rejects.toThrow();
    const [started] = await journalLines(dataDir);
    expect(started?.reading.facts).toContainEqual({ label: 'Held in', value: 'the OS keychain' });

    // The same data directory where no keychain can be reached: the reveal would go unrecorded, so it is refused.
    const output = join(work, 'headless.out');
    const headless = await airGapped(dataDir, decryptArgs(bundlePath, output));
    expect(headless.code).toBe(1);
    expect(headless.stderr).toMatch(/^KEYCHAIN_UNAVAILABLE: .*was begun with the journal key 04.*--data-dir/s);
    await expect(access(output)).rejects.toThrow();
    expect(await journalLines(dataDir)).toHaveLength(2);
  });
});
