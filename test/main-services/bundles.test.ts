/**
 * Exporter and Importer crypto paths with enclave-signed bundles built by src/shared/crypto, decrypted with keys
 * held in the real keychain or in key files. No network is involved in any of these paths.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { wordlist as french } from '@scure/bip39/wordlists/french.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBundleOffline, type RevealedSecret } from '../../src/main/exports/exporter';
import { encryptForImport } from '../../src/main/imports/importer';
import {
  buildExportBundle,
  buildImportBundle,
  decodeWalletImportPlaintext,
  formatPrivateKey,
  openImportCiphertext,
  parsePrivateKey,
  PRIVATE_KEY_FORMATS,
} from '../../src/shared/crypto/bundles';
import { ecdsaSign } from '../../src/shared/crypto/ecdsa';
import { hexToBytes, utf8Encode } from '../../src/shared/crypto/encoding';
import { generateEncryptionKeyPair } from '../../src/shared/crypto/keys';
import { scanForSecrets } from '../support/scan-for-secrets';
import { rejection } from '../support/assertions';
import { newOperator, removeOperator, type Operator } from './helpers';

const enclave = generateEncryptionKeyPair();
const sign = (data: Uint8Array) => ecdsaSign('p256', data, hexToBytes(enclave.privateKey, 'enclave key'), 'der');
const organizationId = randomUUID();
const expected = { signerPublicKey: enclave.publicKey, organizationId };

let operator: Operator;
let targetPublicKey: string;
let scratch: string;

beforeAll(async () => {
  operator = await newOperator();
  targetPublicKey = (await operator.keychain.generateEncryptionKey({ name: 'target' })).publicKey;
  scratch = await mkdtemp(join(tmpdir(), 'qk-bundles-'));
});

afterAll(async () => {
  await removeOperator(operator);
  await rm(scratch, { recursive: true, force: true });
});

function exportBundle(plaintext: Uint8Array, overrides: { organizationId?: string; to?: string } = {}) {
  return buildExportBundle({
    plaintext,
    targetPublicKey: overrides.to ?? targetPublicKey,
    organizationId: overrides.organizationId ?? organizationId,
    sign,
    enclaveSignerPublicKey: enclave.publicKey,
  });
}

function decryptWithStoredKey(bundle: string, format: 'mnemonic' | (typeof PRIVATE_KEY_FORMATS)[number], overrides = {}): Promise<RevealedSecret> {
  return decryptBundleOffline({
    bundle,
    key: { kind: 'encryption-key', name: 'target' },
    keychain: operator.keychain,
    expected: { ...expected, ...overrides },
    format,
  });
}

describe('offline export decryption', () => {
  it('reads a mnemonic with its language and passphrase using the stored encryption key', async () => {
    const mnemonic = generateMnemonic(french, 256);
    const secret = await decryptWithStoredKey(await exportBundle(utf8Encode(`${mnemonic}\nmy passphrase`)), 'mnemonic');
    expect(secret).toEqual({ kind: 'mnemonic', mnemonic, passphrase: 'my passphrase', language: 'MNEMONIC_LANGUAGE_FRENCH' });
  });

  it('reads a private key in every key format, from a key file with or without the :p256 suffix', async () => {
    const pair = generateEncryptionKeyPair();
    const keyBytes = hexToBytes(generateEncryptionKeyPair().privateKey, 'key');
    const bundle = await exportBundle(keyBytes, { to: pair.publicKey });
    for (const [index, suffix] of ['', ':p256'].entries()) {
      const path = join(scratch, `key-${index}.private`);
      await writeFile(path, `${pair.privateKey}${suffix}\n`, { mode: 0o600 });
      for (const format of PRIVATE_KEY_FORMATS) {
        const secret = await decryptBundleOffline({ bundle, key: { kind: 'file', path }, keychain: operator.keychain, expected, format });
        if (secret.kind !== 'private-key') throw new Error('expected a private key');
        expect(secret.format).toBe(format);
        expect(parsePrivateKey(secret.privateKey, format)).toEqual(keyBytes);
      }
    }
    const wrongCurve = join(scratch, 'key.secp');
    await writeFile(wrongCurve, `${pair.privateKey}:secp256k1`);
    const error = await rejection(
      decryptBundleOffline({ bundle, key: { kind: 'file', path: wrongCurve }, keychain: operator.keychain, expected, format: 'hexadecimal' }),
    );
    expect(error.code).toBe('KEY_INVALID');
  });

  it('refuses bundles from another signer or organization, for another key, or of the wrong kind', async () => {
    const mnemonic = generateMnemonic(english, 128);
    const bundle = await exportBundle(utf8Encode(mnemonic));
    expect((await rejection(decryptWithStoredKey(bundle, 'mnemonic', { signerPublicKey: generateEncryptionKeyPair().publicKey }))).code).toBe(
      'BUNDLE_SIGNER_MISMATCH',
    );
    expect((await rejection(decryptWithStoredKey(bundle, 'mnemonic', { organizationId: randomUUID() }))).code).toBe('BUNDLE_ORGANIZATION_MISMATCH');
    const forSomeoneElse = await exportBundle(utf8Encode(mnemonic), { to: generateEncryptionKeyPair().publicKey });
    expect((await rejection(decryptWithStoredKey(forSomeoneElse, 'mnemonic'))).code).toBe('DECRYPTION_FAILED');
    const keyBundle = await exportBundle(hexToBytes(generateEncryptionKeyPair().privateKey, 'key'));
    expect((await rejection(decryptWithStoredKey(keyBundle, 'mnemonic'))).code).toBe('MNEMONIC_INVALID');
    const tampered = JSON.parse(bundle);
    tampered.data = tampered.data.replace(/.$/, (digit: string) => (digit === '0' ? '1' : '0'));
    expect((await rejection(decryptWithStoredKey(JSON.stringify(tampered), 'mnemonic'))).code).toBe('BUNDLE_SIGNATURE_INVALID');
  });

  it('keeps the encryption key out of the data dir', async () => {
    expect(await scanForSecrets(operator.dataDir, operator.store.secrets)).toEqual([]);
  });
});

describe('import encryption', () => {
  const userId = randomUUID();

  async function importTarget() {
    const enclaveTarget = generateEncryptionKeyPair();
    const importBundle = await buildImportBundle({
      targetPublicKey: enclaveTarget.publicKey,
      organizationId,
      userId,
      sign,
      enclaveSignerPublicKey: enclave.publicKey,
    });
    return { enclaveTarget, target: { importBundle, signerPublicKey: enclave.publicKey, organizationId, userId } };
  }

  it('encrypts a mnemonic with passphrase that the enclave target opens', async () => {
    const { enclaveTarget, target } = await importTarget();
    const mnemonic = generateMnemonic(english, 256);
    const encryptedBundle = await encryptForImport(target, { format: 'mnemonic', text: `  ${mnemonic.replaceAll(' ', '  ')}\n`, passphrase: 'p' });
    expect(Object.keys(JSON.parse(encryptedBundle))).toEqual(['encappedPublic', 'ciphertext']);
    const opened = await openImportCiphertext({
      encryptedBundle,
      targetPrivateKey: enclaveTarget.privateKey,
      targetPublicKey: enclaveTarget.publicKey,
    });
    expect(decodeWalletImportPlaintext(opened)).toEqual({ mnemonic, passphrase: 'p' });
  });

  it('encrypts private keys given as hex, Solana and WIF to the raw 32 bytes', async () => {
    const { enclaveTarget, target } = await importTarget();
    const keyHex = generateEncryptionKeyPair().privateKey;
    for (const format of PRIVATE_KEY_FORMATS) {
      const text = formatPrivateKey(hexToBytes(keyHex, 'key'), format);
      const encryptedBundle = await encryptForImport(target, { format, text });
      const opened = await openImportCiphertext({
        encryptedBundle,
        targetPrivateKey: enclaveTarget.privateKey,
        targetPublicKey: enclaveTarget.publicKey,
      });
      expect(Buffer.from(opened).toString('hex')).toBe(keyHex);
    }
  });

  it('refuses a bad checksum, and a bundle for another user or signer', async () => {
    const { target } = await importTarget();
    const words = generateMnemonic(english, 128).split(' ').slice(0, 11);
    // Known words whose checksum fails: only the checksum check can refuse it.
    const badLast = english.find((word) => !validateMnemonic([...words, word].join(' '), english))!;
    expect((await rejection(encryptForImport(target, { format: 'mnemonic', text: [...words, badLast].join(' ') }))).code).toBe('MNEMONIC_INVALID');
    const mnemonic = generateMnemonic(english, 128);
    expect((await rejection(encryptForImport({ ...target, userId: randomUUID() }, { format: 'mnemonic', text: mnemonic }))).code).toBe(
      'BUNDLE_USER_MISMATCH',
    );
    expect(
      (
        await rejection(
          encryptForImport({ ...target, signerPublicKey: generateEncryptionKeyPair().publicKey }, { format: 'mnemonic', text: mnemonic }),
        )
      ).code,
    ).toBe('BUNDLE_SIGNER_MISMATCH');
    expect((await rejection(encryptForImport(target, { format: 'solana', text: 'not base58 0OIl' }))).code).toBe('KEY_FORMAT_INVALID');
  });
});
