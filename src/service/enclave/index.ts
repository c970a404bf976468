/**
 * The enclave: the only code of the service that sees mnemonics, seeds and private keys in the clear.
 * Families hand it sealed blobs from the database and get back sealed blobs, public keys, addresses and
 * signed bundles. It holds the bundle-signing key (created at bootstrap), and the at-rest sealing key, the
 * app-proof key and the attestation keys, all derived from the service secret, a file beside the database that the
 * database itself never contains.
 */
import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { signAppProof, type AppProof } from '../../shared/crypto/app-proof';
import type { BootProof as BootProofResponse } from '../../shared/crypto/attestation';
import {
  buildExportBundle,
  buildImportBundle,
  buildSecretImportTarget,
  decodeWalletImportPlaintext,
  openImportCiphertext,
} from '../../shared/crypto/bundles';
import { sealCredentialBundle } from '../../shared/crypto/credential-bundle';
import { ecdsaSign, ecdsaSignDigest } from '../../shared/crypto/ecdsa';
import { base64Encode, bytesToHex, hexToBytes, utf8Decode, utf8Encode } from '../../shared/crypto/encoding';
import { generateEncryptionKeyPair, privateKeyBytes, zeroize } from '../../shared/crypto/keys';
import { QkError } from '../../shared/errors';
import { addressFor, assertFormatForCurve, type AddressFormat } from './addresses';
import { sandboxAttestation } from './attestation';
import { createKeyDeriver, deriveKey, publicKeyFromPrivate, type Curve } from './derivation';
import { convertMnemonic, generateMnemonic, mnemonicToSeed, parseMnemonic, type MnemonicLanguage } from './mnemonic';
import { deriveSealingKey, open, seal } from './sealed';
import { SeedCache } from './seed-cache';
import type { RawSignature, SigningKey } from './signing';
import type { SigningJob, SigningJobResults } from './signing-jobs';
import { defaultSigningWorkers, SigningPool } from './signing-pool';

/** The service secret: 32 random bytes, hex, in a file readable only by the service's user. */
const SERVICE_SECRET_LENGTH = 32;
const APP_PROOF_KEY_INFO = utf8Encode('quorumkey/service/app-proof-key-v1');
/** QOS derives its ephemeral encryption and signing keys from one seed with these salts (docs/formats.md#app-proofs). */
const QOS_ENCRYPT_SALT = utf8Encode('qos_p256_encrypt');
const QOS_SIGN_SALT = utf8Encode('qos_p256_sign');
/** Seeds kept for wallet-account signatures (see seed-cache.ts for why and how they are bounded). */
const SIGNING_SEED_LIMITS = { maxSeeds: 32, lifetimeMs: 60_000 };
/** Stored private keys kept opened (and checked) after they signed, as wallet seeds are. */
const OPENED_PRIVATE_KEY_LIMITS = { maxSeeds: 256, lifetimeMs: 60_000 };
/** Wallet-account keys kept derived (and checked) after they signed, as stored private keys are. */
const DERIVED_ACCOUNT_KEY_LIMITS = { maxSeeds: 256, lifetimeMs: 60_000 };

export interface WalletSecret {
  mnemonic: string;
  passphrase?: string;
}

export interface AccountSpec {
  curve: Curve;
  path: string;
  addressFormat: AddressFormat;
}

export interface DerivedAccount extends AccountSpec {
  /** Compressed SEC1 (secp256k1, P-256) or raw 32-byte Ed25519 public key, hex. */
  publicKey: string;
  address: string;
}

export interface SealedKey {
  sealedSecret: Uint8Array;
  /** Compressed SEC1 (secp256k1, P-256) or raw Ed25519 public key, hex. */
  publicKey: string;
  addresses: { format: AddressFormat; address: string }[];
}

export interface ImportTarget {
  publicKey: string;
  sealedSecret: Uint8Array;
  importBundle: string;
}

/** The enclave's boot proof: the API's v1BootProof, with its creation time in milliseconds. */
export type BootProof = Omit<BootProofResponse, 'createdAt' | 'qosManifestVersion'> & { createdAtMs: number };

/** Where a signing key lives: a wallet account (derived from its wallet's seed) or a stored private key. */
export type SigningKeySource =
  | { kind: 'walletAccount'; walletId: string; sealedSecret: Uint8Array; curve: Curve; path: string; publicKey: string }
  | { kind: 'privateKey'; privateKeyId: string; sealedSecret: Uint8Array; curve: Curve; publicKey: string };

/**
 * Raw payloads' signatures made before their activity's transaction began (ActivityHandler.signAhead), so that the
 * write lock is not held while a worker signs. Signatures are deterministic (RFC 6979, Ed25519), so these are the
 * very signatures the transaction would make, as long as it finds the same stored key and the same signables.
 */
export class SignedAhead {
  constructor(
    private readonly source: SigningKeySource,
    private readonly signables: readonly Uint8Array[],
    private readonly signatures: readonly RawSignature[],
  ) {}

  /** These signatures, if they were made by the key `source` reads (same row, sealed bytes, curve, path, public key) over `signables`. */
  signaturesFor(source: SigningKeySource, signables: readonly Uint8Array[]): RawSignature[] | undefined {
    const made = this.source;
    const sameKey =
      made.kind === source.kind &&
      made.curve === source.curve &&
      made.publicKey === source.publicKey &&
      (made.kind === 'privateKey'
        ? made.privateKeyId === (source as typeof made).privateKeyId
        : made.walletId === (source as typeof made).walletId && made.path === (source as typeof made).path) &&
      Buffer.compare(made.sealedSecret, source.sealedSecret) === 0;
    const sameSignables =
      this.signables.length === signables.length && this.signables.every((signable, index) => Buffer.compare(signable, signables[index]!) === 0);
    return sameKey && sameSignables ? this.signatures.map((signature) => ({ ...signature })) : undefined;
  }
}

/** What a sealed blob is bound to: its table and row id, so a blob moved to another row fails to open. */
const sealedRow = {
  wallet: (id: string) => `wallets/${id}`,
  privateKey: (id: string) => `private_keys/${id}`,
  importTarget: (id: string) => `import_targets/${id}`,
  secret: (id: string) => `secrets/${id}`,
};

/**
 * Reads the service secret at `file`, creating it (mode 0600) when absent. Refuses to create a new one when
 * the database already holds sealed data: a new secret could never open it.
 */
export function loadServiceSecret(file: string, databaseHoldsSealedData: boolean): { secret: Uint8Array; createdAtMs: number } {
  if (!existsSync(file)) {
    if (databaseHoldsSealedData) {
      throw new QkError(
        'FAILED_PRECONDITION',
        `the service secret ${file} is missing but the database holds sealed wallets or keys; restore the secret file next to the database`,
        { file },
      );
    }
    writeFileSync(file, `${bytesToHex(randomBytes(SERVICE_SECRET_LENGTH))}\n`, { mode: 0o600, flag: 'wx' });
  }
  const secret = hexToBytes(readFileSync(file, 'utf8').trim(), `service secret ${file}`);
  if (secret.length !== SERVICE_SECRET_LENGTH) {
    throw new QkError('KEY_INVALID', `service secret ${file} must hold ${SERVICE_SECRET_LENGTH} bytes (hex); it holds ${secret.length}`);
  }
  return { secret, createdAtMs: Math.floor(statSync(file).mtimeMs) };
}

function encodeWalletSecret(secret: WalletSecret): Uint8Array {
  return utf8Encode(JSON.stringify(secret.passphrase ? { mnemonic: secret.mnemonic, passphrase: secret.passphrase } : { mnemonic: secret.mnemonic }));
}

function decodeWalletSecret(bytes: Uint8Array): WalletSecret {
  return JSON.parse(utf8Decode(bytes, 'sealed wallet')) as WalletSecret;
}

/** The refusal to sign with a stored key that does not match the public key stored beside it. */
function mismatchedKey(source: SigningKeySource): QkError {
  return new QkError(
    'INTERNAL',
    `the stored key behind ${source.kind === 'privateKey' ? `private key ${source.privateKeyId}` : `wallet ${source.walletId} at ${source.path}`} does not match its public key`,
  );
}

/** Where a wallet account's derived key is kept: wallet ids are UUIDs and paths have no spaces, so a space separates. */
function accountKeyId(walletId: string, curve: string, path: string): string {
  return `${walletId} ${curve} ${path}`;
}

export class Enclave {
  /** P-256 key the enclave signs bundles with: uncompressed public key (130 hex), private scalar hex. */
  readonly signingKey: { readonly publicKey: string; readonly privateKey: string };
  /** The 130-byte QOS-style ephemeral key (encryption pub ‖ signing pub) app proofs carry, hex. */
  readonly appProofPublicKey: string;
  /** SHA-256 of the DER of the root certificate that vouches for the boot proof (attestation.ts), lowercase hex. */
  readonly attestationRootFingerprint: string;
  private readonly sealingKey: KeyObject;
  private readonly appProofSigningKey: Uint8Array;
  private readonly attestedBoot: BootProof;
  private readonly signingSeeds = new SeedCache(SIGNING_SEED_LIMITS);
  private readonly openedPrivateKeys = new SeedCache(OPENED_PRIVATE_KEY_LIMITS);
  private readonly derivedAccountKeys = new SeedCache(DERIVED_ACCOUNT_KEY_LIMITS);
  private readonly signingPool: SigningPool;

  constructor(options: {
    signingKey: { publicKey: string; privateKey: string };
    serviceSecret: Uint8Array;
    secretCreatedAtMs: number;
    /** Worker threads that sign (signing-pool.ts); one per core by default. */
    signingWorkers?: number;
  }) {
    this.signingKey = options.signingKey;
    this.signingPool = new SigningPool(options.signingWorkers ?? defaultSigningWorkers());
    this.sealingKey = deriveSealingKey(options.serviceSecret);
    const seed = hkdf(sha256, options.serviceSecret, undefined, APP_PROOF_KEY_INFO, 32);
    const encryptionKey = hkdf(sha512, seed, QOS_ENCRYPT_SALT, undefined, 32);
    this.appProofSigningKey = hkdf(sha512, seed, QOS_SIGN_SALT, undefined, 32);
    this.appProofPublicKey = bytesToHex(p256.getPublicKey(encryptionKey, false)) + bytesToHex(p256.getPublicKey(this.appProofSigningKey, false));
    zeroize(seed);
    zeroize(encryptionKey);
    const manifest = utf8Encode(
      JSON.stringify({
        namespace: 'quorumkey-local-service',
        enclaveSignerPublicKey: this.signingKey.publicKey,
        ephemeralPublicKey: this.appProofPublicKey,
      }),
    );
    const attestation = sandboxAttestation({
      serviceSecret: options.serviceSecret,
      issuedAtMs: options.secretCreatedAtMs,
      manifest,
      ephemeralPublicKey: hexToBytes(this.appProofPublicKey, 'app-proof public key'),
    });
    this.attestationRootFingerprint = attestation.rootFingerprint;
    this.attestedBoot = {
      ephemeralPublicKeyHex: this.appProofPublicKey,
      awsAttestationDocB64: base64Encode(attestation.document),
      qosManifestB64: base64Encode(manifest),
      qosManifestEnvelopeB64: '',
      deploymentLabel: 'local',
      enclaveApp: 'signer',
      owner: 'quorumkey-local-service',
      createdAtMs: options.secretCreatedAtMs,
    };
  }

  private signBundle = (data: Uint8Array): Uint8Array => {
    const key = privateKeyBytes(this.signingKey.privateKey, 'enclave signing key');
    try {
      return ecdsaSign('p256', data, key, 'der');
    } finally {
      zeroize(key);
    }
  };

  private async exportBundle(plaintext: Uint8Array, targetPublicKey: string, organizationId: string): Promise<string> {
    try {
      return await buildExportBundle({
        plaintext,
        targetPublicKey,
        organizationId,
        sign: this.signBundle,
        enclaveSignerPublicKey: this.signingKey.publicKey,
      });
    } finally {
      zeroize(plaintext);
    }
  }

  private openWallet(walletId: string, sealedSecret: Uint8Array): WalletSecret {
    const bytes = open(this.sealingKey, sealedSecret, sealedRow.wallet(walletId));
    try {
      return decodeWalletSecret(bytes);
    } finally {
      zeroize(bytes);
    }
  }

  private static async deriveAccounts(secret: WalletSecret, accounts: readonly AccountSpec[]): Promise<DerivedAccount[]> {
    for (const account of accounts) assertFormatForCurve(account.curve, account.addressFormat);
    if (accounts.length === 0) return [];
    const seed = await mnemonicToSeed(secret.mnemonic, secret.passphrase ?? '');
    const derivers = new Map<Curve, ReturnType<typeof createKeyDeriver>>();
    try {
      return accounts.map((account) => {
        let deriver = derivers.get(account.curve);
        if (deriver === undefined) {
          deriver = createKeyDeriver({ seed, curve: account.curve });
          derivers.set(account.curve, deriver);
        }
        const key = deriver.derive(account.path);
        zeroize(key.privateKey);
        return {
          ...account,
          publicKey: bytesToHex(key.publicKey),
          address: addressFor({ curve: account.curve, publicKey: key.publicKey, format: account.addressFormat }),
        };
      });
    } finally {
      for (const deriver of derivers.values()) deriver.wipe();
      zeroize(seed);
    }
  }

  private sealWallet(walletId: string, secret: WalletSecret): Uint8Array {
    const bytes = encodeWalletSecret(secret);
    try {
      return seal(this.sealingKey, bytes, sealedRow.wallet(walletId));
    } finally {
      zeroize(bytes);
    }
  }

  /** A new wallet: a fresh English mnemonic of `mnemonicLength` words, sealed, and its first accounts. */
  async createWallet(params: { walletId: string; mnemonicLength: number; accounts: readonly AccountSpec[] }) {
    const secret = { mnemonic: generateMnemonic(params.mnemonicLength) };
    const accounts = await Enclave.deriveAccounts(secret, params.accounts);
    return { sealedSecret: this.sealWallet(params.walletId, secret), accounts };
  }

  /** More accounts of a stored wallet. */
  async deriveWalletAccounts(params: { walletId: string; sealedSecret: Uint8Array; accounts: readonly AccountSpec[] }) {
    return Enclave.deriveAccounts(this.openWallet(params.walletId, params.sealedSecret), params.accounts);
  }

  private sealKey(privateKeyId: string, curve: Curve, secret: Uint8Array, addressFormats: readonly AddressFormat[]): SealedKey {
    for (const format of addressFormats) assertFormatForCurve(curve, format);
    const publicKey = publicKeyFromPrivate(curve, secret);
    return {
      sealedSecret: seal(this.sealingKey, secret, sealedRow.privateKey(privateKeyId)),
      publicKey: bytesToHex(publicKey),
      addresses: addressFormats.map((format) => ({ format, address: addressFor({ curve, publicKey, format }) })),
    };
  }

  /** A fresh random private key on `curve`, sealed, with its addresses. */
  createPrivateKey(params: { privateKeyId: string; curve: Curve; addressFormats: readonly AddressFormat[] }): SealedKey {
    const secret = params.curve === 'CURVE_ED25519' ? randomBytes(32) : (params.curve === 'CURVE_P256' ? p256 : secp256k1).utils.randomSecretKey();
    try {
      return this.sealKey(params.privateKeyId, params.curve, secret, params.addressFormats);
    } finally {
      zeroize(secret);
    }
  }

  /** The mnemonic (in `language`, plus "\n" + passphrase if the wallet has one) sealed to the client's target key. */
  async exportWallet(params: {
    walletId: string;
    sealedSecret: Uint8Array;
    language: MnemonicLanguage;
    targetPublicKey: string;
    organizationId: string;
  }): Promise<string> {
    const secret = this.openWallet(params.walletId, params.sealedSecret);
    const words = convertMnemonic(secret.mnemonic, params.language);
    const text = secret.passphrase ? `${words}\n${secret.passphrase}` : words;
    return this.exportBundle(utf8Encode(text), params.targetPublicKey, params.organizationId);
  }

  /** A stored private key's 32 raw bytes sealed to the client's target key. */
  async exportPrivateKey(params: { privateKeyId: string; sealedSecret: Uint8Array; targetPublicKey: string; organizationId: string }) {
    const secret = open(this.sealingKey, params.sealedSecret, sealedRow.privateKey(params.privateKeyId));
    return this.exportBundle(secret, params.targetPublicKey, params.organizationId);
  }

  /** One wallet account's private key (derived at `path` on `curve`) sealed to the client's target key. */
  async exportWalletAccount(params: {
    walletId: string;
    sealedSecret: Uint8Array;
    curve: Curve;
    path: string;
    targetPublicKey: string;
    organizationId: string;
  }): Promise<string> {
    const secret = this.openWallet(params.walletId, params.sealedSecret);
    const seed = await mnemonicToSeed(secret.mnemonic, secret.passphrase ?? '');
    const deriver = createKeyDeriver({ seed, curve: params.curve });
    try {
      const key = deriver.derive(params.path);
      return await this.exportBundle(key.privateKey, params.targetPublicKey, params.organizationId);
    } finally {
      deriver.wipe();
      zeroize(seed);
    }
  }

  /**
   * A fresh P-256 API key handed to a client (read-write sessions, email logins): its public key compressed, as
   * stamps carry it, and its private key sealed to the client's target key as a credential bundle. The service keeps
   * no copy of the private key.
   */
  async issueApiKeyCredential(targetPublicKey: string): Promise<{ publicKey: string; credentialBundle: string }> {
    const secret = p256.utils.randomSecretKey();
    try {
      const credentialBundle = await sealCredentialBundle(secret, targetPublicKey);
      return { publicKey: bytesToHex(p256.getPublicKey(secret, true)), credentialBundle };
    } finally {
      zeroize(secret);
    }
  }

  /** A fresh one-shot P-256 HPKE key, its private half sealed, announced in a signed import bundle. */
  async initImportTarget(params: { targetId: string; organizationId: string; userId: string }): Promise<ImportTarget> {
    const pair = generateEncryptionKeyPair();
    const privateKey = hexToBytes(pair.privateKey, 'import target private key');
    try {
      const importBundle = await buildImportBundle({
        targetPublicKey: pair.publicKey,
        organizationId: params.organizationId,
        userId: params.userId,
        sign: this.signBundle,
        enclaveSignerPublicKey: this.signingKey.publicKey,
      });
      return { publicKey: pair.publicKey, sealedSecret: seal(this.sealingKey, privateKey, sealedRow.importTarget(params.targetId)), importBundle };
    } finally {
      zeroize(privateKey);
    }
  }

  /**
   * One of init_import_secrets' targets: a fresh one-shot P-256 HPKE key, its private half sealed, announced in a
   * message signed for the organization (no user: `encryptSecretToBundle` checks the organization only).
   */
  async initSecretImportTarget(params: {
    targetId: string;
    organizationId: string;
  }): Promise<{ publicKey: string; sealedSecret: Uint8Array; targetMessage: string }> {
    const pair = generateEncryptionKeyPair();
    const privateKey = hexToBytes(pair.privateKey, 'secret import target private key');
    try {
      const targetMessage = await buildSecretImportTarget({
        targetPublicKey: pair.publicKey,
        organizationId: params.organizationId,
        sign: this.signBundle,
        enclaveSignerPublicKey: this.signingKey.publicKey,
      });
      return { publicKey: pair.publicKey, sealedSecret: seal(this.sealingKey, privateKey, sealedRow.importTarget(params.targetId)), targetMessage };
    } finally {
      zeroize(privateKey);
    }
  }

  /** Opens a client's `secretPayload` with its import target and seals the secret for its new row. */
  async importSecret(params: { target: { id: string; publicKey: string; sealedSecret: Uint8Array }; secretPayload: string; secretId: string }) {
    const secret = await this.openImport(params.target, params.secretPayload);
    try {
      if (secret.length === 0) throw new QkError('KEY_INVALID', 'the imported secret is empty; a secret holds at least one byte');
      return seal(this.sealingKey, secret, sealedRow.secret(params.secretId));
    } finally {
      zeroize(secret);
    }
  }

  /** A stored secret sealed to the client's target key, in an export bundle (`decryptSecretBundle` opens it). */
  async exportSecret(params: { secretId: string; sealedSecret: Uint8Array; targetPublicKey: string; organizationId: string }): Promise<string> {
    const secret = open(this.sealingKey, params.sealedSecret, sealedRow.secret(params.secretId));
    return this.exportBundle(secret, params.targetPublicKey, params.organizationId);
  }

  /** HPKE-opens a client's `encryptedBundle` with an import target; DECRYPTION_FAILED if it was sealed to another key. */
  private async openImport(target: { id: string; publicKey: string; sealedSecret: Uint8Array }, encryptedBundle: string) {
    const privateKey = open(this.sealingKey, target.sealedSecret, sealedRow.importTarget(target.id));
    try {
      return await openImportCiphertext({ encryptedBundle, targetPrivateKey: bytesToHex(privateKey), targetPublicKey: target.publicKey });
    } finally {
      zeroize(privateKey);
    }
  }

  /** Tells whether `encryptedBundle` was sealed to `target` (without keeping the plaintext). */
  async opensWith(target: { id: string; publicKey: string; sealedSecret: Uint8Array }, encryptedBundle: string): Promise<boolean> {
    try {
      zeroize(await this.openImport(target, encryptedBundle));
      return true;
    } catch (error) {
      if (error instanceof QkError && error.code === 'DECRYPTION_FAILED') return false;
      throw error;
    }
  }

  /**
   * Opens an imported mnemonic (optionally "\n--PASS--\n" + passphrase), checks it (word list, checksum) and
   * returns it sealed for the new wallet with the requested accounts.
   */
  async importWallet(params: {
    target: { id: string; publicKey: string; sealedSecret: Uint8Array };
    encryptedBundle: string;
    walletId: string;
    accounts: readonly AccountSpec[];
  }) {
    const plaintext = await this.openImport(params.target, params.encryptedBundle);
    let secret: WalletSecret;
    try {
      const decoded = decodeWalletImportPlaintext(plaintext);
      // Canonical spelling (NFKD, single separators) so that the seed does not depend on the client's whitespace.
      const parsed = parseMnemonic(decoded.mnemonic);
      zeroize(parsed.entropy);
      secret = decoded.passphrase ? { mnemonic: parsed.mnemonic, passphrase: decoded.passphrase } : { mnemonic: parsed.mnemonic };
    } finally {
      zeroize(plaintext);
    }
    const accounts = await Enclave.deriveAccounts(secret, params.accounts);
    return { sealedSecret: this.sealWallet(params.walletId, secret), accounts };
  }

  /** Opens an imported raw 32-byte private key and seals it for the new key row. */
  async importPrivateKey(params: {
    target: { id: string; publicKey: string; sealedSecret: Uint8Array };
    encryptedBundle: string;
    privateKeyId: string;
    curve: Curve;
    addressFormats: readonly AddressFormat[];
  }): Promise<SealedKey> {
    const secret = await this.openImport(params.target, params.encryptedBundle);
    try {
      if (secret.length !== 32) {
        throw new QkError('KEY_INVALID', `imported private key must be 32 raw bytes; the bundle holds ${secret.length}`, {
          length: secret.length,
        });
      }
      return this.sealKey(params.privateKeyId, params.curve, secret, params.addressFormats);
    } finally {
      zeroize(secret);
    }
  }

  /**
   * Signs with the key at `source` on a signing worker (signing-jobs.ts), off the event loop. The opened key must
   * match the public key stored with it, so a wrong row can never sign; it is zeroed here when the job is done, and
   * the worker zeroes its own copy.
   */
  async sign<K extends SigningJob['kind']>(source: SigningKeySource, job: Extract<SigningJob, { kind: K }>): Promise<SigningJobResults[K]> {
    return this.withSigningKey(source, (key) => this.signingPool.run(key, job));
  }

  /**
   * Raw payloads' signables (prepareRawPayload) signed by the key at `source`, spread evenly over the workers; or the
   * signatures `ahead` holds, when it was made by that key over those signables.
   */
  async signRawPayloads(source: SigningKeySource, signables: readonly Uint8Array[], ahead?: SignedAhead): Promise<RawSignature[]> {
    const signedAhead = ahead?.signaturesFor(source, signables);
    if (signedAhead !== undefined) return signedAhead;
    const share = Math.ceil(signables.length / this.signingPool.size);
    const shares = Array.from({ length: Math.ceil(signables.length / share) }, (_, index) => signables.slice(index * share, (index + 1) * share));
    return this.withSigningKey(source, async (key) => {
      const signed = await Promise.all(shares.map((part) => this.signingPool.run(key, { kind: 'raw', signables: part })));
      return signed.flat();
    });
  }

  /** signRawPayloads, kept for the transaction of the activity it was made ahead of. */
  async signRawPayloadsAhead(source: SigningKeySource, signables: readonly Uint8Array[]): Promise<SignedAhead> {
    return new SignedAhead(source, signables, await this.signRawPayloads(source, signables));
  }

  /**
   * `use` must copy the key's secret before it first awaits (the signing pool does): the key is kept for later
   * signatures and may be zeroed once `use` returns.
   *
   * A stored private key is opened and checked against its public key once, and a wallet account's key derived from
   * its wallet's seed and checked once; either is then kept for what it signs in the next minute instead of opened or
   * derived on the event loop per signature. The kept key is bound to the sealed bytes, curve (and path) and public key
   * it was checked with: a row that differs in any opens or derives and is checked again, and a deleted key, account
   * or wallet is forgotten (forgetPrivateKey, forgetWalletAccount, forgetWallet).
   */
  private async withSigningKey<T>(source: SigningKeySource, use: (key: SigningKey) => Promise<T>): Promise<T> {
    const publicKey = source.publicKey.toLowerCase();
    const sealedHash = createHash('sha256').update(source.sealedSecret).digest('hex');
    const checkedAgainst = `${source.curve}:${publicKey}:${sealedHash}`;
    const useKept = (secret: Uint8Array) => use({ curve: source.curve, secret, publicKey: hexToBytes(publicKey, 'stored public key') });
    if (source.kind === 'privateKey') {
      return await this.openedPrivateKeys.use(source.privateKeyId, checkedAgainst, async () => this.openPrivateKey(source, publicKey), useKept);
    }
    return await this.derivedAccountKeys.use(
      accountKeyId(source.walletId, source.curve, source.path),
      checkedAgainst,
      () => this.deriveAccountKey(source, sealedHash, publicKey),
      useKept,
    );
  }

  /** A stored private key opened, if its public key is `publicKey` (lowercase hex). The caller owns the bytes. */
  private openPrivateKey(source: Extract<SigningKeySource, { kind: 'privateKey' }>, publicKey: string): Uint8Array {
    const secret = open(this.sealingKey, source.sealedSecret, sealedRow.privateKey(source.privateKeyId));
    try {
      if (bytesToHex(publicKeyFromPrivate(source.curve, secret)) !== publicKey) throw mismatchedKey(source);
      return secret;
    } catch (error) {
      zeroize(secret);
      throw error;
    }
  }

  /**
   * A wallet account's key derived from its wallet's seed (kept under the SHA-256 of the sealed wallet,
   * `sealedHash`), if its public key is `publicKey`. The caller owns the bytes.
   */
  private async deriveAccountKey(
    source: Extract<SigningKeySource, { kind: 'walletAccount' }>,
    sealedHash: string,
    publicKey: string,
  ): Promise<Uint8Array> {
    const { walletId, sealedSecret } = source;
    const key = await this.signingSeeds.use(
      walletId,
      sealedHash,
      () => {
        const wallet = this.openWallet(walletId, sealedSecret);
        return mnemonicToSeed(wallet.mnemonic, wallet.passphrase ?? '');
      },
      (seed) => deriveKey({ seed, curve: source.curve, path: source.path }),
    );
    if (bytesToHex(key.publicKey) !== publicKey) {
      zeroize(key.privateKey);
      throw mismatchedKey(source);
    }
    return key.privateKey;
  }

  /** Zeroes the seed and account keys kept for signing with wallet `walletId`; deleting a wallet calls it. */
  forgetWallet(walletId: string): void {
    this.signingSeeds.forget(walletId);
    this.derivedAccountKeys.forgetWhere((id) => id.startsWith(`${walletId} `));
  }

  /** Zeroes the key kept for signing with the account at `path` on `curve`; deleting a wallet account calls it. */
  forgetWalletAccount(walletId: string, curve: string, path: string): void {
    this.derivedAccountKeys.forget(accountKeyId(walletId, curve, path));
  }

  /** Zeroes the private key `privateKeyId` kept opened for signing; deleting a private key calls it. */
  forgetPrivateKey(privateKeyId: string): void {
    this.openedPrivateKeys.forget(privateKeyId);
  }

  /** Zeroes every seed, private key and account key kept for signing: the database's keys were replaced (a snapshot restored). */
  forgetSigningKeys(): void {
    this.signingSeeds.clear();
    this.openedPrivateKeys.clear();
    this.derivedAccountKeys.clear();
  }

  /** Zeroes the seeds and keys kept for signing and stops the signing workers; the service calls it when it stops. */
  async close(): Promise<void> {
    this.forgetSigningKeys();
    await this.signingPool.close();
  }

  /** Signs `payload` with the app-proof key (raw r‖s over SHA-256 of its JSON). */
  signAppProof(payload: object): Promise<AppProof> {
    return signAppProof(payload, {
      publicKey130Hex: this.appProofPublicKey,
      signRaw: (digest) => ecdsaSignDigest('p256', digest, this.appProofSigningKey, 'raw'),
    });
  }

  /**
   * The boot proof of the app-proof key, made once at construction. Its attestation document has Nitro's format but
   * the Sandbox's own root (attestation.ts): `@turnkey/crypto` `verify`, which pins AWS's root, rejects it, as it
   * should. The manifest names this service and its keys.
   */
  bootProof(): BootProof {
    return this.attestedBoot;
  }
}
