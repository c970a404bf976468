/**
 * API keys (the keys that sign `X-Stamp`) and P-256 encryption keys (export targets), all as lowercase hex.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { QkError } from '../errors';
import { bytesToHex, hexToBytes } from './encoding';

export type ApiKeyCurve = 'p256' | 'secp256k1' | 'ed25519';
export const API_KEY_CURVES: readonly ApiKeyCurve[] = ['p256', 'secp256k1', 'ed25519'];

export interface HexKeyPair {
  privateKey: string;
  publicKey: string;
}

const PRIVATE_KEY_LENGTH = 32;

export function isApiKeyCurve(value: unknown): value is ApiKeyCurve {
  return typeof value === 'string' && (API_KEY_CURVES as readonly string[]).includes(value);
}

/** Decodes a 32-byte private key (scalar or Ed25519 seed) given as hex, throwing KEY_INVALID with specifics. */
export function privateKeyBytes(privateKeyHex: string, what = 'private key'): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(privateKeyHex, what);
  } catch (error) {
    throw new QkError('KEY_INVALID', (error as Error).message, { what });
  }
  if (bytes.length !== PRIVATE_KEY_LENGTH) {
    throw new QkError('KEY_INVALID', `${what} must be ${PRIVATE_KEY_LENGTH} bytes (64 hex characters), got ${bytes.length}`, {
      what,
    });
  }
  return bytes;
}

/**
 * Public key in the stamp's form: compressed SEC1 (33 bytes) for P-256/secp256k1, raw 32 bytes for Ed25519.
 * Throws KEY_INVALID when the hex is malformed or the scalar is 0 or ≥ the curve order.
 */
export function apiPublicKeyFromPrivate(curve: ApiKeyCurve, privateKeyHex: string): string {
  const secret = privateKeyBytes(privateKeyHex, `${curve} private key`);
  try {
    return bytesToHex(publicKeyBytesFor(curve, secret));
  } catch (error) {
    throw new QkError('KEY_INVALID', `${curve} private key is not a valid scalar: ${(error as Error).message}`);
  } finally {
    zeroize(secret);
  }
}

function publicKeyBytesFor(curve: ApiKeyCurve, secret: Uint8Array): Uint8Array {
  switch (curve) {
    case 'p256':
      return p256.getPublicKey(secret, true);
    case 'secp256k1':
      return secp256k1.getPublicKey(secret, true);
    case 'ed25519':
      return ed25519.getPublicKey(secret);
  }
}

export function generateApiKeyPair(curve: ApiKeyCurve): HexKeyPair {
  const secret = curve === 'ed25519' ? ed25519.utils.randomSecretKey() : curveOf(curve).utils.randomSecretKey();
  try {
    return { privateKey: bytesToHex(secret), publicKey: bytesToHex(publicKeyBytesFor(curve, secret)) };
  } finally {
    zeroize(secret);
  }
}

function curveOf(curve: 'p256' | 'secp256k1') {
  return curve === 'p256' ? p256 : secp256k1;
}

/** A fresh P-256 key pair for HPKE (export targets): publicKey is the 65-byte uncompressed point (130 hex). */
export function generateEncryptionKeyPair(): HexKeyPair {
  const secret = p256.utils.randomSecretKey();
  try {
    return { privateKey: bytesToHex(secret), publicKey: bytesToHex(p256.getPublicKey(secret, false)) };
  } finally {
    zeroize(secret);
  }
}

export function p256PublicKeyFromPrivate(privateKeyHex: string, compressed: boolean): string {
  const secret = privateKeyBytes(privateKeyHex, 'P-256 private key');
  try {
    return bytesToHex(p256.getPublicKey(secret, compressed));
  } catch (error) {
    throw new QkError('KEY_INVALID', `P-256 private key is not a valid scalar: ${(error as Error).message}`);
  } finally {
    zeroize(secret);
  }
}

/** Parses and validates a SEC1 P-256 point (compressed or uncompressed hex). Throws KEY_INVALID. */
export function parseP256PublicKey(publicKeyHex: string, what = 'P-256 public key') {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(publicKeyHex, what);
  } catch (error) {
    throw new QkError('KEY_INVALID', (error as Error).message, { what });
  }
  if (bytes.length !== 33 && bytes.length !== 65) {
    throw new QkError('KEY_INVALID', `${what} must be 33 bytes (compressed) or 65 bytes (uncompressed), got ${bytes.length}`, {
      what,
    });
  }
  try {
    return p256.Point.fromBytes(bytes);
  } catch (error) {
    throw new QkError('KEY_INVALID', `${what} is not a point on P-256: ${(error as Error).message}`, { what });
  }
}

export function compressP256(publicKeyHex: string): string {
  return parseP256PublicKey(publicKeyHex).toHex(true);
}

export function uncompressP256(publicKeyHex: string): string {
  return parseP256PublicKey(publicKeyHex).toHex(false);
}

/** Overwrites secret material in place once it is no longer needed. */
export function zeroize(bytes: Uint8Array): void {
  bytes.fill(0);
}
