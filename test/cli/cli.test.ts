/**
 * The CLI in child processes against the real keychain (run under test/support/with-secret-service.sh). `decrypt`
 * runs with networking disabled by a preload that makes every socket connection and fetch throw.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist as japanese } from '@scure/bip39/wordlists/japanese.js';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keychain } from '../../src/main/keychain/keychain';
import { Profiles } from '../../src/main/profiles/profiles';
import { buildExportBundle, buildImportBundle, decodeWalletImportPlaintext, openImportCiphertext } from '../../src/shared/crypto/bundles';
import { ecdsaSign } from '../../src/shared/crypto/ecdsa';
import { hexToBytes, utf8Encode } from '../../src/shared/crypto/encoding';
import { generateEncryptionKeyPair } from '../../src/shared/crypto/keys';
import { verifyApiKeyStamp } from '../../src/shared/crypto/stamp';
import { parseStampedRequest } from '../../src/shared/offline/stamped-request';
import { scanForSecrets } from '../support/scan-for-secrets';
import { runCli, writeNoNetworkPreload, type CliRun } from './helpers';

const enclave = generateEncryptionKeyPair();
const sign = (data: Uint8Array) => ecdsaSign('p256', data, hexToBytes(enclave.privateKey, 'enclave key'), 'der');
const organizationId = randomUUID();

let dataDir: string;
let work: string;
let noNetwork: string;

function cli(args: string[], options: { offline?: boolean } = {}): Promise<CliRun> {
  return runCli(dataDir, args, options.offline ? { noNetwork } : {});
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-cli-data-'));
  work = await mkdtemp(join(tmpdir(), 'qk-cli-work-'));
  noNetwork = await writeNoNetworkPreload(work);
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

describe('usage errors exit 2', () => {
  it.each([
    [[]],
    [['frobnicate']],
    [['keys', 'generate', 'x', '--curve', 'rsa']],
    [['decrypt', '--bundle', 'b.json', '--encryption-key', 'k', '--plaintext-output', 'out']],
    [['decrypt', '--bundle', 'b.json', '--organization', 'o', '--plaintext-output', 'out']],
    [['--no-such-flag']],
    [['activities', 'list', '--limit', '0']],
    [['activities', 'list', '--limit', '101']],
    [['activities', 'list', '--status', 'ACTIVITY_STATUS_DONE']],
  ])('%j', async (args) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage:');
  });

  it('--help prints the usage on stdout and exits 0', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('usage: quorumkey [--data-dir DIR]');
    expect(run.stderr).toBe('');
  });
});

describe('keys, offline decrypt and encrypt', () => {
  it('generates an encryption key, and decrypt opens a wallet bundle sealed to it with networking disabled', async () => {
    const generated = await cli(['encryption-keys', 'generate', 'export-target']);
    expect(generated.code).toBe(0);
    const { publicKey } = JSON.parse(generated.stdout) as { publicKey: string };
    const mnemonic = generateMnemonic(japanese, 256);
    const bundlePath = join(work, 'wallet.bundle.json');
    await writeFile(
      bundlePath,
      await buildExportBundle({
        plaintext: utf8Encode(mnemonic),
        targetPublicKey: publicKey,
        organizationId,
        sign,
        enclaveSignerPublicKey: enclave.publicKey,
      }),
    );
    const output = join(work, 'mnemonic.txt');
    const args = ['decrypt', '--bundle', bundlePath, '--encryption-key', 'export-target', '--organization', organizationId];

    const productionOnly = await cli([...args, '--plaintext-output', output], { offline: true });
    expect(productionOnly.code).toBe(1);
    expect(productionOnly.stderr).toMatch(/^BUNDLE_SIGNER_MISMATCH/);

    const decrypted = await cli([...args, '--signer-public-key', enclave.publicKey, '--plaintext-output', output], { offline: true });
    expect(decrypted.stderr).toBe('');
    expect(decrypted.code).toBe(0);
    expect(decrypted.stdout).toBe('');
    expect(await readFile(output, 'utf8')).toBe(`${mnemonic}\n`);
    expect((await stat(output)).mode & 0o777).toBe(0o600);

    const toStdout = await cli([...args, '--signer-public-key', enclave.publicKey, '--plaintext-output', '-'], { offline: true });
    expect(toStdout.stdout).toBe(`${mnemonic}\n`);

    const wrongOrganization = await cli(
      [
        'decrypt',
        '--bundle',
        bundlePath,
        '--encryption-key',
        'export-target',
        '--organization',
        randomUUID(),
        '--signer-public-key',
        enclave.publicKey,
        '--plaintext-output',
        '-',
      ],
      {
        offline: true,
      },
    );
    expect(wrongOrganization.code).toBe(1);
    expect(wrongOrganization.stderr).toMatch(/^BUNDLE_ORGANIZATION_MISMATCH/);
  });

  it('decrypts a private key with a key file holding hex:p256', async () => {
    const target = generateEncryptionKeyPair();
    const keyFile = join(work, 'target.private');
    await writeFile(keyFile, `${target.privateKey}:p256\n`);
    const secret = generateEncryptionKeyPair().privateKey;
    const bundlePath = join(work, 'key.bundle.json');
    await writeFile(
      bundlePath,
      await buildExportBundle({
        plaintext: hexToBytes(secret, 'key'),
        targetPublicKey: target.publicKey,
        organizationId,
        sign,
        enclaveSignerPublicKey: enclave.publicKey,
      }),
    );
    const run = await cli(
      [
        'decrypt',
        '--bundle',
        bundlePath,
        '--encryption-key-file',
        keyFile,
        '--organization',
        organizationId,
        '--signer-public-key',
        enclave.publicKey,
        '--key-format',
        'hexadecimal',
        '--plaintext-output',
        '-',
      ],
      { offline: true },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${secret}\n`);
  });

  it('encrypts a mnemonic file to an import bundle that the enclave target opens', async () => {
    const enclaveTarget = generateEncryptionKeyPair();
    const userId = randomUUID();
    const importBundlePath = join(work, 'import.bundle.json');
    await writeFile(
      importBundlePath,
      await buildImportBundle({ targetPublicKey: enclaveTarget.publicKey, organizationId, userId, sign, enclaveSignerPublicKey: enclave.publicKey }),
    );
    const mnemonic = generateMnemonic(english, 128);
    const plaintextPath = join(work, 'import.mnemonic');
    await writeFile(plaintextPath, `${mnemonic}\n`, { mode: 0o600 });
    const output = join(work, 'encrypted.json');
    const base = [
      'encrypt',
      '--import-bundle',
      importBundlePath,
      '--plaintext-input',
      plaintextPath,
      '--organization',
      organizationId,
      '--key-format',
      'mnemonic',
      '--signer-public-key',
      enclave.publicKey,
    ];
    const otherUser = await cli([...base, '--user', randomUUID(), '--output', output], { offline: true });
    expect(otherUser.code).toBe(1);
    expect(otherUser.stderr).toMatch(/^BUNDLE_USER_MISMATCH/);
    const run = await cli([...base, '--user', userId, '--output', output], { offline: true });
    expect(run.code).toBe(0);
    const encryptedBundle = (await readFile(output, 'utf8')).trim();
    const opened = await openImportCiphertext({
      encryptedBundle,
      targetPrivateKey: enclaveTarget.privateKey,
      targetPublicKey: enclaveTarget.publicKey,
    });
    expect(decodeWalletImportPlaintext(opened)).toEqual({ mnemonic });
  });

  it('refuses to stamp a request when no profile is active (exit 1)', async () => {
    const generated = await cli(['keys', 'generate', 'cli-key']);
    expect(generated.code).toBe(0);
    const noProfile = await cli(['request', '--path', '/public/v1/query/whoami', '--body', '{"organizationId":"x"}', '--no-post']);
    expect(noProfile.code).toBe(1);
    expect(noProfile.stderr).toMatch(/^PROFILE_NOT_FOUND/);
  });

  it('leaves no private key bytes in the data dir', async () => {
    const keychain = new Keychain({ dataDir });
    const secrets: Uint8Array[] = [];
    for (const { name } of await keychain.listEncryptionKeys())
      await keychain.withEncryptionPrivateKey(name, (key) => void secrets.push(key.slice()));
    expect(secrets).toHaveLength(1);
    expect(await scanForSecrets(dataDir, secrets)).toEqual([]);
    for (const { name } of await keychain.listEncryptionKeys()) await keychain.deleteEncryptionKey(name);
    for (const { name } of await keychain.listApiKeys()) await keychain.deleteApiKey(name);
  });
});

describe('request --no-post with a hosted profile', () => {
  it('prints a version 1 stamped-request file whose stamp verifies over the body, without network', async () => {
    const keychain = new Keychain({ dataDir });
    await keychain.generateApiKey({ name: 'hosted-key' });
    await new Profiles({ dataDir }).add({
      name: 'Hosted',
      kind: 'hosted',
      baseUrl: 'https://api.turnkey.com',
      organizationId,
      apiKeyName: 'hosted-key',
    });
    const body = JSON.stringify({ organizationId });
    const run = await cli(['--profile', 'Hosted', 'request', '--path', '/public/v1/query/whoami', '--body', body, '--no-post'], { offline: true });
    expect(run.code).toBe(0);
    const printed = parseStampedRequest(run.stdout, 'stdout');
    expect(printed).toMatchObject({ version: 1, path: '/public/v1/query/whoami', body });
    const { publicKey } = await keychain.getApiKeyPublic('hosted-key');
    expect(verifyApiKeyStamp(printed.stamp.headerValue, utf8Encode(body)).publicKey).toBe(publicKey);
  });
});

describe('finding 8: the CLI reads bundles, keys, plaintexts and @FILE bodies only up to what the format can need', () => {
  /** An import bundle the encrypt command accepts, and the user it names. */
  async function importBundleFile(): Promise<{ path: string; userId: string }> {
    const userId = randomUUID();
    const path = join(work, `capped-import-${userId}.json`);
    const target = generateEncryptionKeyPair();
    await writeFile(
      path,
      await buildImportBundle({ targetPublicKey: target.publicKey, organizationId, userId, sign, enclaveSignerPublicKey: enclave.publicKey }),
    );
    return { path, userId };
  }

  it('refuses /dev/zero as a bundle, a key file, a plaintext and a request body, naming each limit', async () => {
    const { path: importBundle, userId } = await importBundleFile();
    const target = generateEncryptionKeyPair();
    const exportBundle = join(work, 'capped-export.json');
    await writeFile(
      exportBundle,
      await buildExportBundle({
        plaintext: hexToBytes(target.privateKey, 'key'),
        targetPublicKey: target.publicKey,
        organizationId,
        sign,
        enclaveSignerPublicKey: enclave.publicKey,
      }),
    );
    const decrypt = [
      'decrypt',
      '--organization',
      organizationId,
      '--signer-public-key',
      enclave.publicKey,
      '--key-format',
      'hexadecimal',
      '--plaintext-output',
      '-',
    ];
    const encrypt = [
      'encrypt',
      '--organization',
      organizationId,
      '--user',
      userId,
      '--key-format',
      'mnemonic',
      '--signer-public-key',
      enclave.publicKey,
      '--output',
      join(work, 'never-written.json'),
    ];
    const cases: [string[], string][] = [
      [
        [...decrypt, '--bundle', '/dev/zero', '--encryption-key-file', '/dev/zero'],
        '/dev/zero is larger than 65536 bytes, more than an export bundle can need',
      ],
      [
        [...decrypt, '--bundle', exportBundle, '--encryption-key-file', '/dev/zero'],
        '/dev/zero is larger than 4096 bytes, more than a private key file can need',
      ],
      [
        [...encrypt, '--import-bundle', '/dev/zero', '--plaintext-input', '/dev/zero'],
        '/dev/zero is larger than 65536 bytes, more than an import bundle can need',
      ],
      [
        [...encrypt, '--import-bundle', importBundle, '--plaintext-input', '/dev/zero'],
        '/dev/zero is larger than 16384 bytes, more than a mnemonic or private key can need',
      ],
      [
        ['request', '--path', '/public/v1/query/whoami', '--body', '@/dev/zero', '--no-post'],
        '/dev/zero is larger than 1048576 bytes, more than a request body can need',
      ],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(args, { offline: true })));
    runs.forEach((run, index) => {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/^FILE_ERROR: /);
      expect(run.stderr).toContain(cases[index]![1]);
    });
  });

  it('refuses a regular file one byte over the limit, and reads one at the limit', async () => {
    const { path: importBundle, userId } = await importBundleFile();
    const over = join(work, 'plaintext-over-limit.txt');
    await writeFile(over, 'a'.repeat(16 * 1024 + 1));
    const base = [
      'encrypt',
      '--import-bundle',
      importBundle,
      '--organization',
      organizationId,
      '--user',
      userId,
      '--key-format',
      'mnemonic',
      '--signer-public-key',
      enclave.publicKey,
    ];
    const refused = await cli([...base, '--plaintext-input', over, '--output', join(work, 'over.json')], { offline: true });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`FILE_ERROR: ${over} is larger than 16384 bytes`);
    const atLimit = join(work, 'plaintext-at-limit.txt');
    await writeFile(atLimit, `${generateMnemonic(english, 128)}\n`.padEnd(16 * 1024, ' '));
    const accepted = await cli([...base, '--plaintext-input', atLimit, '--output', join(work, 'at-limit.json')], { offline: true });
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
  });
});

describe('finding 10: an output file that already exists is reported as such, never overwritten', () => {
  it('encrypt --output and decrypt --plaintext-output name the existing file (ALREADY_EXISTS)', async () => {
    const userId = randomUUID();
    const importBundle = join(work, 'existing-output-import.json');
    await writeFile(
      importBundle,
      await buildImportBundle({
        targetPublicKey: generateEncryptionKeyPair().publicKey,
        organizationId,
        userId,
        sign,
        enclaveSignerPublicKey: enclave.publicKey,
      }),
    );
    const plaintext = join(work, 'existing-output.mnemonic');
    await writeFile(plaintext, `${generateMnemonic(english, 128)}\n`);
    const existing = join(work, 'existing-output.json');
    await writeFile(existing, 'keep me\n');
    const encrypted = await cli(
      [
        'encrypt',
        '--import-bundle',
        importBundle,
        '--plaintext-input',
        plaintext,
        '--organization',
        organizationId,
        '--user',
        userId,
        '--key-format',
        'mnemonic',
        '--signer-public-key',
        enclave.publicKey,
        '--output',
        existing,
      ],
      { offline: true },
    );
    expect(encrypted.code).toBe(1);
    expect(encrypted.stderr).toBe(`ALREADY_EXISTS: ${existing} already exists; name a new file, or remove this one first\n`);

    const target = generateEncryptionKeyPair();
    const keyFile = join(work, 'existing-output.key');
    await writeFile(keyFile, target.privateKey);
    const bundle = join(work, 'existing-output-export.json');
    await writeFile(
      bundle,
      await buildExportBundle({
        plaintext: hexToBytes(generateEncryptionKeyPair().privateKey, 'key'),
        targetPublicKey: target.publicKey,
        organizationId,
        sign,
        enclaveSignerPublicKey: enclave.publicKey,
      }),
    );
    const decrypted = await cli(
      [
        'decrypt',
        '--bundle',
        bundle,
        '--encryption-key-file',
        keyFile,
        '--organization',
        organizationId,
        '--signer-public-key',
        enclave.publicKey,
        '--key-format',
        'hexadecimal',
        '--plaintext-output',
        existing,
      ],
      { offline: true },
    );
    expect(decrypted.code).toBe(1);
    expect(decrypted.stderr).toBe(`ALREADY_EXISTS: ${existing} already exists; name a new file, or remove this one first\n`);
    expect(await readFile(existing, 'utf8')).toBe('keep me\n');
  });
});
