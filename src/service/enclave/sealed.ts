/**
 * At-rest encryption of mnemonics, seeds and private keys in the service database.
 * AES-256-GCM under a key derived (HKDF-SHA256) from the service secret; the row id is the associated data, so a
 * ciphertext copied into another row fails to open. Format: version(1) ‖ nonce(12) ‖ ciphertext ‖ tag(16).
 * node:crypto supplies AES-GCM (OpenSSL); @noble/ciphers is only a transitive dependency here, not a declared one.
 */
import { createCipheriv, createDecipheriv, createSecretKey, KeyObject, randomBytes } from 'node:crypto';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { QkError } from '../../shared/errors';

const SEALING_INFO = utf8ToBytes('quorumkey/service/sealed-v1 aes-256-gcm');
const FORMAT_VERSION = 0x01;
const KEY_LENGTH = 32;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;
const HEADER_LENGTH = 1 + NONCE_LENGTH;
/** The service secret is the only input entropy, so it must carry at least 256 bits. */
const MIN_SECRET_LENGTH = 32;

/**
 * The 32-byte AES key, imported into OpenSSL once: a cipher made from raw key bytes imports them again each time,
 * which cost as much as the rest of opening a key. Its bytes live in OpenSSL's memory, not in the JS heap.
 */
export function deriveSealingKey(serviceSecret: Uint8Array): KeyObject {
  if (!(serviceSecret instanceof Uint8Array) || serviceSecret.length < MIN_SECRET_LENGTH) {
    throw new QkError('KEY_INVALID', `service secret must be at least ${MIN_SECRET_LENGTH} random bytes`, {
      length: serviceSecret instanceof Uint8Array ? serviceSecret.length : null,
    });
  }
  const bytes = hkdf(sha256, serviceSecret, undefined, SEALING_INFO, KEY_LENGTH);
  try {
    return createSecretKey(bytes);
  } finally {
    bytes.fill(0);
  }
}

function assertKey(key: KeyObject): void {
  if (!(key instanceof KeyObject) || key.type !== 'secret' || key.symmetricKeySize !== KEY_LENGTH) {
    throw new QkError('KEY_INVALID', `sealing key must be a ${KEY_LENGTH}-byte secret key (use deriveSealingKey)`);
  }
}

function associatedBytes(associatedData: string | Uint8Array): Uint8Array {
  const bytes = typeof associatedData === 'string' ? utf8ToBytes(associatedData) : associatedData;
  if (bytes.length === 0) {
    throw new QkError('REQUEST_INVALID', 'sealed data must be bound to a non-empty associated data (the row id)');
  }
  return bytes;
}

/** Encrypts `plaintext` bound to `associatedData` (the row's id). Does not modify or keep `plaintext`. */
export function seal(key: KeyObject, plaintext: Uint8Array, associatedData: string | Uint8Array): Uint8Array {
  assertKey(key);
  const aad = associatedBytes(associatedData);
  const nonce = randomBytes(NONCE_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LENGTH });
  cipher.setAAD(aad);
  const body = cipher.update(plaintext);
  const final = cipher.final();
  const out = new Uint8Array(HEADER_LENGTH + body.length + final.length + TAG_LENGTH);
  out[0] = FORMAT_VERSION;
  out.set(nonce, 1);
  out.set(body, HEADER_LENGTH);
  out.set(final, HEADER_LENGTH + body.length);
  out.set(cipher.getAuthTag(), out.length - TAG_LENGTH);
  return out;
}

/** Decrypts what `seal` produced for the same key and associated data; any change raises DECRYPTION_FAILED. */
export function open(key: KeyObject, sealed: Uint8Array, associatedData: string | Uint8Array): Uint8Array {
  assertKey(key);
  const aad = associatedBytes(associatedData);
  if (!(sealed instanceof Uint8Array) || sealed.length < HEADER_LENGTH + TAG_LENGTH) {
    throw new QkError('DECRYPTION_FAILED', `sealed data is too short (${sealed?.length ?? 0} bytes)`);
  }
  if (sealed[0] !== FORMAT_VERSION) {
    throw new QkError('DECRYPTION_FAILED', `sealed data has unknown format version ${sealed[0]}; expected ${FORMAT_VERSION}`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, HEADER_LENGTH), { authTagLength: TAG_LENGTH });
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_LENGTH));
  const body = decipher.update(sealed.subarray(HEADER_LENGTH, sealed.length - TAG_LENGTH));
  try {
    const final = decipher.final();
    const plaintext = new Uint8Array(body.length + final.length);
    plaintext.set(body);
    plaintext.set(final, body.length);
    return plaintext;
  } catch {
    throw new QkError(
      'DECRYPTION_FAILED',
      'sealed data failed authentication: it was altered, belongs to another row, or was sealed under another key',
    );
  } finally {
    // GCM releases plaintext before verifying the tag; never let an unverified copy linger.
    body.fill(0);
  }
}
