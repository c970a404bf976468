/**
 * The journal key: a P-256 key, and node:crypto's ECDSA over it (raw r‖s, the journal's signature encoding).
 * Verification uses node:crypto too, for speed; the shared verifier's default (@noble/curves) gives the same answers.
 *
 * Its private half lives in the OS keychain. A machine with no keychain at all (a headless, air-gapped box without a
 * Secret Service, where offline decryption is the whole point) keeps it in a file of the data directory instead,
 * mode 0600; entry 0 of the journal says which. A keychain that is there but locked is never bypassed.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { JournalSignatureVerifier, JournalSigner } from '../../shared/journal/format';
import { PKCS8_PREFIX } from '../../node/stamp-backend';
import type { SecretStore } from '../keychain/secret-store';
import { openNewFile } from '../storage/bounded-file';

/** Keychain account of the journal key, beside the keys' (`api-key:<id>`) and the sandbox's service secret. */
export const JOURNAL_KEY_ACCOUNT = 'journal-key';

/** The key's file in the data directory, used only where no OS keychain can be reached: 64 hex characters. */
export const JOURNAL_KEY_FILE = 'journal-key.hex';

/** Where a journal key's private half is held. */
export type JournalKeyHome = 'keychain' | 'file';

/** SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (65 bytes) }: an uncompressed point as SPKI. */
const UNCOMPRESSED_SPKI_PREFIX = hexToBytes('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'spki');

export interface JournalKey {
  /** Uncompressed point, 130 hex characters. */
  publicKey: string;
  sign: JournalSigner;
  home: JournalKeyHome;
}

/**
 * The journal key for a journal begun with `expected` (undefined: a journal not yet begun, whose key is created if
 * none is held). The key file is read first, so a machine that keeps its key there never opens the keychain; a
 * journal begun with the keychain's key needs the keychain, and says so when it cannot be reached.
 */
export async function journalKeyFor(homes: { keychain: SecretStore; file: string }, expected: string | undefined): Promise<JournalKey> {
  const fromFile = await loadFileKey(homes.file);
  if (expected !== undefined && fromFile?.publicKey === expected) return fromFile;
  let fromKeychain: JournalKey | undefined;
  try {
    const secret = await homes.keychain.get(JOURNAL_KEY_ACCOUNT);
    fromKeychain = secret === null ? undefined : journalKeyFrom(secret, 'keychain', JOURNAL_KEY_ACCOUNT);
  } catch (error) {
    if (!(error instanceof QkError) || error.code !== 'KEYCHAIN_UNAVAILABLE') throw error;
    // No keychain on this machine: the file holds the key, or will.
    if (expected === undefined) return fromFile ?? (await createFileKey(homes.file));
    throw new QkError(
      'KEYCHAIN_UNAVAILABLE',
      `${error.message}. The journal in this data directory was begun with the journal key ${expected.slice(0, 18)}…, which ` +
        `${homes.file} does not hold: run this where the OS keychain holding it is, or pass --data-dir with another directory to keep a separate journal on this machine`,
      error.details,
    );
  }
  if (expected === undefined) return fromKeychain ?? (await createKeychainKey(homes.keychain));
  if (fromKeychain?.publicKey === expected) return fromKeychain;
  throw fromKeychain === undefined && fromFile === undefined
    ? new QkError(
        'KEY_NOT_FOUND',
        `neither the OS keychain nor ${homes.file} holds the journal key this journal was begun with (${expected.slice(0, 18)}…); restore it, or move the journal aside to begin a new one`,
      )
    : new QkError(
        'KEY_INVALID',
        `the journal key held here is not the key this journal was begun with (${expected.slice(0, 18)}…); restore that key, or move the journal aside to begin a new one`,
      );
}

async function createKeychainKey(store: SecretStore): Promise<JournalKey> {
  const secret = p256.utils.randomSecretKey(randomBytes(48));
  await store.set(JOURNAL_KEY_ACCOUNT, secret);
  return journalKeyFrom(secret, 'keychain', JOURNAL_KEY_ACCOUNT);
}

async function createFileKey(file: string): Promise<JournalKey> {
  let handle;
  try {
    handle = await openNewFile(file, { mode: 0o600 });
  } catch (error) {
    // Another process created it first: its key is the one.
    const existing = await loadFileKey(file);
    if (existing === undefined) throw error;
    return existing;
  }
  const secret = p256.utils.randomSecretKey(randomBytes(48));
  const text = Buffer.from(`${bytesToHex(secret)}\n`, 'utf8');
  try {
    await handle.writeFile(text);
    // Durable before entry 0 names its public half.
    await handle.sync();
  } catch (error) {
    throw new QkError('FILE_ERROR', `cannot write the journal key file ${file}: ${(error as Error).message}`, { path: file });
  } finally {
    text.fill(0);
    await handle.close();
  }
  return journalKeyFrom(secret, 'file', file);
}

/** The key file's key, or undefined when there is no file. KEY_INVALID when it holds anything but a P-256 scalar. */
async function loadFileKey(file: string): Promise<JournalKey | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new QkError('FILE_ERROR', `cannot read the journal key file ${file}: ${(error as Error).message}`, { path: file });
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw new QkError('KEY_INVALID', `${file} is not a journal key (64 lowercase hex characters); it was changed outside QuorumKey`);
  }
  return journalKeyFrom(hexToBytes(hex, 'journal key'), 'file', file);
}

function journalKeyFrom(secret: Uint8Array, home: JournalKeyHome, where: string): JournalKey {
  const der = Buffer.concat([PKCS8_PREFIX.p256, secret]);
  try {
    if (secret.length !== 32 || !p256.utils.isValidSecretKey(secret)) throw new Error(`${secret.length} bytes, not a P-256 scalar`);
    const publicKey = bytesToHex(p256.getPublicKey(secret, false));
    const keyObject = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    return { publicKey, home, sign: (message) => sign('sha256', message, { key: keyObject, dsaEncoding: 'ieee-p1363' }) };
  } catch (error) {
    throw new QkError(
      'KEY_INVALID',
      `${home === 'keychain' ? `the OS keychain item ${where}` : where} is not a journal key (${(error as Error).message}); it was changed outside QuorumKey`,
    );
  } finally {
    der.fill(0);
    secret.fill(0);
  }
}

/** node:crypto's verifier, with each public key imported once. */
export function nodeJournalVerifier(): JournalSignatureVerifier {
  const keys = new Map<string, KeyObject | undefined>();
  return (signature, message, publicKey) => {
    const hex = bytesToHex(publicKey);
    if (!keys.has(hex)) {
      try {
        keys.set(hex, createPublicKey({ key: Buffer.concat([UNCOMPRESSED_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' }));
      } catch {
        keys.set(hex, undefined);
      }
    }
    const key = keys.get(hex);
    if (key === undefined || signature.length !== 64) return false;
    return verify('sha256', message, { key, dsaEncoding: 'ieee-p1363' }, signature);
  };
}
