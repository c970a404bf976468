/**
 * The enclave's signing primitives. They run on the enclave's signing workers (signing-jobs.ts) with a key that
 * Enclave.withSigningKey opened, the only place a stored key is opened:
 * ECDSA (secp256k1, P-256) over a 32-byte digest, deterministic (RFC 6979) and low-S, with the recovery id that
 * Turnkey returns as `v`; Ed25519 over the message itself.
 *
 * secp256k1, the curve nearly every chain signs with, signs through tiny-secp256k1: Bitcoin Core's libsecp256k1
 * built to WebAssembly, constant-time, about a third of noble's CPU for the same bytes (docs/performance.md, ninth
 * round). It copies the key into its memory for the call and zeroes it there after.
 */
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { __initializeContext as randomizeSecp256k1Context, signRecoverable } from 'tiny-secp256k1';
import { bytesToHex } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { Curve } from './derivation';
import { ed25519Sign } from './openssl';

/** An opened key: its holder zeroes `secret` when done and keeps no copy. */
export interface SigningKey {
  curve: Curve;
  /** 32-byte scalar (ECDSA) or Ed25519 seed. */
  secret: Uint8Array;
  /** Compressed SEC1 (ECDSA) or raw 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
}

export interface EcdsaSignature {
  r: Uint8Array;
  s: Uint8Array;
  /** 0 or 1: the parity of R's y coordinate. */
  recovery: number;
}

/** `v1SignRawPayloadResult`: hex without 0x; `v` is the recovery id as two hex digits ("00" for Ed25519). */
export type RawSignature = { r: string; s: string; v: string };

const SCALAR_LENGTH = 32;

/**
 * Readies a signing worker's thread, once at its start:
 * - libsecp256k1's context gets its blinding seed from node:crypto's random bytes. Left alone, tiny-secp256k1 seeds
 *   it on the first signature from a generator seeded by a stack address, which WebAssembly makes predictable.
 * - A noble ECDSA signature multiplies the base point by its nonce, which the library blinds to 384 bits. Windows of
 *   8 bits instead of its default 6 take that multiply from 65 additions to 49, about a fifth of a signature; each
 *   curve's table (about 1 MB) is built on a thread's first signature with it. P-256 signs with noble, and so do the
 *   PSBT inputs that @scure/btc-signer signs on secp256k1.
 */
export function prepareSigningThread(): void {
  randomizeSecp256k1Context();
  secp256k1.Point.BASE.precompute(8);
  p256.Point.BASE.precompute(8);
}

/** Signs a 32-byte digest as is (no further hashing). */
export function signDigest(key: SigningKey, digest: Uint8Array): EcdsaSignature {
  if (digest.length !== SCALAR_LENGTH) throw new QkError('INTERNAL', `an ECDSA digest is ${SCALAR_LENGTH} bytes, got ${digest.length}`);
  if (key.curve === 'CURVE_SECP256K1') {
    const { signature, recoveryId } = signRecoverable(digest, key.secret);
    return { r: signature.slice(0, SCALAR_LENGTH), s: signature.slice(SCALAR_LENGTH), recovery: recoveryId };
  }
  if (key.curve !== 'CURVE_P256') throw new QkError('CURVE_UNSUPPORTED', `${key.curve} does not sign ECDSA digests`, { curve: key.curve });
  // The recovered format is the recovery id, then r and s: read as it is, not parsed into a Signature and written again.
  const recovered = p256.sign(digest, key.secret, { prehash: false, lowS: true, format: 'recovered' });
  return { r: recovered.slice(1, 1 + SCALAR_LENGTH), s: recovered.slice(1 + SCALAR_LENGTH), recovery: recovered[0]! };
}

export function signEd25519(key: SigningKey, message: Uint8Array): Uint8Array {
  if (key.curve !== 'CURVE_ED25519') throw new QkError('CURVE_UNSUPPORTED', `${key.curve} does not sign Ed25519 messages`, { curve: key.curve });
  return ed25519Sign(key.secret, message);
}

/** A raw payload's signature: `signable` is the digest (ECDSA) or the message (Ed25519) that prepareRawPayload chose. */
export function signRaw(key: SigningKey, signable: Uint8Array): RawSignature {
  if (key.curve === 'CURVE_ED25519') {
    const signature = signEd25519(key, signable);
    return { r: bytesToHex(signature.slice(0, SCALAR_LENGTH)), s: bytesToHex(signature.slice(SCALAR_LENGTH)), v: '00' };
  }
  const signature = signDigest(key, signable);
  return { r: bytesToHex(signature.r), s: bytesToHex(signature.s), v: signature.recovery.toString(16).padStart(2, '0') };
}
