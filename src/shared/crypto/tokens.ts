/**
 * Turnkey's signed tokens (docs/formats.md#session-tokens, docs/formats.md#otp-verification-tokens). Both are
 * ES256-style JWTs with a raw r‖s signature, but they differ in what is signed:
 *  - session JWT: SHA-256(SHA-256(header.payload)) — non-standard double hash, by the notarizer key;
 *  - OTP verification token v2: SHA-256(header.payload) — standard ES256, by the TLS-fetcher key, `exp` in ms.
 * Clocks are always passed in (`nowMs`), never read here.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { QkError } from '../errors';
import { ecdsaSignDigest, ecdsaVerifyDigest, RAW_SIGNATURE_LENGTH } from './ecdsa';
import { base64UrlDecode, base64UrlEncode, utf8Decode, utf8Encode } from './encoding';
import { p256PublicKeyFromPrivate, parseP256PublicKey, privateKeyBytes } from './keys';

/** Signs a 32-byte digest as-is and returns the raw 64-byte r‖s ECDSA P-256 signature. */
export type DigestSigner = (digest: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** A pure {@link DigestSigner} for a P-256 private key (hex); throws KEY_INVALID for a bad key. */
export function digestSignerFromPrivateKey(privateKeyHex: string): DigestSigner {
  p256PublicKeyFromPrivate(privateKeyHex, true);
  const secret = privateKeyBytes(privateKeyHex, 'P-256 signing key');
  return (digest) => ecdsaSignDigest('p256', digest, secret, 'raw');
}

export type SessionType = 'SESSION_TYPE_READ_ONLY' | 'SESSION_TYPE_READ_WRITE';

export interface SessionJwtClaims {
  /** NumericDate, seconds. */
  exp: number;
  /** Compressed P-256 hex of the session key. */
  public_key: string;
  /** A SessionType, or the session profile's name when a profile applied. */
  session_type: string;
  user_id: string;
  organization_id: string;
  session_profile_id?: string;
  scope?: string;
}

export interface VerificationTokenClaims {
  /** Millisecond epoch, as a decimal string. */
  exp: string;
  id: string;
  organization_id: string;
  verification_type: string;
  contact: string;
  /** Compressed P-256 hex of the client key bound to this verification. */
  public_key: string;
}

const SESSION_HEADER = { alg: 'ES256', typ: 'JWT' } as const;
const VERIFICATION_TOKEN_HEADER = { typ: 'JWT', alg: 'ES256' } as const;

function tokenInvalid(what: string, message: string, details?: Record<string, unknown>): QkError {
  return new QkError('TOKEN_INVALID', `${what} ${message}`, details);
}

function encodeSegment(value: object): string {
  return base64UrlEncode(utf8Encode(JSON.stringify(value)));
}

async function encodeJwt(header: object, claims: object, digestOf: (input: Uint8Array) => Uint8Array, sign: DigestSigner) {
  const signingInput = `${encodeSegment(header)}.${encodeSegment(claims)}`;
  const signature = await sign(digestOf(utf8Encode(signingInput)));
  if (signature.length !== RAW_SIGNATURE_LENGTH) {
    throw new QkError('INTERNAL', `JWT signer returned ${signature.length} bytes; expected a raw 64-byte r‖s signature`);
  }
  return `${signingInput}.${base64UrlEncode(signature)}`;
}

interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signingInput: Uint8Array;
  signature: Uint8Array;
}

function decodeSegment(segment: string, what: string, part: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Decode(base64UrlDecode(segment, `${what} ${part}`), `${what} ${part}`));
  } catch (error) {
    throw tokenInvalid(what, `${part} is not base64url JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw tokenInvalid(what, `${part} must be a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function decodeJwt(jwt: string, what: string): DecodedJwt {
  if (typeof jwt !== 'string') throw tokenInvalid(what, 'must be a string');
  const parts = jwt.split('.');
  if (parts.length !== 3) throw tokenInvalid(what, `must have 3 dot-separated parts, got ${parts.length}`);
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeSegment(headerPart, what, 'header');
  if (header.alg !== 'ES256') throw tokenInvalid(what, `header alg must be "ES256", got ${JSON.stringify(header.alg)}`);
  if (header.typ !== 'JWT') throw tokenInvalid(what, `header typ must be "JWT", got ${JSON.stringify(header.typ)}`);
  let signature: Uint8Array;
  try {
    signature = base64UrlDecode(signaturePart, `${what} signature`);
  } catch (error) {
    throw tokenInvalid(what, (error as Error).message);
  }
  if (signature.length !== RAW_SIGNATURE_LENGTH) {
    throw tokenInvalid(what, `signature must be ${RAW_SIGNATURE_LENGTH} bytes r‖s, got ${signature.length}`);
  }
  return {
    header,
    claims: decodeSegment(payloadPart, what, 'payload'),
    signingInput: utf8Encode(`${headerPart}.${payloadPart}`),
    signature,
  };
}

function verifySignature(decoded: DecodedJwt, digest: Uint8Array, publicKeyHex: string, what: string): void {
  const publicKey = parseP256PublicKey(publicKeyHex, `${what} signer public key`).toBytes(false);
  if (!ecdsaVerifyDigest('p256', decoded.signature, digest, publicKey, 'raw')) {
    throw tokenInvalid(what, 'signature does not verify with the expected signer key');
  }
}

function requireStringClaims<K extends string>(claims: Record<string, unknown>, names: readonly K[], what: string): void {
  for (const name of names) {
    if (typeof claims[name] !== 'string' || claims[name] === '') {
      throw tokenInvalid(what, `claim "${name}" must be a non-empty string`, { claim: name });
    }
  }
}

const doubleSha256 = (input: Uint8Array) => sha256(sha256(input));

// ---------------------------------------------------------------------------------------------------------------
// Session JWTs

export function encodeSessionJwt(claims: SessionJwtClaims, sign: DigestSigner): Promise<string> {
  if (!Number.isSafeInteger(claims.exp)) throw new QkError('INTERNAL', 'session JWT exp must be an integer number of seconds');
  return encodeJwt(SESSION_HEADER, claims, doubleSha256, sign);
}

/**
 * Reads a session JWT's claims WITHOUT verifying its signature (the client's view of its own session).
 * Throws TOKEN_INVALID when the token or its required claims are malformed.
 */
export function parseSessionJwt(jwt: string): SessionJwtClaims {
  return sessionClaimsOf(decodeJwt(jwt, 'session JWT'));
}

function sessionClaimsOf(decoded: DecodedJwt): SessionJwtClaims {
  const { claims } = decoded;
  requireStringClaims(claims, ['public_key', 'session_type', 'user_id', 'organization_id'] as const, 'session JWT');
  if (!Number.isSafeInteger(claims.exp)) {
    throw tokenInvalid('session JWT', 'claim "exp" must be an integer NumericDate (seconds)', { claim: 'exp' });
  }
  for (const optional of ['session_profile_id', 'scope'] as const) {
    if (claims[optional] !== undefined && typeof claims[optional] !== 'string') {
      throw tokenInvalid('session JWT', `claim "${optional}" must be a string when present`, { claim: optional });
    }
  }
  return claims as unknown as SessionJwtClaims;
}

/** Verifies signature (double SHA-256), claims and expiry. TOKEN_INVALID / TOKEN_EXPIRED. */
export function verifySessionJwt(jwt: string, signerPublicKey: string, nowMs: number): SessionJwtClaims {
  const decoded = decodeJwt(jwt, 'session JWT');
  verifySignature(decoded, doubleSha256(decoded.signingInput), signerPublicKey, 'session JWT');
  const claims = sessionClaimsOf(decoded);
  if (nowMs >= claims.exp * 1000) {
    throw new QkError('TOKEN_EXPIRED', `session JWT expired at ${new Date(claims.exp * 1000).toISOString()}`, { exp: claims.exp });
  }
  return claims;
}

// ---------------------------------------------------------------------------------------------------------------
// OTP verification tokens (v2)

const VERIFICATION_TOKEN_CLAIMS = ['exp', 'id', 'organization_id', 'verification_type', 'contact', 'public_key'] as const;

export function encodeVerificationToken(claims: VerificationTokenClaims, sign: DigestSigner): Promise<string> {
  if (!/^\d+$/.test(claims.exp)) throw new QkError('INTERNAL', 'verification token exp must be a millisecond epoch string');
  return encodeJwt(VERIFICATION_TOKEN_HEADER, claims, sha256, sign);
}

/** Verifies signature (single SHA-256), the six string claims and expiry (`exp` in ms). TOKEN_INVALID / TOKEN_EXPIRED. */
export function verifyVerificationToken(jwt: string, signerPublicKey: string, nowMs: number): VerificationTokenClaims {
  const what = 'verification token';
  const decoded = decodeJwt(jwt, what);
  verifySignature(decoded, sha256(decoded.signingInput), signerPublicKey, what);
  requireStringClaims(decoded.claims, VERIFICATION_TOKEN_CLAIMS, what);
  const claims = decoded.claims as unknown as VerificationTokenClaims;
  if (!/^\d+$/.test(claims.exp)) {
    throw tokenInvalid(what, 'claim "exp" must be a millisecond epoch in decimal digits', { claim: 'exp' });
  }
  const expMs = Number(claims.exp);
  if (nowMs >= expMs) {
    throw new QkError('TOKEN_EXPIRED', `verification token expired at ${new Date(expMs).toISOString()}`, { exp: claims.exp });
  }
  return claims;
}
