/**
 * ECDSA over P-256 and secp256k1 with the two signature encodings Turnkey uses:
 * ASN.1 DER (stamps, bundle signatures) and raw 64-byte r‖s (JWTs, app proofs, client signatures).
 *
 * Verification never enforces low-S: Turnkey's enclave and Node's `crypto.sign` emit high-S signatures.
 */
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { QkError } from '../errors';

export type EcdsaCurve = 'p256' | 'secp256k1';
export type EcdsaSignatureFormat = 'der' | 'raw';

const curves = { p256, secp256k1 } as const;

/** Byte length of a raw r‖s signature on both supported curves. */
export const RAW_SIGNATURE_LENGTH = 64;

function curveImpl(curve: EcdsaCurve) {
  return curves[curve];
}

function nobleFormat(format: EcdsaSignatureFormat): 'der' | 'compact' {
  return format === 'der' ? 'der' : 'compact';
}

/**
 * Strict DER → raw r‖s. Rejects long-form lengths below 128, non-minimal or negative integers, trailing bytes,
 * and r/s outside [1, n-1]. Throws ENCODING_INVALID naming `what`.
 */
export function derToRawSignature(der: Uint8Array, curve: EcdsaCurve, what = 'signature'): Uint8Array {
  try {
    return curveImpl(curve).Signature.fromBytes(der, 'der').toBytes('compact');
  } catch (error) {
    throw new QkError('ENCODING_INVALID', `${what} is not a valid DER ECDSA ${curve} signature: ${(error as Error).message}`, {
      what,
    });
  }
}

/** Raw 64-byte r‖s → DER. Throws ENCODING_INVALID naming `what` when r or s is out of range. */
export function rawToDerSignature(raw: Uint8Array, curve: EcdsaCurve, what = 'signature'): Uint8Array {
  if (raw.length !== RAW_SIGNATURE_LENGTH) {
    throw new QkError('ENCODING_INVALID', `${what} must be ${RAW_SIGNATURE_LENGTH} bytes r‖s, got ${raw.length}`, { what });
  }
  try {
    return curveImpl(curve).Signature.fromBytes(raw, 'compact').toBytes('der');
  } catch (error) {
    throw new QkError('ENCODING_INVALID', `${what} is not a valid ${curve} r‖s signature: ${(error as Error).message}`, {
      what,
    });
  }
}

/** Signs a 32-byte digest (no further hashing). Deterministic (RFC 6979), low-S. */
export function ecdsaSignDigest(curve: EcdsaCurve, digest: Uint8Array, privateKey: Uint8Array, format: EcdsaSignatureFormat): Uint8Array {
  if (digest.length !== 32) {
    throw new QkError('INTERNAL', `ECDSA digest must be 32 bytes, got ${digest.length}`);
  }
  try {
    return curveImpl(curve).sign(digest, privateKey, { prehash: false, format: nobleFormat(format) });
  } catch (error) {
    throw new QkError('KEY_INVALID', `${curve} private key cannot sign: ${(error as Error).message}`);
  }
}

/** Signs SHA-256(message). */
export function ecdsaSign(curve: EcdsaCurve, message: Uint8Array, privateKey: Uint8Array, format: EcdsaSignatureFormat): Uint8Array {
  return ecdsaSignDigest(curve, sha256(message), privateKey, format);
}

/**
 * Verifies a signature over a 32-byte digest. Returns false (never throws) for a signature that is malformed,
 * does not match, or a public key that is not a point on the curve; high-S signatures are accepted.
 */
export function ecdsaVerifyDigest(
  curve: EcdsaCurve,
  signature: Uint8Array,
  digest: Uint8Array,
  publicKey: Uint8Array,
  format: EcdsaSignatureFormat,
): boolean {
  if (format === 'raw' && signature.length !== RAW_SIGNATURE_LENGTH) return false;
  try {
    return curveImpl(curve).verify(signature, digest, publicKey, {
      prehash: false,
      lowS: false,
      format: nobleFormat(format),
    });
  } catch {
    return false;
  }
}

/** Verifies a signature over SHA-256(message); see {@link ecdsaVerifyDigest}. */
export function ecdsaVerify(
  curve: EcdsaCurve,
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
  format: EcdsaSignatureFormat,
): boolean {
  return ecdsaVerifyDigest(curve, signature, sha256(message), publicKey, format);
}
