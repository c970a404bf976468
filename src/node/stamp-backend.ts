/**
 * node:crypto (OpenSSL) speed path for stamps, used by main and the service. Wire output is identical to the pure
 * signer/verifier in src/shared/crypto/stamp.ts; KeyObjects are built once and cached because key import dominates
 * the cost of a single signature.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { QkError } from '../shared/errors';
import { bytesToHex, hexToBytes } from '../shared/crypto/encoding';
import { apiPublicKeyFromPrivate, privateKeyBytes, type ApiKeyCurve } from '../shared/crypto/keys';
import type { AsyncStampVerifier, StampSigner, StampVerifier } from '../shared/crypto/stamp';

/** DER SubjectPublicKeyInfo prefixes, so OpenSSL can import a compressed (or raw Ed25519) key without a JWK. */
const SPKI_PREFIX: Record<ApiKeyCurve, { prefix: Uint8Array; keyLength: number }> = {
  // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (33 bytes) }
  p256: { prefix: hexToBytes('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'spki'), keyLength: 33 },
  // SEQUENCE { SEQUENCE { id-ecPublicKey, secp256k1 }, BIT STRING (33 bytes) }
  secp256k1: { prefix: hexToBytes('3036301006072a8648ce3d020106052b8104000a032200', 'spki'), keyLength: 33 },
  // SEQUENCE { SEQUENCE { id-Ed25519 }, BIT STRING (32 bytes) }
  ed25519: { prefix: hexToBytes('302a300506032b6570032100', 'spki'), keyLength: 32 },
};

/** PKCS#8 prefixes wrapping a raw 32-byte private key (RFC 5915 ECPrivateKey without the optional public key). */
export const PKCS8_PREFIX: Record<ApiKeyCurve, Uint8Array> = {
  p256: hexToBytes('3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420', 'pkcs8'),
  secp256k1: hexToBytes('303e020100301006072a8648ce3d020106052b8104000a042730250201010420', 'pkcs8'),
  ed25519: hexToBytes('302e020100300506032b657004220420', 'pkcs8'),
};

function withPrefix(prefix: Uint8Array, key: Uint8Array): Buffer {
  const der = Buffer.alloc(prefix.length + key.length);
  der.set(prefix, 0);
  der.set(key, prefix.length);
  return der;
}

/** Signer whose private KeyObject lives inside OpenSSL for the signer's lifetime. */
export function createNodeStampSigner(curve: ApiKeyCurve, privateKeyHex: string): StampSigner {
  const publicKey = apiPublicKeyFromPrivate(curve, privateKeyHex);
  const secret = privateKeyBytes(privateKeyHex, `${curve} private key`);
  const der = withPrefix(PKCS8_PREFIX[curve], secret);
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch (error) {
    throw new QkError('KEY_INVALID', `${curve} private key was refused by OpenSSL: ${(error as Error).message}`);
  } finally {
    der.fill(0);
    secret.fill(0);
  }
  const algorithm = curve === 'ed25519' ? null : 'sha256';
  return {
    curve,
    publicKey,
    // DER is node's default ECDSA encoding; a bare KeyObject skips the per-call parsing of an options object.
    sign: (message) => bytesToHex(sign(algorithm, message, keyObject)),
  };
}

export interface NodeStampVerifierOptions {
  /** Most public keys kept imported at once (least recently used are dropped). */
  maxCachedKeys?: number;
}

/** Imports stamp public keys into OpenSSL once; a bounded LRU. `undefined` for a key OpenSSL refuses. */
function publicKeyCache({ maxCachedKeys = 1024 }: NodeStampVerifierOptions): (curve: ApiKeyCurve, publicKeyHex: string) => KeyObject | undefined {
  const cache = new Map<string, KeyObject>();
  return (curve, publicKeyHex) => {
    const cacheKey = `${curve}:${publicKeyHex}`;
    const cached = cache.get(cacheKey);
    if (cached !== undefined) {
      cache.delete(cacheKey);
      cache.set(cacheKey, cached);
      return cached;
    }
    const { prefix, keyLength } = SPKI_PREFIX[curve];
    let keyObject: KeyObject;
    try {
      const raw = hexToBytes(publicKeyHex, 'public key');
      if (raw.length !== keyLength) return undefined;
      keyObject = createPublicKey({ key: withPrefix(prefix, raw), format: 'der', type: 'spki' });
    } catch {
      return undefined;
    }
    cache.set(cacheKey, keyObject);
    if (cache.size > maxCachedKeys) cache.delete(cache.keys().next().value as string);
    return keyObject;
  };
}

/** The key and signature bytes for OpenSSL, or undefined when either cannot be what the curve needs. */
function verifyInputs(
  keyFor: ReturnType<typeof publicKeyCache>,
  curve: ApiKeyCurve,
  publicKeyHex: string,
  signatureHex: string,
): { algorithm: string | null; key: KeyObject; signature: Buffer } | undefined {
  const key = keyFor(curve, publicKeyHex);
  if (key === undefined || signatureHex.length % 2 !== 0 || !HEX_DIGITS.test(signatureHex)) return undefined;
  return { algorithm: curve === 'ed25519' ? null : 'sha256', key, signature: Buffer.from(signatureHex, 'hex') };
}

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/** Verifier on the calling thread. Invalid keys and signatures verify as false. */
export function createNodeStampVerifier(options: NodeStampVerifierOptions = {}): StampVerifier {
  const keyFor = publicKeyCache(options);
  return {
    verify(curve, publicKeyHex, signatureHex, message) {
      const inputs = verifyInputs(keyFor, curve, publicKeyHex, signatureHex);
      if (inputs === undefined) return false;
      try {
        // DER is node's default ECDSA encoding; a bare KeyObject skips the per-call parsing of an options object.
        return verify(inputs.algorithm, message, inputs.key, inputs.signature);
      } catch {
        return false;
      }
    },
  };
}

/**
 * Verifier that runs each verification on libuv's thread pool (node:crypto's callback form), so a server's event
 * loop goes on parsing and answering other requests meanwhile: signature checks are most of a stamped query's CPU.
 */
export function createThreadPoolStampVerifier(options: NodeStampVerifierOptions = {}): AsyncStampVerifier {
  const keyFor = publicKeyCache(options);
  return {
    verify(curve, publicKeyHex, signatureHex, message) {
      const inputs = verifyInputs(keyFor, curve, publicKeyHex, signatureHex);
      if (inputs === undefined) return Promise.resolve(false);
      return new Promise((resolve) => {
        try {
          verify(inputs.algorithm, message, inputs.key, inputs.signature, (error, valid) => resolve(error === null && valid));
        } catch {
          resolve(false);
        }
      });
    },
  };
}
