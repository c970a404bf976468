/**
 * The journal key: a P-256 key whose private half lives only in the OS keychain, and node:crypto's ECDSA over it
 * (raw r‖s, the journal's signature encoding). Verification uses node:crypto too, for speed; the shared verifier's
 * default (@noble/curves) gives the same answers.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { JournalSignatureVerifier, JournalSigner } from '../../shared/journal/format';
import { PKCS8_PREFIX } from '../../node/stamp-backend';
import type { SecretStore } from '../keychain/secret-store';

/** Keychain account of the journal key, beside the keys' (`api-key:<id>`) and the sandbox's service secret. */
export const JOURNAL_KEY_ACCOUNT = 'journal-key';

/** SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (65 bytes) }: an uncompressed point as SPKI. */
const UNCOMPRESSED_SPKI_PREFIX = hexToBytes('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'spki');

export interface JournalKey {
  /** Uncompressed point, 130 hex characters. */
  publicKey: string;
  sign: JournalSigner;
}

/** The stored key, or undefined when the keychain holds none. KEY_INVALID when the item is not a P-256 scalar. */
export async function loadJournalKey(store: SecretStore): Promise<JournalKey | undefined> {
  const secret = await store.get(JOURNAL_KEY_ACCOUNT);
  if (secret === null) return undefined;
  return journalKeyFrom(secret);
}

export async function createJournalKey(store: SecretStore): Promise<JournalKey> {
  const secret = p256.utils.randomSecretKey(randomBytes(48));
  await store.set(JOURNAL_KEY_ACCOUNT, secret);
  return journalKeyFrom(secret);
}

function journalKeyFrom(secret: Uint8Array): JournalKey {
  const der = Buffer.concat([PKCS8_PREFIX.p256, secret]);
  try {
    if (secret.length !== 32 || !p256.utils.isValidSecretKey(secret)) throw new Error(`${secret.length} bytes, not a P-256 scalar`);
    const publicKey = bytesToHex(p256.getPublicKey(secret, false));
    const keyObject = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    return { publicKey, sign: (message) => sign('sha256', message, { key: keyObject, dsaEncoding: 'ieee-p1363' }) };
  } catch (error) {
    throw new QkError(
      'KEY_INVALID',
      `the OS keychain item ${JOURNAL_KEY_ACCOUNT} is not a journal key (${(error as Error).message}); it was changed outside QuorumKey`,
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
