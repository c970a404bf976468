/**
 * `X-Stamp-WebAuthn` (docs/service.md#passkeys): a plain-JSON header carrying a WebAuthn assertion whose challenge is
 * the UTF-8 bytes of hex(SHA-256(body)). Only ES256 (P-256) passkeys are supported.
 */
import { decodeCBOR } from '@levischuck/tiny-cbor';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { QkError } from '../errors';
import { ecdsaVerify } from './ecdsa';
import { base64UrlDecode, base64UrlEncode, bytesToHex, concatBytes, utf8Decode, utf8Encode } from './encoding';
import { parseP256PublicKey } from './keys';
import { trimTrailing } from '../text';

/** The header a WebAuthn stamp travels in (the service matches it in any letter case). */
export const WEBAUTHN_STAMP_HEADER_NAME = 'X-Stamp-WebAuthn';

export interface WebAuthnStamp {
  authenticatorData: Uint8Array;
  clientDataJson: Uint8Array;
  /** base64url credential id, as sent (used to look up the authenticator). */
  credentialId: string;
  /** DER ECDSA signature. */
  signature: Uint8Array;
}

export interface WebAuthnVerifyOptions {
  /** Allowed `clientDataJSON.origin` values; absent or containing "*" allows every origin. */
  allowedOrigins?: string[];
  /** When given, `authenticatorData.rpIdHash` must equal SHA-256(rpId). */
  rpId?: string;
}

export interface WebAuthnVerification {
  credentialId: string;
  origin: string;
  userVerified: boolean;
  signCount: number;
}

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
/** rpIdHash(32) ‖ flags(1) ‖ signCount(4). */
const AUTHENTICATOR_DATA_MIN_LENGTH = 37;

const STAMP_FIELDS = ['authenticatorData', 'clientDataJson', 'credentialId', 'signature'] as const;

function malformed(message: string, details?: Record<string, unknown>): QkError {
  return new QkError('STAMP_MALFORMED', `X-Stamp-WebAuthn ${message}`, details);
}

/** The challenge a passkey must sign for this body: UTF-8 bytes of the lowercase hex SHA-256. */
export function webAuthnChallengeFor(body: Uint8Array): Uint8Array {
  return utf8Encode(bytesToHex(sha256(body)));
}

/** Parses the header value (plain JSON, base64url members). Throws STAMP_MALFORMED naming the bad member. */
export function parseWebAuthnStamp(headerValue: string): WebAuthnStamp {
  if (typeof headerValue !== 'string' || headerValue.trim() === '') throw malformed('header is missing or empty');
  let decoded: unknown;
  try {
    decoded = JSON.parse(headerValue);
  } catch {
    throw malformed('is not JSON (the header carries plain JSON, not base64url)');
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
    throw malformed(`must be a JSON object with ${STAMP_FIELDS.join(', ')}`);
  }
  const record = decoded as Record<string, unknown>;
  const bytesOf = (field: (typeof STAMP_FIELDS)[number]): Uint8Array => {
    const value = record[field];
    if (typeof value !== 'string' || value === '') {
      throw malformed(`field "${field}" must be a non-empty base64url string`, { field });
    }
    try {
      return base64UrlDecode(value, `X-Stamp-WebAuthn field "${field}"`);
    } catch (error) {
      throw malformed(`field "${field}": ${(error as QkError).message}`, { field });
    }
  };
  const stamp = {
    authenticatorData: bytesOf('authenticatorData'),
    clientDataJson: bytesOf('clientDataJson'),
    credentialId: base64UrlEncode(bytesOf('credentialId')),
    signature: bytesOf('signature'),
  };
  if (stamp.authenticatorData.length < AUTHENTICATOR_DATA_MIN_LENGTH) {
    throw malformed(`field "authenticatorData" must be at least ${AUTHENTICATOR_DATA_MIN_LENGTH} bytes, got ${stamp.authenticatorData.length}`, {
      field: 'authenticatorData',
    });
  }
  return stamp;
}

/** The header value for `stamp`: plain JSON of its four members, the bytes as base64url (what parseWebAuthnStamp reads). */
export function webAuthnStampHeaderValue(stamp: WebAuthnStamp): string {
  return JSON.stringify({
    authenticatorData: base64UrlEncode(stamp.authenticatorData),
    clientDataJson: base64UrlEncode(stamp.clientDataJson),
    credentialId: stamp.credentialId,
    signature: base64UrlEncode(stamp.signature),
  });
}

interface ClientData {
  type: string;
  challenge: string;
  origin: string;
}

function parseClientData(bytes: Uint8Array): ClientData {
  let decoded: unknown;
  try {
    decoded = JSON.parse(utf8Decode(bytes, 'clientDataJSON'));
  } catch (error) {
    throw malformed(`clientDataJSON is not UTF-8 JSON: ${(error as Error).message}`, { field: 'clientDataJson' });
  }
  if (typeof decoded !== 'object' || decoded === null) throw malformed('clientDataJSON is not a JSON object');
  const { type, challenge, origin } = decoded as Record<string, unknown>;
  if (typeof type !== 'string' || typeof challenge !== 'string' || typeof origin !== 'string') {
    throw malformed('clientDataJSON must have string members type, challenge and origin', { field: 'clientDataJson' });
  }
  return { type, challenge, origin };
}

function signatureInvalid(message: string, details?: Record<string, unknown>): QkError {
  return new QkError('SIGNATURE_INVALID', `could not verify WebAuthn signature: ${message}`, details);
}

/**
 * Verifies an assertion against the body bytes as received and the stored credential key (P-256 hex, compressed or
 * uncompressed). Throws SIGNATURE_INVALID for a wrong type, challenge, origin, rpId, missing user presence or a bad
 * signature; STAMP_MALFORMED for an unparseable clientDataJSON; KEY_INVALID for a bad credential key.
 */
export function verifyWebAuthnStamp(
  stamp: WebAuthnStamp,
  body: Uint8Array,
  credentialPublicKey: string,
  options: WebAuthnVerifyOptions = {},
): WebAuthnVerification {
  const publicKey = parseP256PublicKey(credentialPublicKey, 'WebAuthn credential public key').toBytes(false);
  const clientData = parseClientData(stamp.clientDataJson);
  if (clientData.type !== 'webauthn.get') {
    throw signatureInvalid(`clientDataJSON.type is "${clientData.type}", expected "webauthn.get"`);
  }
  const expectedChallenge = base64UrlEncode(webAuthnChallengeFor(body));
  if (trimTrailing(clientData.challenge, '=') !== expectedChallenge) {
    throw signatureInvalid('clientDataJSON.challenge is not base64url(hex(SHA-256(request body)))', {
      expectedChallenge,
      challenge: clientData.challenge,
    });
  }
  const { allowedOrigins } = options;
  if (allowedOrigins !== undefined && !allowedOrigins.includes('*') && !allowedOrigins.includes(clientData.origin)) {
    throw signatureInvalid(`origin "${clientData.origin}" is not among the allowed WebAuthn origins`, {
      origin: clientData.origin,
      allowedOrigins,
    });
  }
  const authenticatorData = stamp.authenticatorData;
  if (options.rpId !== undefined && bytesToHex(authenticatorData.subarray(0, 32)) !== bytesToHex(sha256(utf8Encode(options.rpId)))) {
    throw signatureInvalid(`authenticatorData.rpIdHash does not match rpId "${options.rpId}"`, { rpId: options.rpId });
  }
  const flags = authenticatorData[32];
  if (flags === undefined || (flags & FLAG_USER_PRESENT) === 0) throw signatureInvalid('authenticatorData does not have the user-present flag set');
  const signedData = concatBytes(authenticatorData, sha256(stamp.clientDataJson));
  if (!ecdsaVerify('p256', stamp.signature, signedData, publicKey, 'der')) {
    throw signatureInvalid(`the ES256 signature does not verify with the credential key for ${stamp.credentialId}`, {
      credentialId: stamp.credentialId,
    });
  }
  const signCount = new DataView(authenticatorData.buffer, authenticatorData.byteOffset + 33, 4).getUint32(0, false);
  return {
    credentialId: stamp.credentialId,
    origin: clientData.origin,
    userVerified: (flags & FLAG_USER_VERIFIED) !== 0,
    signCount,
  };
}

const COSE_KEY_TYPE = 1;
const COSE_ALGORITHM = 3;
const COSE_EC2_CURVE = -1;
const COSE_EC2_X = -2;
const COSE_EC2_Y = -3;
const COSE_KTY_EC2 = 2;
const COSE_ALG_ES256 = -7;
const COSE_CRV_P256 = 1;

/**
 * Converts a COSE_Key (as found in a passkey's attested credential data) into the uncompressed P-256 public key hex.
 * Accepts only kty EC2, alg ES256 (-7), crv P-256 (1). Throws KEY_INVALID naming the offending member.
 */
export function coseKeyToP256PublicKey(coseKey: Uint8Array): string {
  let decoded: unknown;
  try {
    decoded = decodeCBOR(coseKey);
  } catch (error) {
    throw new QkError('KEY_INVALID', `COSE key is not valid CBOR: ${(error as Error).message}`);
  }
  if (!(decoded instanceof Map)) throw new QkError('KEY_INVALID', 'COSE key must be a CBOR map');
  const expectMember = (label: number, expected: number, name: string) => {
    const value: unknown = decoded.get(label);
    if (value !== expected) {
      throw new QkError('KEY_INVALID', `COSE key ${name} (label ${label}) must be ${expected}, got ${String(value)}`, { label });
    }
  };
  expectMember(COSE_KEY_TYPE, COSE_KTY_EC2, 'kty');
  expectMember(COSE_ALGORITHM, COSE_ALG_ES256, 'alg');
  expectMember(COSE_EC2_CURVE, COSE_CRV_P256, 'crv');
  const coordinate = (label: number, name: string): Uint8Array => {
    const value: unknown = decoded.get(label);
    if (!(value instanceof Uint8Array) || value.length !== 32) {
      throw new QkError('KEY_INVALID', `COSE key ${name} coordinate (label ${label}) must be a 32-byte string`, { label });
    }
    return value;
  };
  const point = concatBytes(Uint8Array.of(0x04), coordinate(COSE_EC2_X, 'x'), coordinate(COSE_EC2_Y, 'y'));
  try {
    return p256.Point.fromBytes(point).toHex(false);
  } catch (error) {
    throw new QkError('KEY_INVALID', `COSE key x/y is not a point on P-256: ${(error as Error).message}`);
  }
}
