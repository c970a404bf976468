/**
 * Enclave-signed export and import bundles (docs/formats.md#export-bundles, docs/formats.md#import-bundles):
 * `{"version":"v1.0.0","data":hex(compact JSON),"dataSignature":hex(DER),"enclaveQuorumPublic":130-hex}`.
 * The signature covers the exact `data` bytes, so builders sign what they emit and never re-serialise.
 */
import { validateMnemonic } from '@scure/bip39';
import { wordlist as czech } from '@scure/bip39/wordlists/czech.js';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { wordlist as french } from '@scure/bip39/wordlists/french.js';
import { wordlist as italian } from '@scure/bip39/wordlists/italian.js';
import { wordlist as japanese } from '@scure/bip39/wordlists/japanese.js';
import { wordlist as korean } from '@scure/bip39/wordlists/korean.js';
import { wordlist as simplifiedChinese } from '@scure/bip39/wordlists/simplified-chinese.js';
import { wordlist as spanish } from '@scure/bip39/wordlists/spanish.js';
import { wordlist as traditionalChinese } from '@scure/bip39/wordlists/traditional-chinese.js';
import { p256 } from '@noble/curves/nist.js';
import { QkError } from '../errors';
import { ecdsaVerify } from './ecdsa';
import { bytesToHex, hexToBytes, utf8Decode, utf8Encode } from './encoding';
import { hpkeOpen, hpkeSeal } from './hpke';
import { parseP256PublicKey, privateKeyBytes, zeroize } from './keys';

export { formatPrivateKey, parsePrivateKey, PRIVATE_KEY_FORMATS, type PrivateKeyFormat } from './key-formats';

export const BUNDLE_VERSION = 'v1.0.0';
/** Separator frames put between mnemonic and passphrase in an import plaintext (export uses a plain "\n"). */
export const IMPORT_PASSPHRASE_SEPARATOR = '\n--PASS--\n';

/** The mnemonic languages Turnkey's `MNEMONIC_LANGUAGE_*` enum covers. */
const MNEMONIC_WORDLISTS = [english, simplifiedChinese, traditionalChinese, czech, french, italian, japanese, korean, spanish];

/** Signs the exact data bytes with the enclave signing key and returns a DER ECDSA-P256-SHA256 signature. */
export type BundleSigner = (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

export interface ExportBundleSignedData {
  encappedPublic: string;
  ciphertext: string;
  organizationId: string;
}

export interface ImportBundleSignedData {
  targetPublic: string;
  organizationId: string;
  userId: string;
}

/** A secret's import target binds no user: `@turnkey/crypto`'s `encryptSecretToBundle` checks the organization only. */
export type SecretImportTargetSignedData = Omit<ImportBundleSignedData, 'userId'>;

/** The enclave signing key in the form `enclaveQuorumPublic` carries: 130-hex uncompressed (compressed input is expanded). */
function normalizedSignerKey(signerPublicKey: string): string {
  const point = parseP256PublicKey(signerPublicKey, 'enclave signer public key');
  return point.toHex(false);
}

async function buildSignedEnvelope(
  signedData: ExportBundleSignedData | ImportBundleSignedData | SecretImportTargetSignedData,
  sign: BundleSigner,
  enclaveSignerPublicKey: string,
): Promise<string> {
  const enclaveQuorumPublic = normalizedSignerKey(enclaveSignerPublicKey);
  const data = utf8Encode(JSON.stringify(signedData));
  const signature = await sign(data);
  return JSON.stringify({
    version: BUNDLE_VERSION,
    data: bytesToHex(data),
    dataSignature: bytesToHex(signature),
    enclaveQuorumPublic,
  });
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new QkError('BUNDLE_MALFORMED', `${what} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new QkError('BUNDLE_MALFORMED', `${what} must be a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function requireString(record: Record<string, unknown>, field: string, what: string): string {
  const value = record[field];
  if (typeof value !== 'string' || value === '') {
    throw new QkError('BUNDLE_MALFORMED', `${what} field "${field}" must be a non-empty string`, { field });
  }
  return value;
}

function requireHex(record: Record<string, unknown>, field: string, what: string): Uint8Array {
  try {
    return hexToBytes(requireString(record, field, what), `${what} field "${field}"`);
  } catch (error) {
    if (error instanceof QkError && error.code === 'BUNDLE_MALFORMED') throw error;
    throw new QkError('BUNDLE_MALFORMED', (error as Error).message, { field });
  }
}

function requireUncompressedPoint(record: Record<string, unknown>, field: string, what: string): string {
  const bytes = requireHex(record, field, what);
  if (bytes.length !== 65 || bytes[0] !== 0x04) {
    throw new QkError('BUNDLE_MALFORMED', `${what} field "${field}" must be a 65-byte uncompressed P-256 point`, { field });
  }
  try {
    parseP256PublicKey(bytesToHex(bytes));
  } catch {
    throw new QkError('BUNDLE_MALFORMED', `${what} field "${field}" is not a point on P-256`, { field });
  }
  return bytesToHex(bytes);
}

/**
 * Steps 1–4 of docs/formats.md#verifying-an-export-bundle: envelope shape, version, pinned signer, signature over the
 * data bytes, signed JSON and organization binding. Returns the signed data object.
 */
function verifySignedEnvelope(
  bundleText: string,
  what: string,
  expected: { signerPublicKey: string; organizationId: string },
): Record<string, unknown> {
  const envelope = parseJsonObject(bundleText, what);
  if (envelope.version !== BUNDLE_VERSION) {
    throw new QkError(
      'BUNDLE_VERSION_UNSUPPORTED',
      envelope.version === undefined
        ? `${what} has no "version" (legacy V0 format); only ${BUNDLE_VERSION} bundles are supported`
        : `${what} version ${JSON.stringify(envelope.version)} is not supported; expected "${BUNDLE_VERSION}"`,
      { version: envelope.version },
    );
  }
  const data = requireHex(envelope, 'data', what);
  const signatureHex = requireString(envelope, 'dataSignature', what);
  const enclaveQuorumPublic = requireString(envelope, 'enclaveQuorumPublic', what);
  const expectedSigner = normalizedSignerKey(expected.signerPublicKey);
  if (enclaveQuorumPublic !== expectedSigner) {
    throw new QkError(
      'BUNDLE_SIGNER_MISMATCH',
      `${what} is signed by enclave key ${enclaveQuorumPublic}, not the expected signer ${expectedSigner}`,
      { enclaveQuorumPublic, expected: expectedSigner },
    );
  }
  let signature: Uint8Array;
  try {
    signature = hexToBytes(signatureHex, `${what} dataSignature`);
  } catch (error) {
    throw new QkError('BUNDLE_SIGNATURE_INVALID', (error as Error).message);
  }
  if (!ecdsaVerify('p256', signature, data, hexToBytes(expectedSigner, 'signer'), 'der')) {
    throw new QkError('BUNDLE_SIGNATURE_INVALID', `${what} dataSignature does not verify over data with the enclave signer key`);
  }
  let signedJson: string;
  try {
    signedJson = utf8Decode(data, `${what} data`);
  } catch (error) {
    throw new QkError('BUNDLE_MALFORMED', (error as Error).message);
  }
  const signed = parseJsonObject(signedJson, `${what} signed data`);
  const organizationId = signed.organizationId;
  if (typeof organizationId !== 'string' || organizationId === '' || organizationId !== expected.organizationId) {
    throw new QkError(
      'BUNDLE_ORGANIZATION_MISMATCH',
      `organization id does not match expected value. Expected: ${expected.organizationId}. Found: ${String(organizationId)}.`,
      { expected: expected.organizationId, found: organizationId },
    );
  }
  return signed;
}

// ---------------------------------------------------------------------------------------------------------------
// Export bundles (service → client)

export async function buildExportBundle(params: {
  plaintext: Uint8Array;
  /** Client's uncompressed P-256 target key (130 hex). */
  targetPublicKey: string;
  organizationId: string;
  sign: BundleSigner;
  enclaveSignerPublicKey: string;
}): Promise<string> {
  if (params.targetPublicKey.length !== 130) {
    throw new QkError('KEY_INVALID', 'targetPublicKey must be the 65-byte uncompressed P-256 point (130 hex characters)');
  }
  const target = parseP256PublicKey(params.targetPublicKey, 'targetPublicKey');
  const sealed = await hpkeSeal({ plaintext: params.plaintext, recipientPublicKey: target.toBytes(false) });
  const signedData: ExportBundleSignedData = {
    encappedPublic: bytesToHex(sealed.encappedPublic),
    ciphertext: bytesToHex(sealed.ciphertext),
    organizationId: params.organizationId,
  };
  return buildSignedEnvelope(signedData, params.sign, params.enclaveSignerPublicKey);
}

/** Verifies an export bundle's envelope, signer, signature and organization; does not decrypt. */
export function verifyExportBundle(bundleText: string, expected: { signerPublicKey: string; organizationId: string }): ExportBundleSignedData {
  const signed = verifySignedEnvelope(bundleText, 'export bundle', expected);
  const encappedPublic = requireUncompressedPoint(signed, 'encappedPublic', 'export bundle signed data');
  const ciphertext = bytesToHex(requireHex(signed, 'ciphertext', 'export bundle signed data'));
  return { encappedPublic, ciphertext, organizationId: expected.organizationId };
}

/** Verifies then HPKE-decrypts an export bundle with the client's target private key (64 hex). */
export async function decryptExportBundle(
  bundleText: string,
  params: { signerPublicKey: string; organizationId: string; targetPrivateKey: string },
): Promise<Uint8Array> {
  const signed = verifyExportBundle(bundleText, params);
  const recipientPrivateKey = privateKeyBytes(params.targetPrivateKey, 'export target private key');
  try {
    return await hpkeOpen({
      encappedPublic: hexToBytes(signed.encappedPublic, 'encappedPublic'),
      ciphertext: hexToBytes(signed.ciphertext, 'ciphertext'),
      recipientPrivateKey,
    });
  } finally {
    zeroize(recipientPrivateKey);
  }
}

/** EXPORT_WALLET plaintext: UTF-8 mnemonic, optionally followed by "\n" + BIP-39 passphrase. */
export function decodeWalletPlaintext(bytes: Uint8Array): { mnemonic: string; passphrase?: string } {
  const text = utf8Decode(bytes, 'wallet export plaintext');
  const newline = text.indexOf('\n');
  if (newline === -1) return { mnemonic: text };
  return { mnemonic: text.slice(0, newline), passphrase: text.slice(newline + 1) };
}

// ---------------------------------------------------------------------------------------------------------------
// Import bundles (service → client target, client → service ciphertext)

export async function buildImportBundle(params: {
  /** The enclave's fresh uncompressed P-256 HPKE key (130 hex). */
  targetPublicKey: string;
  organizationId: string;
  userId: string;
  sign: BundleSigner;
  enclaveSignerPublicKey: string;
}): Promise<string> {
  const signedData: ImportBundleSignedData = {
    targetPublic: parseP256PublicKey(params.targetPublicKey, 'import targetPublicKey').toHex(false),
    organizationId: params.organizationId,
    userId: params.userId,
  };
  return buildSignedEnvelope(signedData, params.sign, params.enclaveSignerPublicKey);
}

/** One of init_import_secrets' `enclaveTargetMessages`: the enclave's fresh target key, signed for the organization. */
export async function buildSecretImportTarget(params: {
  /** The enclave's fresh uncompressed P-256 HPKE key (130 hex). */
  targetPublicKey: string;
  organizationId: string;
  sign: BundleSigner;
  enclaveSignerPublicKey: string;
}): Promise<string> {
  const signedData: SecretImportTargetSignedData = {
    targetPublic: parseP256PublicKey(params.targetPublicKey, 'secret import targetPublicKey').toHex(false),
    organizationId: params.organizationId,
  };
  return buildSignedEnvelope(signedData, params.sign, params.enclaveSignerPublicKey);
}

export function verifyImportBundle(
  bundleText: string,
  expected: { signerPublicKey: string; organizationId: string; userId: string },
): { targetPublic: string } {
  const signed = verifySignedEnvelope(bundleText, 'import bundle', expected);
  if (signed.userId !== expected.userId) {
    throw new QkError(
      'BUNDLE_USER_MISMATCH',
      `user id does not match expected value. Expected: ${expected.userId}. Found: ${String(signed.userId)}.`,
      { expected: expected.userId, found: signed.userId },
    );
  }
  return { targetPublic: requireUncompressedPoint(signed, 'targetPublic', 'import bundle signed data') };
}

/** Client side: verifies the import bundle and encrypts to its target, returning the `encryptedBundle` JSON. */
export async function encryptToImportBundle(params: {
  importBundle: string;
  plaintext: Uint8Array;
  signerPublicKey: string;
  organizationId: string;
  userId: string;
}): Promise<string> {
  const { targetPublic } = verifyImportBundle(params.importBundle, params);
  const sealed = await hpkeSeal({ plaintext: params.plaintext, recipientPublicKey: hexToBytes(targetPublic, 'targetPublic') });
  return JSON.stringify({ encappedPublic: bytesToHex(sealed.encappedPublic), ciphertext: bytesToHex(sealed.ciphertext) });
}

function isMnemonicInSupportedLanguage(mnemonic: string): boolean {
  return MNEMONIC_WORDLISTS.some((wordlist) => validateMnemonic(mnemonic, wordlist));
}

/**
 * Wallet import plaintext: the mnemonic as UTF-8, plus "\n--PASS--\n" + passphrase when one is given.
 * Throws MNEMONIC_INVALID unless the mnemonic is valid BIP-39 (with checksum) in one of Turnkey's languages.
 */
export function encodeWalletImportPlaintext(mnemonic: string, passphrase?: string): Uint8Array {
  if (mnemonic.includes('\n')) {
    throw new QkError('MNEMONIC_INVALID', 'mnemonic must be on a single line (it contains a newline)');
  }
  if (!isMnemonicInSupportedLanguage(mnemonic)) {
    throw new QkError(
      'MNEMONIC_INVALID',
      'mnemonic is not a valid BIP-39 phrase (unknown word, wrong word count or bad checksum) in any supported language',
    );
  }
  return utf8Encode(passphrase ? `${mnemonic}${IMPORT_PASSPHRASE_SEPARATOR}${passphrase}` : mnemonic);
}

/** Service side inverse of {@link encodeWalletImportPlaintext}. */
export function decodeWalletImportPlaintext(bytes: Uint8Array): { mnemonic: string; passphrase?: string } {
  const text = utf8Decode(bytes, 'wallet import plaintext');
  const separator = text.indexOf(IMPORT_PASSPHRASE_SEPARATOR);
  const mnemonic = separator === -1 ? text : text.slice(0, separator);
  if (!isMnemonicInSupportedLanguage(mnemonic)) {
    throw new QkError('MNEMONIC_INVALID', 'imported mnemonic is not a valid BIP-39 phrase in any supported language');
  }
  return separator === -1 ? { mnemonic } : { mnemonic, passphrase: text.slice(separator + IMPORT_PASSPHRASE_SEPARATOR.length) };
}

/** Service side: opens `{"encappedPublic","ciphertext"}` with the import target key pair (hex). */
export async function openImportCiphertext(params: {
  encryptedBundle: string;
  targetPrivateKey: string;
  targetPublicKey: string;
}): Promise<Uint8Array> {
  const message = parseJsonObject(params.encryptedBundle, 'encrypted bundle');
  const encappedPublic = requireUncompressedPoint(message, 'encappedPublic', 'encrypted bundle');
  const ciphertext = requireHex(message, 'ciphertext', 'encrypted bundle');
  const recipientPrivateKey = privateKeyBytes(params.targetPrivateKey, 'import target private key');
  try {
    const expectedPublic = parseP256PublicKey(params.targetPublicKey, 'import target public key').toHex(false);
    if (bytesToHex(p256.getPublicKey(recipientPrivateKey, false)) !== expectedPublic) {
      throw new QkError('KEY_INVALID', 'import target private key does not belong to the given target public key');
    }
    return await hpkeOpen({ encappedPublic: hexToBytes(encappedPublic, 'encappedPublic'), ciphertext, recipientPrivateKey });
  } finally {
    zeroize(recipientPrivateKey);
  }
}
