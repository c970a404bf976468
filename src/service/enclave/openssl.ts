/**
 * The enclave's operations that OpenSSL (node:crypto) does with the same result as noble, only faster: P-256 and
 * Ed25519 public keys (about 25 and 6 times) and Ed25519 signatures, which RFC 8032 makes deterministic. ECDSA
 * signatures stay with noble: OpenSSL's are randomized and carry no recovery id.
 *
 * OpenSSL keeps its copy of a private key until the object holding it is collected, and clears it then; noble's
 * bigint copies of a key linger unzeroed just as long. Every buffer handed over here is zeroed.
 */
import { createECDH, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { PKCS8_PREFIX } from '../../node/stamp-backend';

const ED25519_KEY_LENGTH = 32;

/** Compressed SEC1 public key of a P-256 scalar in [1, n-1] (the caller checks the range). */
export function p256PublicKey(privateKey: Uint8Array): Uint8Array {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(privateKey);
  return new Uint8Array(ecdh.getPublicKey(null, 'compressed'));
}

function ed25519PrivateKeyObject(privateKey: Uint8Array): KeyObject {
  const der = Buffer.concat([PKCS8_PREFIX.ed25519, privateKey]);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

/** The raw 32-byte public key of a 32-byte Ed25519 private key (seed). */
export function ed25519PublicKey(privateKey: Uint8Array): Uint8Array {
  const spki = createPublicKey(ed25519PrivateKeyObject(privateKey)).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(spki.length - ED25519_KEY_LENGTH));
}

/** The 64-byte Ed25519 signature of `message` (RFC 8032, over the message itself). */
export function ed25519Sign(privateKey: Uint8Array, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, message, ed25519PrivateKeyObject(privateKey)));
}
