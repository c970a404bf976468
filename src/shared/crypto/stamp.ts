/**
 * `X-Stamp` request stamps (docs/formats.md#stamps, docs/formats.md#stamps): base64url (no padding) of the UTF-8 JSON
 * `{"publicKey","scheme","signature"}`, the signature covering the exact body bytes sent.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { QkError } from '../errors';
import { isStrictDerEcdsaSignature } from './der-signature';
import { ecdsaSign, ecdsaVerify, derToRawSignature } from './ecdsa';
import {
  base64UrlDecode,
  base64UrlDecodeOrUndefined,
  base64UrlEncode,
  bytesToHex,
  hexToBytes,
  lowercaseHexToBytesOrUndefined,
  utf8Decode,
  utf8Encode,
} from './encoding';
import { apiPublicKeyFromPrivate, privateKeyBytes, type ApiKeyCurve } from './keys';

export {
  coseKeyToP256PublicKey,
  parseWebAuthnStamp,
  verifyWebAuthnStamp,
  webAuthnChallengeFor,
  type WebAuthnStamp,
  type WebAuthnVerification,
  type WebAuthnVerifyOptions,
} from './webauthn';

export const API_KEY_SCHEMES = {
  p256: 'SIGNATURE_SCHEME_TK_API_P256',
  secp256k1: 'SIGNATURE_SCHEME_TK_API_SECP256K1',
  ed25519: 'SIGNATURE_SCHEME_TK_API_ED25519',
} as const satisfies Record<ApiKeyCurve, string>;
export type ApiKeyScheme = (typeof API_KEY_SCHEMES)[ApiKeyCurve];

const curveByScheme = new Map<string, ApiKeyCurve>(Object.entries(API_KEY_SCHEMES).map(([curve, scheme]) => [scheme, curve as ApiKeyCurve]));

export function curveForScheme(scheme: string): ApiKeyCurve | undefined {
  return curveByScheme.get(scheme);
}

export const STAMP_HEADER_NAME = 'X-Stamp';

export interface StampSigner {
  curve: ApiKeyCurve;
  /** Public key in the stamp's form (compressed SEC1 hex, or raw 32-byte Ed25519 hex). */
  publicKey: string;
  /** Returns the stamp's signature hex: DER ECDSA over SHA-256(message), or raw 64-byte Ed25519 over message. */
  sign(message: Uint8Array): string | Promise<string>;
}

export interface StampVerifier {
  /** True when `signatureHex` (in the stamp's encoding for `curve`) verifies over `message`; false otherwise. */
  verify(curve: ApiKeyCurve, publicKeyHex: string, signatureHex: string, message: Uint8Array): boolean;
}

/** A verifier that answers later, e.g. off the caller's thread; same meaning as StampVerifier.verify. */
export interface AsyncStampVerifier {
  verify(curve: ApiKeyCurve, publicKeyHex: string, signatureHex: string, message: Uint8Array): Promise<boolean>;
}

export interface ApiKeyStamp {
  publicKey: string;
  scheme: ApiKeyScheme;
  signature: string;
  curve: ApiKeyCurve;
}

/** Pure (noble) signer; keeps the private key bytes for its lifetime. */
export function signerFromPrivateKey(curve: ApiKeyCurve, privateKeyHex: string): StampSigner {
  const publicKey = apiPublicKeyFromPrivate(curve, privateKeyHex);
  const secret = privateKeyBytes(privateKeyHex, `${curve} private key`);
  return {
    curve,
    publicKey,
    sign: (message) => bytesToHex(curve === 'ed25519' ? ed25519.sign(message, secret) : ecdsaSign(curve, message, secret, 'der')),
  };
}

/** Signs `body` exactly as it will be sent and returns the `X-Stamp` header. */
export async function stampBody(body: string, signer: StampSigner): Promise<{ headerName: typeof STAMP_HEADER_NAME; headerValue: string }> {
  const signature = await signer.sign(utf8Encode(body));
  const stamp = { publicKey: signer.publicKey, scheme: API_KEY_SCHEMES[signer.curve], signature };
  return { headerName: STAMP_HEADER_NAME, headerValue: base64UrlEncode(utf8Encode(JSON.stringify(stamp))) };
}

function malformed(message: string, details?: Record<string, unknown>): QkError {
  return new QkError('STAMP_MALFORMED', `X-Stamp ${message}`, details);
}

function requireHexField(stamp: Record<string, unknown>, field: 'publicKey' | 'signature'): Uint8Array {
  const value = stamp[field];
  if (typeof value !== 'string') {
    throw malformed(`field "${field}" must be a string, got ${value === undefined ? 'nothing' : typeof value}`, { field });
  }
  if (value !== value.toLowerCase()) throw malformed(`field "${field}" must be lowercase hex`, { field });
  try {
    return hexToBytes(value, `X-Stamp field "${field}"`);
  } catch (error) {
    throw malformed(`field "${field}": ${(error as QkError).message}`, { field });
  }
}

/**
 * Decodes an `X-Stamp` header value and checks its shape: known scheme, public key of the scheme's length and
 * prefix, signature of the scheme's encoding (strict DER for ECDSA, 64 bytes for Ed25519). Throws STAMP_MALFORMED.
 */
export function parseApiKeyStamp(headerValue: string): ApiKeyStamp {
  return wellFormedApiKeyStamp(headerValue) ?? parseApiKeyStampCarefully(headerValue);
}

/**
 * Every query and activity reads a stamp, so the well-formed case skips the careful parser's copies, regular
 * expressions and BigInt round trip of the DER signature: the stamp when the header is certainly well-formed, or
 * undefined, and then {@link parseApiKeyStampCarefully} decides and words the error. It never accepts a header that
 * the careful parser refuses, and what it accepts it returns as the careful parser does.
 */
export function wellFormedApiKeyStamp(headerValue: string): ApiKeyStamp | undefined {
  if (typeof headerValue !== 'string') return undefined;
  const bytes = base64UrlDecodeOrUndefined(headerValue.trim());
  if (bytes === undefined) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(utf8Decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) return undefined;
  const { publicKey, scheme, signature } = decoded as Record<string, unknown>;
  if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') return undefined;
  const curve = curveForScheme(scheme);
  const publicKeyBytes = lowercaseHexToBytesOrUndefined(publicKey);
  const signatureBytes = lowercaseHexToBytesOrUndefined(signature);
  if (curve === undefined || publicKeyBytes === undefined || signatureBytes === undefined) return undefined;
  const wellFormed =
    curve === 'ed25519'
      ? publicKeyBytes.length === 32 && signatureBytes.length === 64
      : publicKeyBytes.length === 33 &&
        (publicKeyBytes[0] === 0x02 || publicKeyBytes[0] === 0x03) &&
        isStrictDerEcdsaSignature(signatureBytes, curve);
  return wellFormed ? { publicKey, scheme: scheme as ApiKeyScheme, signature, curve } : undefined;
}

/** The reference parser behind {@link parseApiKeyStamp}: every refusal's error comes from here. */
export function parseApiKeyStampCarefully(headerValue: string): ApiKeyStamp {
  if (typeof headerValue !== 'string' || headerValue.trim() === '') throw malformed('header is missing or empty');
  let json: string;
  try {
    json = utf8Decode(base64UrlDecode(headerValue.trim(), 'X-Stamp header'), 'X-Stamp header');
  } catch (error) {
    throw malformed(`is not base64url-encoded UTF-8: ${(error as QkError).message}`);
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(json);
  } catch {
    throw malformed('does not decode to JSON');
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
    throw malformed('must decode to a JSON object with publicKey, scheme and signature');
  }
  const stamp = decoded as Record<string, unknown>;
  const { scheme } = stamp;
  if (typeof scheme !== 'string') throw malformed('field "scheme" must be a string', { field: 'scheme' });
  const curve = curveForScheme(scheme);
  if (curve === undefined) {
    throw malformed(`scheme "${scheme}" is not supported; expected one of ${Object.values(API_KEY_SCHEMES).join(', ')}`, {
      field: 'scheme',
      scheme,
    });
  }
  const publicKey = requireHexField(stamp, 'publicKey');
  const signature = requireHexField(stamp, 'signature');
  if (curve === 'ed25519') {
    if (publicKey.length !== 32) throw malformed(`Ed25519 publicKey must be 32 bytes, got ${publicKey.length}`);
    if (signature.length !== 64) throw malformed(`Ed25519 signature must be 64 bytes, got ${signature.length}`);
  } else {
    if (publicKey.length !== 33 || (publicKey[0] !== 0x02 && publicKey[0] !== 0x03)) {
      throw malformed(`${curve} publicKey must be a 33-byte compressed point (02/03 prefix), got ${publicKey.length} bytes`);
    }
    try {
      derToRawSignature(signature, curve, 'X-Stamp signature');
    } catch (error) {
      throw malformed(`signature: ${(error as QkError).message}`, { field: 'signature' });
    }
  }
  return {
    publicKey: stamp.publicKey as string,
    scheme: scheme as ApiKeyScheme,
    signature: stamp.signature as string,
    curve,
  };
}

/** Pure verifier: ECDSA accepts high-S; Ed25519 follows RFC 8032 strictly (as OpenSSL does). */
export const nobleStampVerifier: StampVerifier = {
  verify(curve, publicKeyHex, signatureHex, message) {
    let publicKey: Uint8Array;
    let signature: Uint8Array;
    try {
      publicKey = hexToBytes(publicKeyHex, 'public key');
      signature = hexToBytes(signatureHex, 'signature');
    } catch {
      return false;
    }
    if (curve !== 'ed25519') return ecdsaVerify(curve, signature, message, publicKey, 'der');
    try {
      return ed25519.verify(signature, message, publicKey, { zip215: false });
    } catch {
      return false;
    }
  },
};

/** SIGNATURE_INVALID for a well-formed stamp whose signature does not cover the body. */
export function stampSignatureInvalid(stamp: ApiKeyStamp): QkError {
  return new QkError(
    'SIGNATURE_INVALID',
    `could not verify api key signature: the ${stamp.scheme} signature does not match the request body for public key ${stamp.publicKey}`,
    { publicKey: stamp.publicKey, scheme: stamp.scheme },
  );
}

/**
 * Parses the stamp and verifies it over the body bytes as received. Throws STAMP_MALFORMED for a malformed header
 * and SIGNATURE_INVALID when the signature does not verify with the stamp's public key.
 */
export function verifyApiKeyStamp(headerValue: string, body: Uint8Array, verifier: StampVerifier = nobleStampVerifier): ApiKeyStamp {
  const stamp = parseApiKeyStamp(headerValue);
  if (!verifier.verify(stamp.curve, stamp.publicKey, stamp.signature, body)) throw stampSignatureInvalid(stamp);
  return stamp;
}

/** Activity fingerprint: "sha256:" + hex(SHA-256(exact request body)). */
export function fingerprintOf(body: Uint8Array): string {
  return `sha256:${bytesToHex(sha256(body))}`;
}
