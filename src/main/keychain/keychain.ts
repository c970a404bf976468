import { randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { z } from 'zod';
import { bytesToHex } from '../../shared/crypto/encoding';
import {
  API_KEY_CURVES,
  apiPublicKeyFromPrivate,
  generateApiKeyPair,
  generateEncryptionKeyPair,
  isApiKeyCurve,
  p256PublicKeyFromPrivate,
  privateKeyBytes,
  zeroize,
  type ApiKeyCurve,
} from '../../shared/crypto/keys';
import type { StampSigner } from '../../shared/crypto/stamp';
import { QkError } from '../../shared/errors';
import { createNodeStampSigner } from '../../node/stamp-backend';
import { Profiles } from '../profiles/profiles';
import { JsonFile } from '../storage/json-file';
import { assertKeyName } from './key-names';
import { OsSecretStore, type SecretStore } from './secret-store';

/** `one-time`: the key an export waiting for votes is sealed to, held until it is opened or can no longer be. */
export type KeyKind = 'api' | 'encryption' | 'one-time';

/** What everyone may see about an API key. The private half never leaves the keychain except inside withApiKeySigner. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  curve: ApiKeyCurve;
  /** In the stamp's form: compressed SEC1 hex for P-256/secp256k1, raw 32-byte hex for Ed25519. */
  publicKey: string;
  createdAt: string;
  /** True when the index lists the key but the OS keychain no longer holds its private half. */
  missing: boolean;
  /** Names of the profiles that sign with this key. */
  usedByProfiles: string[];
}

/** A P-256 key that export bundles are sealed to. */
export interface EncryptionKeyInfo {
  id: string;
  name: string;
  /** Uncompressed P-256 point, 130 hex: the `targetPublicKey` of an export. */
  publicKey: string;
  createdAt: string;
  missing: boolean;
}

export interface KeychainOptions {
  /** Directory of the non-secret key index (`keys.json`) and of `profiles.json`. */
  dataDir: string;
  /** Service name under which secrets are filed in the OS keychain; distinct names never see each other's keys. */
  serviceName?: string;
  store?: SecretStore;
  /** Profiles that reference API keys by name; defaults to the profiles in `dataDir`. */
  profiles?: Profiles;
}

export const DEFAULT_KEYCHAIN_SERVICE = 'QuorumKey';

const keyRecordSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(['api', 'encryption', 'one-time']),
  curve: z.enum(API_KEY_CURVES as [ApiKeyCurve, ...ApiKeyCurve[]]),
  publicKey: z.string().regex(/^[0-9a-f]+$/),
  createdAt: z.iso.datetime(),
});
type KeyRecord = z.infer<typeof keyRecordSchema>;

const keyIndexSchema = z.object({ version: z.literal(1), keys: z.array(keyRecordSchema) });
type KeyIndex = z.infer<typeof keyIndexSchema>;

const EMPTY_INDEX: KeyIndex = { version: 1, keys: [] };

const KIND_LABEL: Record<KeyKind, string> = { api: 'API key', encryption: 'encryption key', 'one-time': 'one-time export key' };

/**
 * API keys and export-target encryption keys. Private keys live only in the OS keychain, filed under a stable id so a
 * rename touches only the index; the index (`<dataDir>/keys.json`) holds names, ids, curves and public keys.
 * Secrets are written before the index and removed before their index entry, so the index never claims a key that
 * was not stored; the reverse mismatch (a secret removed behind our back) is reported as `missing`.
 */
export class Keychain {
  private readonly index: JsonFile<KeyIndex>;
  private readonly store: SecretStore;
  private readonly profiles: Profiles;

  constructor({ dataDir, serviceName = DEFAULT_KEYCHAIN_SERVICE, store, profiles }: KeychainOptions) {
    this.index = new JsonFile(join(dataDir, 'keys.json'), keyIndexSchema);
    this.store = store ?? new OsSecretStore(serviceName);
    this.profiles = profiles ?? new Profiles({ dataDir });
  }

  // ---- API keys ----

  async generateApiKey({ name, curve = 'p256' }: { name: string; curve?: ApiKeyCurve | undefined }): Promise<ApiKeyInfo> {
    assertCurve(curve);
    const pair = generateApiKeyPair(curve);
    return this.addApiKey(name, curve, privateKeyBytes(pair.privateKey), pair.publicKey);
  }

  /**
   * Imports a hex private key (32-byte scalar, or for Ed25519 the seed or Go's 64-byte seed‖public form). A given
   * public key must be the private key's own (compressed or uncompressed for ECDSA curves), KEY_INVALID otherwise.
   */
  async importApiKey({
    name,
    curve,
    privateKey,
    publicKey,
  }: {
    name: string;
    curve: ApiKeyCurve;
    privateKey: string;
    publicKey?: string | undefined;
  }): Promise<ApiKeyInfo> {
    assertCurve(curve);
    const secret = apiPrivateKeyBytes(curve, privateKey);
    let derived: string;
    try {
      derived = apiPublicKeyFromPrivate(curve, bytesToHex(secret));
      if (publicKey !== undefined) assertSamePublicKey(curve, publicKey, derived);
    } catch (error) {
      zeroize(secret);
      throw error;
    }
    return this.addApiKey(name, curve, secret, derived);
  }

  /**
   * Imports a key pair written by tkcli (`turnkey generate api-key`): `<n>.private` holds `<hex>[:<curve>]` (no suffix
   * means p256) and the optional `<n>.public` the public key, which must match.
   */
  async importTkcliApiKey({
    name,
    privateKeyFile,
    publicKeyFile,
  }: {
    name: string;
    privateKeyFile: string;
    publicKeyFile?: string | undefined;
  }): Promise<ApiKeyInfo> {
    const privateText = await readKeyFile(privateKeyFile, 'privateKeyFile', '.private');
    const separator = privateText.lastIndexOf(':');
    const privateKey = separator === -1 ? privateText : privateText.slice(0, separator);
    const curve = separator === -1 ? 'p256' : privateText.slice(separator + 1);
    if (!isApiKeyCurve(curve)) {
      // Quoted only when it looks like a curve name: the file's text must never travel back in an error.
      const named = /^[A-Za-z0-9_-]{1,20}$/.test(curve) ? `names curve ${JSON.stringify(curve)}` : 'ends in an unknown curve suffix';
      throw new QkError('CURVE_UNSUPPORTED', `${privateKeyFile} ${named}; tkcli key files end in :p256, :secp256k1 or :ed25519`, {
        path: privateKeyFile,
      });
    }
    const publicKey = publicKeyFile === undefined ? undefined : await readKeyFile(publicKeyFile, 'publicKeyFile', '.public');
    try {
      return await this.importApiKey({ name, curve, privateKey, publicKey });
    } catch (error) {
      if (error instanceof QkError && error.code === 'KEY_INVALID') {
        throw new QkError('KEY_INVALID', `${privateKeyFile}: ${error.message}`, { ...error.details, path: privateKeyFile });
      }
      throw error;
    }
  }

  async listApiKeys(): Promise<ApiKeyInfo[]> {
    const [records, profiles] = await Promise.all([this.records('api'), this.profiles.list()]);
    return Promise.all(
      records.map(async (record) => ({
        ...apiKeyInfo(record, await this.isMissing(record)),
        usedByProfiles: profiles.filter((profile) => profile.apiKeyName === record.name).map((profile) => profile.name),
      })),
    );
  }

  async getApiKeyPublic(name: string): Promise<ApiKeyInfo> {
    const record = await this.find('api', name);
    const usedByProfiles = (await this.profiles.usingApiKey(name)).map((profile) => profile.name);
    return { ...apiKeyInfo(record, await this.isMissing(record)), usedByProfiles };
  }

  /** Renames in the index only (the keychain item is filed by id) and updates the profiles that use the key. */
  async renameApiKey(name: string, newName: string): Promise<ApiKeyInfo> {
    assertKeyName(newName, 'newName');
    await this.index.update(async (current) => {
      const index = current ?? EMPTY_INDEX;
      const record = findIn(index, 'api', name);
      if (name !== newName) assertNameFree(index, 'api', newName);
      const keys = index.keys.map((candidate) => (candidate === record ? { ...record, name: newName } : candidate));
      return { next: { ...index, keys }, result: undefined };
    });
    await this.profiles.renameApiKeyReferences(name, newName);
    return this.getApiKeyPublic(newName);
  }

  /** Deletes the private key from the OS keychain, then the index entry. Refused while a profile signs with it. */
  async deleteApiKey(name: string): Promise<void> {
    const users = await this.profiles.usingApiKey(name);
    if (users.length > 0) {
      throw new QkError(
        'FAILED_PRECONDITION',
        `API key ${JSON.stringify(name)} is used by profile ${users.map((profile) => JSON.stringify(profile.name)).join(', ')}; switch those profiles to another key or remove them first`,
        { profiles: users.map((profile) => profile.id) },
      );
    }
    await this.deleteKey('api', name);
  }

  /**
   * Runs `fn` with a signer for the API key `name`; the private key bytes are wiped when `fn` settles and the signer
   * refuses to sign afterwards. For main-process services only: never expose this over IPC.
   */
  async withApiKeySigner<R>(name: string, fn: (signer: StampSigner) => Promise<R> | R): Promise<R> {
    const record = await this.find('api', name);
    const curve = record.curve;
    const secret = await this.loadSecret(record);
    let usable = true;
    try {
      // node:crypto signs several times faster than the pure backend; the KeyObject is dropped with `inner`.
      const inner = createNodeStampSigner(curve, bytesToHex(secret));
      if (inner.publicKey !== record.publicKey) throw corruptSecret(record);
      const scoped: StampSigner = {
        curve,
        publicKey: inner.publicKey,
        sign: (message) => {
          if (!usable) {
            throw new QkError('INTERNAL', `the signer of API key ${JSON.stringify(name)} was used after its scope ended`);
          }
          return inner.sign(message);
        },
      };
      return await fn(scoped);
    } finally {
      usable = false;
      zeroize(secret);
    }
  }

  // ---- encryption keys ----

  async generateEncryptionKey({ name }: { name: string }): Promise<EncryptionKeyInfo> {
    const pair = generateEncryptionKeyPair();
    return this.addEncryptionKey(name, privateKeyBytes(pair.privateKey), pair.publicKey);
  }

  /** Imports a 32-byte P-256 scalar as hex (e.g. a tkcli encryption key's `<n>.private`). */
  async importEncryptionKey({ name, privateKey }: { name: string; privateKey: string }): Promise<EncryptionKeyInfo> {
    const normalized = stripHexPrefix(privateKey.trim());
    const publicKey = p256PublicKeyFromPrivate(normalized, false);
    return this.addEncryptionKey(name, privateKeyBytes(normalized, 'P-256 private key'), publicKey);
  }

  async listEncryptionKeys(): Promise<EncryptionKeyInfo[]> {
    const records = await this.records('encryption');
    return Promise.all(records.map(async (record) => encryptionKeyInfo(record, await this.isMissing(record))));
  }

  async deleteEncryptionKey(name: string): Promise<void> {
    await this.deleteKey('encryption', name);
  }

  /**
   * Runs `fn` with the raw 32-byte P-256 private key of encryption key `name` and wipes it when `fn` settles.
   * `fn` must not keep the bytes. For main-process services only: never expose this over IPC.
   */
  async withEncryptionPrivateKey<R>(name: string, fn: (privateKey: Uint8Array) => Promise<R> | R): Promise<R> {
    return this.withP256PrivateKey(await this.find('encryption', name), fn);
  }

  // ---- one-time export keys held for exports waiting for votes ----

  /**
   * Keeps the one-time P-256 key an export was sealed to, filed under the export's activity id, until the export is
   * opened or can no longer complete (releaseOneTimeKey). Wipes the caller's copy.
   */
  async holdOneTimeKey(activityId: string, privateKey: Uint8Array): Promise<void> {
    const publicKey = bytesToHex(p256.getPublicKey(privateKey, false));
    await this.addKey('one-time', activityId, 'p256', privateKey, publicKey);
  }

  /** The activity ids whose one-time keys this desktop holds, with the public keys they were sealed to. */
  async listOneTimeKeys(): Promise<{ activityId: string; publicKey: string }[]> {
    return (await this.records('one-time')).map(({ name, publicKey }) => ({ activityId: name, publicKey }));
  }

  /** Like withEncryptionPrivateKey, for the one-time key held for export `activityId`. */
  async withOneTimeKey<R>(activityId: string, fn: (privateKey: Uint8Array) => Promise<R> | R): Promise<R> {
    return this.withP256PrivateKey(await this.find('one-time', activityId), fn);
  }

  /** Deletes the one-time key held for `activityId`; answers false when none was held. */
  async releaseOneTimeKey(activityId: string): Promise<boolean> {
    if (!(await this.records('one-time')).some((record) => record.name === activityId)) return false;
    await this.deleteKey('one-time', activityId);
    return true;
  }

  private async withP256PrivateKey<R>(record: KeyRecord, fn: (privateKey: Uint8Array) => Promise<R> | R): Promise<R> {
    const secret = await this.loadSecret(record);
    try {
      const publicKey = p256.getPublicKey(secret, false);
      if (bytesToHex(publicKey) !== record.publicKey) throw corruptSecret(record);
      return await fn(secret);
    } finally {
      zeroize(secret);
    }
  }

  // ---- shared machinery ----

  private async addApiKey(name: string, curve: ApiKeyCurve, secret: Uint8Array, publicKey: string): Promise<ApiKeyInfo> {
    const record = await this.addKey('api', name, curve, secret, publicKey);
    return { ...apiKeyInfo(record, false), usedByProfiles: (await this.profiles.usingApiKey(name)).map((p) => p.name) };
  }

  private async addEncryptionKey(name: string, secret: Uint8Array, publicKey: string): Promise<EncryptionKeyInfo> {
    return encryptionKeyInfo(await this.addKey('encryption', name, 'p256', secret, publicKey), false);
  }

  /** Stores `secret` (and wipes the caller's copy), then records the key in the index. */
  private async addKey(kind: KeyKind, name: string, curve: ApiKeyCurve, secret: Uint8Array, publicKey: string): Promise<KeyRecord> {
    try {
      assertKeyName(name, 'name');
      return await this.index.update(async (current) => {
        const index = current ?? EMPTY_INDEX;
        assertNameFree(index, kind, name);
        const record: KeyRecord = { id: randomUUID(), name, kind, curve, publicKey, createdAt: new Date().toISOString() };
        await this.store.set(accountOf(record), secret);
        return { next: { ...index, keys: [...index.keys, record] }, result: record };
      });
    } finally {
      zeroize(secret);
    }
  }

  private async deleteKey(kind: KeyKind, name: string): Promise<void> {
    await this.index.update(async (current) => {
      const index = current ?? EMPTY_INDEX;
      const record = findIn(index, kind, name);
      // Already gone from the keychain (false) is fine: the point is that it is gone.
      await this.store.delete(accountOf(record));
      return { next: { ...index, keys: index.keys.filter((candidate) => candidate !== record) }, result: undefined };
    });
  }

  private async loadSecret(record: KeyRecord): Promise<Uint8Array> {
    const secret = await this.store.get(accountOf(record));
    if (secret === null) {
      throw new QkError(
        'KEY_NOT_FOUND',
        `the OS keychain no longer holds the private key of ${KIND_LABEL[record.kind]} ${JSON.stringify(record.name)} (it was removed outside QuorumKey); delete the entry and import or create the key again`,
        { name: record.name, id: record.id, missing: true },
      );
    }
    return secret;
  }

  private async isMissing(record: KeyRecord): Promise<boolean> {
    const secret = await this.store.get(accountOf(record));
    if (secret === null) return true;
    zeroize(secret);
    return false;
  }

  private async records(kind: KeyKind): Promise<KeyRecord[]> {
    return ((await this.index.read()) ?? EMPTY_INDEX).keys.filter((record) => record.kind === kind);
  }

  private async find(kind: KeyKind, name: string): Promise<KeyRecord> {
    return findIn((await this.index.read()) ?? EMPTY_INDEX, kind, name);
  }
}

/** Keychain account of a key: its kind and stable id, so renames never touch the keychain. */
function accountOf(record: KeyRecord): string {
  return `${record.kind}-key:${record.id}`;
}

function findIn(index: KeyIndex, kind: KeyKind, name: string): KeyRecord {
  const record = index.keys.find((candidate) => candidate.kind === kind && candidate.name === name);
  if (!record) {
    throw new QkError('KEY_NOT_FOUND', `no ${KIND_LABEL[kind]} named ${JSON.stringify(name)}; list the keys to see their names`, {
      name,
      kind,
    });
  }
  return record;
}

function assertNameFree(index: KeyIndex, kind: KeyKind, name: string): void {
  if (index.keys.some((record) => record.kind === kind && record.name === name)) {
    throw new QkError('KEY_EXISTS', `an ${KIND_LABEL[kind]} named ${JSON.stringify(name)} already exists; choose another name`, {
      name,
      kind,
    });
  }
}

function assertCurve(curve: unknown): asserts curve is ApiKeyCurve {
  if (!isApiKeyCurve(curve)) {
    throw new QkError('CURVE_UNSUPPORTED', `curve must be one of ${API_KEY_CURVES.join(', ')}, got ${JSON.stringify(curve)}`, {
      field: 'curve',
    });
  }
}

function stripHexPrefix(hex: string): string {
  return hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
}

/** 32 private-key bytes from user-supplied hex; Ed25519 also accepts Go's 64-byte seed‖public form. */
function apiPrivateKeyBytes(curve: ApiKeyCurve, privateKey: string): Uint8Array {
  const hex = stripHexPrefix(privateKey.trim());
  if (curve !== 'ed25519' || hex.length !== 128) return privateKeyBytes(hex, `${curve} private key`);
  const seed = privateKeyBytes(hex.slice(0, 64), 'ed25519 private key seed');
  const embeddedPublic = hex.slice(64).toLowerCase();
  if (apiPublicKeyFromPrivate('ed25519', hex.slice(0, 64)) !== embeddedPublic) {
    zeroize(seed);
    throw new QkError('KEY_INVALID', 'ed25519 private key: its second half is not the public key of its seed (first half)');
  }
  return seed;
}

function assertSamePublicKey(curve: ApiKeyCurve, given: string, derived: string): void {
  const normalized = normalizePublicKey(curve, given.trim());
  if (normalized !== derived) {
    // The given text may come from a file main read for the renderer: echo it only when it is plainly a hex key.
    const shown = /^(?:0x)?[0-9a-fA-F]{1,200}$/.test(given.trim()) ? given.trim() : 'the given text, which is not a hex public key';
    throw new QkError('KEY_INVALID', `the public key does not belong to the private key: ${curve} private key gives ${derived}, not ${shown}`, {
      field: 'publicKey',
    });
  }
}

/** The stamp form of a public key given in any usual encoding, or undefined when it is not one. */
function normalizePublicKey(curve: ApiKeyCurve, hex: string): string | undefined {
  const lower = stripHexPrefix(hex).toLowerCase();
  if (curve === 'ed25519') return lower;
  try {
    return (curve === 'p256' ? p256 : secp256k1).Point.fromHex(lower).toHex(true);
  } catch {
    return undefined;
  }
}

function corruptSecret(record: KeyRecord): QkError {
  return new QkError(
    'KEY_INVALID',
    `the OS keychain item of ${KIND_LABEL[record.kind]} ${JSON.stringify(record.name)} does not match its recorded public key (it was changed outside QuorumKey); delete the entry and import the key again`,
    { name: record.name, id: record.id },
  );
}

/** tkcli key files hold one hex key and an optional curve suffix; anything larger is not one. */
const MAX_KEY_FILE_BYTES = 1024;

/**
 * Reads a tkcli key file. The path comes from the renderer, so only a regular file named `*<suffix>` of at most
 * MAX_KEY_FILE_BYTES is read: main must not become a reader of arbitrary files (nor hang on /dev/zero or a FIFO).
 */
async function readKeyFile(path: string, field: string, suffix: '.private' | '.public'): Promise<string> {
  if (!basename(path).endsWith(suffix) || basename(path) === suffix) {
    throw new QkError('FILE_ERROR', `${field} must be a tkcli key file named <name>${suffix}, got ${path}`, { field, path });
  }
  const cannotRead = (reason: string) => new QkError('FILE_ERROR', `cannot read ${field} ${path}: ${reason}`, { field, path });
  let handle;
  try {
    // Non-blocking, so a FIFO cannot stall main until some writer appears; a regular file reads the same either way.
    handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    throw cannotRead((error as NodeJS.ErrnoException).code ?? 'open failed');
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw cannotRead('not a regular file');
    if (stats.size > MAX_KEY_FILE_BYTES) throw cannotRead(`${stats.size} bytes; a tkcli key file has at most ${MAX_KEY_FILE_BYTES}`);
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    try {
      if (bytesRead > MAX_KEY_FILE_BYTES) throw cannotRead(`it grew beyond ${MAX_KEY_FILE_BYTES} bytes while being read`);
      return buffer.toString('utf8', 0, bytesRead).trim();
    } finally {
      buffer.fill(0);
    }
  } finally {
    await handle.close();
  }
}

function apiKeyInfo(record: KeyRecord, missing: boolean): Omit<ApiKeyInfo, 'usedByProfiles'> {
  return {
    id: record.id,
    name: record.name,
    curve: record.curve,
    publicKey: record.publicKey,
    createdAt: record.createdAt,
    missing,
  };
}

function encryptionKeyInfo(record: KeyRecord, missing: boolean): EncryptionKeyInfo {
  return { id: record.id, name: record.name, publicKey: record.publicKey, createdAt: record.createdAt, missing };
}
