/**
 * Exports of wallets, private keys and wallet accounts, and offline decryption of export bundles
 * (docs/formats.md#export-bundles). Every bundle is verified against the profile's pinned enclave signer and
 * organization before it is opened. The decrypted secret is handed to the caller and not kept: target keys and
 * plaintext bytes are wiped as soon as the result is built.
 */
import { p256 } from '@noble/curves/nist.js';
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
import type { Activity } from '../../shared/api';
import { decodeWalletPlaintext, formatPrivateKey, verifyExportBundle, type PrivateKeyFormat } from '../../shared/crypto/bundles';
import { bytesToHex, hexToBytes } from '../../shared/crypto/encoding';
import { hpkeOpen } from '../../shared/crypto/hpke';
import { privateKeyBytes, zeroize } from '../../shared/crypto/keys';
import { activityStatusInWords, activityTypeInWords } from '../../shared/describe';
import { QkError } from '../../shared/errors';
import type { ActivityOutcome, ApiClient } from '../client/api-client';
import { localRecord } from '../journal/local-entry';
import type { Keychain } from '../keychain/keychain';
import { FILE_LIMITS, readBoundedText } from '../storage/bounded-file';

export type MnemonicLanguage =
  | 'MNEMONIC_LANGUAGE_ENGLISH'
  | 'MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE'
  | 'MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE'
  | 'MNEMONIC_LANGUAGE_CZECH'
  | 'MNEMONIC_LANGUAGE_FRENCH'
  | 'MNEMONIC_LANGUAGE_ITALIAN'
  | 'MNEMONIC_LANGUAGE_JAPANESE'
  | 'MNEMONIC_LANGUAGE_KOREAN'
  | 'MNEMONIC_LANGUAGE_SPANISH';

// Simplified before traditional: the two lists share many characters and Turnkey's default order tries it first.
const WORDLISTS: readonly [MnemonicLanguage, string[]][] = [
  ['MNEMONIC_LANGUAGE_ENGLISH', english],
  ['MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE', simplifiedChinese],
  ['MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE', traditionalChinese],
  ['MNEMONIC_LANGUAGE_CZECH', czech],
  ['MNEMONIC_LANGUAGE_FRENCH', french],
  ['MNEMONIC_LANGUAGE_ITALIAN', italian],
  ['MNEMONIC_LANGUAGE_JAPANESE', japanese],
  ['MNEMONIC_LANGUAGE_KOREAN', korean],
  ['MNEMONIC_LANGUAGE_SPANISH', spanish],
];

/** What is exported. */
export type ExportSubject =
  | { kind: 'wallet'; walletId: string; language?: MnemonicLanguage | undefined }
  | { kind: 'private-key'; privateKeyId: string }
  | { kind: 'wallet-account'; address: string };

/**
 * Whom the bundle is sealed to: a one-time key (wiped after use, or held in the keychain while the export waits for
 * votes), or a stored encryption key by name.
 */
export type ExportTarget = { kind: 'ephemeral' } | { kind: 'encryption-key'; name: string };

/** How the decrypted bundle is to be read. */
export type PlaintextFormat = 'mnemonic' | PrivateKeyFormat;

export type RevealedSecret =
  | { kind: 'mnemonic'; mnemonic: string; passphrase?: string; language: MnemonicLanguage }
  | { kind: 'private-key'; format: PrivateKeyFormat; privateKey: string };

export type ExportResult =
  | { state: 'revealed'; secret: RevealedSecret; activity: Activity }
  /** Waiting for votes; `revealCompleted` opens the bundle once it completes, with the key it was sealed to. */
  | { state: 'consensus-needed' | 'pending' | 'rejected'; activity: Activity };

/** Who must have signed a bundle, and for which organization. */
export interface BundleExpectation {
  signerPublicKey: string;
  organizationId: string;
}

export interface ExporterOptions {
  client: ApiClient;
  keychain: Pick<Keychain, 'withEncryptionPrivateKey' | 'listEncryptionKeys' | 'holdOneTimeKey' | 'withOneTimeKey'>;
  /** The profile's pinned enclave signer key (uncompressed P-256 hex). */
  enclaveSignerPublicKey: string;
}

export class Exporter {
  private readonly client: ApiClient;
  private readonly keychain: ExporterOptions['keychain'];
  private readonly signerPublicKey: string;
  /**
   * The public halves of the one-time keys made for exports being submitted now: the keychain holds such a key only
   * once the service answers, and the confirmation before the stamp must still name it as this desktop's.
   */
  readonly #sealingToOneTimeKeys = new Set<string>();

  constructor({ client, keychain, enclaveSignerPublicKey }: ExporterOptions) {
    this.client = client;
    this.keychain = keychain;
    this.signerPublicKey = enclaveSignerPublicKey;
  }

  /** Exports, verifies and decrypts. A wallet reads as its mnemonic; keys as `keyFormat` (default hexadecimal). */
  async reveal(subject: ExportSubject, target: ExportTarget, keyFormat: PrivateKeyFormat = 'hexadecimal'): Promise<ExportResult> {
    const format: PlaintextFormat = subject.kind === 'wallet' ? 'mnemonic' : keyFormat;
    if (target.kind === 'encryption-key') {
      const publicKey = await this.encryptionPublicKey(target.name);
      const outcome = await this.exportTo(subject, publicKey);
      if (outcome.state !== 'completed') return { state: outcome.state, activity: outcome.activity };
      const secret = await this.keychain.withEncryptionPrivateKey(target.name, (privateKey) =>
        openExportBundle(outcome.result.exportBundle, privateKey, this.expectation(), format),
      );
      return { state: 'revealed', secret, activity: outcome.activity };
    }
    const privateKey = p256.utils.randomSecretKey();
    const publicKey = bytesToHex(p256.getPublicKey(privateKey, false));
    this.#sealingToOneTimeKeys.add(publicKey);
    try {
      const outcome = await this.exportTo(subject, publicKey);
      if (outcome.state === 'rejected') return { state: outcome.state, activity: outcome.activity };
      if (outcome.state !== 'completed') {
        // Waiting for votes: the keychain keeps the key until the export is opened or can no longer complete.
        await this.keychain.holdOneTimeKey(outcome.activity.id, privateKey.slice());
        return { state: outcome.state, activity: outcome.activity };
      }
      const secret = await openExportBundle(outcome.result.exportBundle, privateKey, this.expectation(), format);
      return { state: 'revealed', secret, activity: outcome.activity };
    } finally {
      this.#sealingToOneTimeKeys.delete(publicKey);
      zeroize(privateKey);
    }
  }

  /** Whether `publicKey` (uncompressed hex) is the one-time key of an export this exporter is submitting now. */
  isSealingToOneTimeKey(publicKey: string): boolean {
    return this.#sealingToOneTimeKeys.has(publicKey.toLowerCase());
  }

  /** Submits the export to `targetPublicKey` (130 hex) and returns the bundle text untouched, e.g. to write to a file. */
  async exportTo(subject: ExportSubject, targetPublicKey: string): Promise<ActivityOutcome<{ exportBundle: string }>> {
    switch (subject.kind) {
      case 'wallet':
        return this.client.submit('export_wallet', {
          walletId: subject.walletId,
          targetPublicKey,
          ...(subject.language === undefined ? {} : { language: subject.language }),
        });
      case 'private-key':
        return this.client.submit('export_private_key', { privateKeyId: subject.privateKeyId, targetPublicKey });
      case 'wallet-account':
        return this.client.submit('export_wallet_account', { address: subject.address, targetPublicKey });
    }
  }

  /**
   * Opens the bundle of an export that completed after consensus, with the stored key it was sealed to, or with the
   * one-time key held for it (`ephemeral`).
   */
  async revealCompleted(activityId: string, target: ExportTarget, keyFormat: PrivateKeyFormat = 'hexadecimal'): Promise<RevealedSecret> {
    const { activity } = await this.client.query('get_activity', { activityId });
    if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') {
      throw new QkError(
        'FAILED_PRECONDITION',
        `the export is ${activityStatusInWords(activity.status).toLowerCase()}, not approved yet; open it once it is`,
        { activityId },
      );
    }
    const member = Object.values(activity.result)[0] as { exportBundle?: unknown } | undefined;
    if (typeof member?.exportBundle !== 'string') {
      throw new QkError('REQUEST_INVALID', `the activity is not an export but ${activityTypeInWords(activity.type).toLowerCase()} (${activityId})`, {
        activityId,
      });
    }
    const format: PlaintextFormat = activity.type === 'ACTIVITY_TYPE_EXPORT_WALLET' ? 'mnemonic' : keyFormat;
    const bundle = member.exportBundle;
    const open = (privateKey: Uint8Array) => openExportBundle(bundle, privateKey, this.expectation(), format);
    if (target.kind === 'encryption-key') return this.keychain.withEncryptionPrivateKey(target.name, open);
    return this.keychain.withOneTimeKey(activityId, open).catch((error: unknown) => {
      if (error instanceof QkError && error.code === 'KEY_NOT_FOUND') {
        throw new QkError(
          'KEY_NOT_FOUND',
          `this desktop no longer holds the one-time key export ${activityId} is sealed to (it was opened already, or the export ended first); export again`,
          { activityId },
        );
      }
      throw error;
    });
  }

  private expectation(): BundleExpectation {
    return { signerPublicKey: this.signerPublicKey, organizationId: this.client.organizationId };
  }

  private async encryptionPublicKey(name: string): Promise<string> {
    const key = (await this.keychain.listEncryptionKeys()).find((candidate) => candidate.name === name);
    if (key === undefined) {
      throw new QkError('KEY_NOT_FOUND', `no encryption key named ${JSON.stringify(name)}; list the encryption keys to see their names`, { name });
    }
    return key.publicKey;
  }
}

/** Where the target private key for an offline decryption comes from. */
export type DecryptionKey = { kind: 'encryption-key'; name: string } | { kind: 'file'; path: string };

/**
 * Offline decryption of an export bundle (text), with no network: verifies the signer and organization, opens it
 * with a stored encryption key or a key file (hex P-256 scalar, optional `:p256` suffix), and decodes it.
 */
export async function decryptBundleOffline(params: {
  bundle: string;
  key: DecryptionKey;
  keychain: Pick<Keychain, 'withEncryptionPrivateKey'>;
  expected: BundleExpectation;
  format: PlaintextFormat;
}): Promise<RevealedSecret> {
  const { bundle, key, keychain, expected, format } = params;
  if (key.kind === 'encryption-key') {
    return keychain.withEncryptionPrivateKey(key.name, (privateKey) => openExportBundle(bundle, privateKey, expected, format));
  }
  const privateKey = await readKeyFile(key.path);
  try {
    return await openExportBundle(bundle, privateKey, expected, format);
  } finally {
    zeroize(privateKey);
  }
}

/** Verifies, decrypts and decodes; the plaintext bytes are wiped before returning. */
export async function openExportBundle(
  bundle: string,
  targetPrivateKey: Uint8Array,
  expected: BundleExpectation,
  format: PlaintextFormat,
): Promise<RevealedSecret> {
  const signed = verifyExportBundle(bundle.trim(), expected);
  const plaintext = await hpkeOpen({
    encappedPublic: hexToBytes(signed.encappedPublic, 'encappedPublic'),
    ciphertext: hexToBytes(signed.ciphertext, 'ciphertext'),
    recipientPrivateKey: targetPrivateKey,
  });
  try {
    return decodePlaintext(plaintext, format);
  } finally {
    zeroize(plaintext);
  }
}

function decodePlaintext(plaintext: Uint8Array, format: PlaintextFormat): RevealedSecret {
  if (format !== 'mnemonic') return { kind: 'private-key', format, privateKey: formatPrivateKey(plaintext, format) };
  const notMnemonic = new QkError(
    'MNEMONIC_INVALID',
    'the decrypted bundle is not a BIP-39 mnemonic in any supported language; if it holds a private key, choose a key format instead',
  );
  let decoded: { mnemonic: string; passphrase?: string };
  try {
    decoded = decodeWalletPlaintext(plaintext);
  } catch {
    throw notMnemonic; // not even UTF-8: raw key bytes
  }
  const { mnemonic, passphrase } = decoded;
  const language = WORDLISTS.find(([, wordlist]) => validateMnemonic(mnemonic, wordlist))?.[0];
  if (language === undefined) throw notMnemonic;
  return passphrase === undefined ? { kind: 'mnemonic', mnemonic, language } : { kind: 'mnemonic', mnemonic, passphrase, language };
}

/** A tkcli-style key file: the 32-byte P-256 scalar as hex, optionally followed by `:p256`. */
async function readKeyFile(path: string): Promise<Uint8Array> {
  const text = (await readBoundedText(path, FILE_LIMITS.keyFile)).trim();
  const [hex = '', curve, ...rest] = text.split(':');
  if (rest.length > 0 || (curve !== undefined && curve !== 'p256')) {
    throw new QkError('KEY_INVALID', `${path} must hold a P-256 private key as hex, optionally followed by ":p256"`, { path });
  }
  try {
    return privateKeyBytes(hex.replace(/^0x/i, ''), `P-256 private key in ${path}`);
  } catch (error) {
    throw new QkError('KEY_INVALID', (error as Error).message, { path });
  }
}

/** The journal's record of an export bundle opened offline (the app's Decrypt screen, the CLI's decrypt). */
export function decryptedRecord({
  kind,
  organizationId,
  encryptionKey,
  signer,
}: {
  kind: string;
  organizationId: string;
  encryptionKey: string;
  signer: string;
}) {
  return localRecord('export.decrypted', {
    title: 'Export bundle decrypted',
    summary: `a ${kind} of organization ${organizationId}, opened offline with ${encryptionKey}`,
    facts: { Organization: organizationId, Shown: kind, 'Opened with': encryptionKey, 'Bundle signer': signer },
    verdict: 'decrypted',
  });
}
