/**
 * Passkey registration as signup_v2 and create_authenticators send it (`authenticators[].attestation`): the
 * clientDataJSON, the CBOR attestationObject and its authenticator data (WebAuthn §6.1, §6.5), checked the way
 * a relying party does at registration (WebAuthn §7.1). Only ES256 (COSE alg -7, EC2, P-256) credentials are
 * accepted, with attestation format "none" or "packed" self-attestation; certificate-chain attestation is refused.
 *
 * `credentialId` is the base64url of the raw credential id (what Turnkey's SDKs send, `PublicKeyCredential.id`;
 * the swagger's "cbor encoded" wording does not match the clients).
 */
import { decodeCBOR, decodePartialCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { sha256 } from '@noble/hashes/sha2.js';
import { QkError } from '../../shared/errors';
import { ecdsaVerify } from '../../shared/crypto/ecdsa';
import { base64UrlDecode, base64UrlEncode, bytesToHex, concatBytes, hexToBytes, utf8Decode, utf8Encode } from '../../shared/crypto/encoding';
import { compressP256 } from '../../shared/crypto/keys';
import { coseKeyToP256PublicKey, type WebAuthnVerifyOptions } from '../../shared/crypto/webauthn';
import { trimTrailing } from '../../shared/text';

export const AUTHENTICATOR_TRANSPORTS = [
  'AUTHENTICATOR_TRANSPORT_BLE',
  'AUTHENTICATOR_TRANSPORT_INTERNAL',
  'AUTHENTICATOR_TRANSPORT_NFC',
  'AUTHENTICATOR_TRANSPORT_USB',
  'AUTHENTICATOR_TRANSPORT_HYBRID',
] as const;
export type AuthenticatorTransport = (typeof AUTHENTICATOR_TRANSPORTS)[number];

/** The wire form (`v1Attestation`): all byte fields base64url. */
export interface WebAuthnAttestation {
  credentialId: string;
  clientDataJson: string;
  attestationObject: string;
  transports: AuthenticatorTransport[];
}

export interface WebAuthnRegistration {
  /** The challenge the client generated for navigator.credentials.create, base64url. */
  challenge: string;
  attestation: WebAuthnAttestation;
}

export interface ParseRegistrationOptions extends WebAuthnVerifyOptions {
  /** Prefix for field names in error messages, e.g. "authenticators[1]."; empty by default. */
  fieldPrefix?: string;
}

/** Named after go-webauthn's `AttestationType`, which stores the statement format. */
export type AttestationType = 'none' | 'packed';

export interface ParsedRegistration {
  /** base64url (no padding) of the raw credential id. */
  credentialId: string;
  /** Compressed P-256 public key, hex. */
  publicKey: string;
  /** Authenticator model id, as a lowercase UUID. */
  aaguid: string;
  attestationType: AttestationType;
  signCount: number;
  transports: AuthenticatorTransport[];
  origin: string;
  userVerified: boolean;
}

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_CREDENTIAL_DATA = 0x40;
const FLAG_EXTENSION_DATA = 0x80;
const RP_ID_HASH_LENGTH = 32;
/** rpIdHash(32) ‖ flags(1) ‖ signCount(4). */
const AUTH_DATA_HEADER_LENGTH = 37;
const AAGUID_LENGTH = 16;
const COSE_ALG_ES256 = -7;

export function parseWebAuthnRegistration(registration: WebAuthnRegistration, options: ParseRegistrationOptions = {}): ParsedRegistration {
  const prefix = options.fieldPrefix ?? '';
  const field = (name: string) => `${prefix}${name}`;
  const invalid = (name: string, problem: string, details?: Record<string, unknown>) =>
    new QkError('REQUEST_INVALID', `${field(name)} ${problem}`, { field: field(name), ...details });

  const { challenge, attestation } = registration;
  if (typeof challenge !== 'string' || challenge === '') throw invalid('challenge', 'must be a non-empty base64url string');
  if (typeof attestation !== 'object' || attestation === null) {
    throw invalid('attestation', 'must be an object with credentialId, clientDataJson, attestationObject and transports');
  }
  const decodeField = (name: keyof Omit<WebAuthnAttestation, 'transports'>): Uint8Array => {
    const value: unknown = attestation[name];
    if (typeof value !== 'string' || value === '') throw invalid(`attestation.${name}`, 'must be a non-empty base64url string');
    try {
      return base64UrlDecode(value, field(`attestation.${name}`));
    } catch (error) {
      throw invalid(`attestation.${name}`, `is not base64url: ${(error as Error).message}`);
    }
  };

  const transports = parseTransports(attestation.transports, (suffix, problem) => invalid(`attestation.transports${suffix}`, problem));
  const claimedCredentialId = decodeField('credentialId');
  const clientDataBytes = decodeField('clientDataJson');
  const attestationObjectBytes = decodeField('attestationObject');

  const clientData = parseClientData(clientDataBytes, (problem) => invalid('attestation.clientDataJson', problem));
  if (clientData.type !== 'webauthn.create') {
    throw invalid('attestation.clientDataJson', `has type "${clientData.type}", expected "webauthn.create"`);
  }
  if (stripPadding(clientData.challenge) !== stripPadding(challenge)) {
    throw invalid('attestation.clientDataJson', 'challenge does not equal the registration challenge', {
      challenge,
      clientDataChallenge: clientData.challenge,
    });
  }
  const { allowedOrigins } = options;
  if (allowedOrigins !== undefined && !allowedOrigins.includes('*') && !allowedOrigins.includes(clientData.origin)) {
    throw invalid('attestation.clientDataJson', `origin "${clientData.origin}" is not among the allowed WebAuthn origins`, {
      origin: clientData.origin,
      allowedOrigins,
    });
  }

  const attestationInvalid = (problem: string) => invalid('attestation.attestationObject', problem);
  const { fmt, attStmt, authData } = parseAttestationObject(attestationObjectBytes, attestationInvalid);
  const parsedAuthData = parseAuthenticatorData(authData, attestationInvalid);
  if (options.rpId !== undefined && bytesToHex(parsedAuthData.rpIdHash) !== bytesToHex(sha256(utf8Encode(options.rpId)))) {
    throw attestationInvalid(`authData.rpIdHash is not SHA-256 of rpId "${options.rpId}"`);
  }
  if (bytesToHex(parsedAuthData.credentialId) !== bytesToHex(claimedCredentialId)) {
    throw invalid('attestation.credentialId', 'does not match the credential id in the attestationObject authData');
  }
  const publicKey = compressP256(parsedAuthData.publicKeyUncompressed);

  if (fmt === 'none') {
    if (attStmt.size !== 0) throw attestationInvalid('has fmt "none" but a non-empty attStmt');
  } else if (fmt === 'packed') {
    verifyPackedSelfAttestation(attStmt, concatBytes(authData, sha256(clientDataBytes)), parsedAuthData, attestationInvalid);
  } else {
    throw attestationInvalid(`has attestation format "${fmt}"; only "none" and "packed" self-attestation are supported`);
  }

  return {
    credentialId: base64UrlEncode(parsedAuthData.credentialId),
    publicKey,
    aaguid: formatUuid(parsedAuthData.aaguid),
    attestationType: fmt,
    signCount: parsedAuthData.signCount,
    transports,
    origin: clientData.origin,
    userVerified: (parsedAuthData.flags & FLAG_USER_VERIFIED) !== 0,
  };
}

type Problem = (problem: string) => QkError;

function parseTransports(value: unknown, problem: (fieldSuffix: string, problem: string) => QkError): AuthenticatorTransport[] {
  if (!Array.isArray(value)) throw problem('', 'must be an array (empty when unknown)');
  return value.map((transport: unknown, index) => {
    if (!(AUTHENTICATOR_TRANSPORTS as readonly unknown[]).includes(transport)) {
      throw problem(`[${index}]`, `is ${JSON.stringify(transport)}; expected one of ${AUTHENTICATOR_TRANSPORTS.join(', ')}`);
    }
    return transport as AuthenticatorTransport;
  });
}

function parseClientData(bytes: Uint8Array, problem: Problem): { type: string; challenge: string; origin: string } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(utf8Decode(bytes, 'clientDataJSON'));
  } catch (error) {
    throw problem(`is not UTF-8 JSON: ${(error as Error).message}`);
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) throw problem('is not a JSON object');
  const { type, challenge, origin } = decoded as Record<string, unknown>;
  for (const [name, member] of Object.entries({ type, challenge, origin })) {
    if (typeof member !== 'string') throw problem(`member "${name}" must be a string`);
  }
  return { type: type as string, challenge: challenge as string, origin: origin as string };
}

function parseAttestationObject(bytes: Uint8Array, problem: Problem): { fmt: string; attStmt: Map<string | number, CBORType>; authData: Uint8Array } {
  let decoded: CBORType;
  try {
    decoded = decodeCBOR(bytes);
  } catch (error) {
    throw problem(`is not valid CBOR: ${(error as Error).message}`);
  }
  if (!(decoded instanceof Map)) throw problem('must be a CBOR map with fmt, attStmt and authData');
  const fmt = decoded.get('fmt');
  const attStmt = decoded.get('attStmt');
  const authData = decoded.get('authData');
  if (typeof fmt !== 'string') throw problem('member "fmt" must be a text string');
  if (!(attStmt instanceof Map)) throw problem('member "attStmt" must be a map');
  if (!(authData instanceof Uint8Array)) throw problem('member "authData" must be a byte string');
  return { fmt, attStmt, authData };
}

interface AuthenticatorData {
  rpIdHash: Uint8Array;
  flags: number;
  signCount: number;
  aaguid: Uint8Array;
  credentialId: Uint8Array;
  publicKeyUncompressed: string;
}

/** rpIdHash ‖ flags ‖ signCount ‖ aaguid(16) ‖ credentialIdLength(2, BE) ‖ credentialId ‖ COSE key ‖ extensions? */
function parseAuthenticatorData(authData: Uint8Array, problem: Problem): AuthenticatorData {
  const minimum = AUTH_DATA_HEADER_LENGTH + AAGUID_LENGTH + 2;
  if (authData.length < minimum) {
    throw problem(`authData is ${authData.length} bytes; registration authData with attested credential data needs at least ${minimum}`);
  }
  const view = new DataView(authData.buffer, authData.byteOffset, authData.byteLength);
  const flags = view.getUint8(RP_ID_HASH_LENGTH);
  if ((flags & FLAG_USER_PRESENT) === 0) throw problem('authData flags lack user presence (UP)');
  if ((flags & FLAG_ATTESTED_CREDENTIAL_DATA) === 0) throw problem('authData flags lack attested credential data (AT)');

  let offset = AUTH_DATA_HEADER_LENGTH;
  const aaguid = authData.slice(offset, offset + AAGUID_LENGTH);
  offset += AAGUID_LENGTH;
  const credentialIdLength = view.getUint16(offset, false);
  offset += 2;
  if (credentialIdLength === 0 || offset + credentialIdLength > authData.length) {
    throw problem(`authData credentialIdLength ${credentialIdLength} does not fit the ${authData.length}-byte authData`);
  }
  const credentialId = authData.slice(offset, offset + credentialIdLength);
  offset += credentialIdLength;

  const coseKeyLength = cborItemLength(authData, offset, (reason) => problem(`authData credentialPublicKey is not valid CBOR: ${reason}`));
  let publicKeyUncompressed: string;
  try {
    publicKeyUncompressed = coseKeyToP256PublicKey(authData.subarray(offset, offset + coseKeyLength));
  } catch (error) {
    throw problem(`authData credentialPublicKey is not supported: ${(error as Error).message}; only ES256 (COSE alg -7) P-256 keys are accepted`);
  }
  offset += coseKeyLength;

  if ((flags & FLAG_EXTENSION_DATA) !== 0) {
    offset += cborItemLength(authData, offset, (reason) => problem(`authData extensions are not valid CBOR: ${reason}`));
  }
  if (offset !== authData.length) {
    throw problem(`authData has ${authData.length - offset} unexpected trailing bytes after the credential public key`);
  }

  return {
    rpIdHash: authData.slice(0, RP_ID_HASH_LENGTH),
    flags,
    signCount: view.getUint32(RP_ID_HASH_LENGTH + 1, false),
    aaguid,
    credentialId,
    publicKeyUncompressed,
  };
}

function cborItemLength(bytes: Uint8Array, offset: number, problem: Problem): number {
  if (offset >= bytes.length) throw problem('it is missing');
  try {
    return decodePartialCBOR(bytes, offset)[1];
  } catch (error) {
    throw problem((error as Error).message);
  }
}

/** Packed self-attestation (WebAuthn §8.2): `sig` by the credential key itself over authData ‖ SHA-256(clientDataJSON). */
function verifyPackedSelfAttestation(
  attStmt: Map<string | number, CBORType>,
  signedData: Uint8Array,
  authData: AuthenticatorData,
  problem: Problem,
): void {
  if (attStmt.has('x5c') || attStmt.has('ecdaaKeyId')) {
    throw problem('has a "packed" attStmt with a certificate chain (x5c); only packed self-attestation is supported');
  }
  const alg = attStmt.get('alg');
  const sig = attStmt.get('sig');
  if (alg !== COSE_ALG_ES256)
    throw problem(
      `packed attStmt alg is ${typeof alg === 'number' ? alg : `of type ${typeof alg}`}; self-attestation must use the credential's alg -7 (ES256)`,
    );
  if (!(sig instanceof Uint8Array) || sig.length === 0) throw problem('packed attStmt "sig" must be a non-empty byte string');
  const publicKey = hexToBytes(authData.publicKeyUncompressed, 'credential public key');
  if (!ecdsaVerify('p256', sig, signedData, publicKey, 'der')) {
    throw problem('packed self-attestation signature does not verify with the credential public key');
  }
}

function stripPadding(base64url: string): string {
  return trimTrailing(base64url, '=');
}

function formatUuid(bytes: Uint8Array): string {
  const hex = bytesToHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
