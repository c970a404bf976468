/**
 * A software passkey for tests: one ES256 (P-256) credential that registers the way a browser's
 * navigator.credentials.create result reaches signup_v2 / create_authenticators, and signs `X-Stamp-WebAuthn`
 * assertions the way Turnkey's WebAuthn stamper does (docs/service.md#passkeys).
 *
 * The encoders are exported so tests can build deliberately malformed registrations from correct parts.
 */
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { ecdsaSign } from '../../src/shared/crypto/ecdsa';
import { base64UrlEncode, concatBytes, hexToBytes, utf8Encode } from '../../src/shared/crypto/encoding';
import { webAuthnChallengeFor } from '../../src/shared/crypto/webauthn';
import type { AuthenticatorTransport, WebAuthnAttestation } from '../../src/service/auth/webauthn-attestation';

export const FLAGS = { userPresent: 0x01, userVerified: 0x04, attestedCredentialData: 0x40, extensionData: 0x80 } as const;

export type SoftAttestationFormat = 'none' | 'packed';

export interface SoftAuthenticatorOptions {
  rpId: string;
  origin: string;
  /** Lowercase UUID reported as the authenticator model; all zeros (as most platform passkeys send) by default. */
  aaguid?: string;
  transports?: AuthenticatorTransport[];
  /** False: reports a sign count of 0 on every assertion, as most synced passkeys do. True by default. */
  counts?: boolean;
}

export interface SoftAuthenticator {
  /** base64url (no padding) raw credential id. */
  readonly credentialId: string;
  /** Compressed P-256 public key hex, as the service stores it. */
  readonly publicKey: string;
  readonly signCount: number;
  /** The `attestation` member of a signup_v2 / create_authenticators authenticator, for this base64url challenge. */
  register(challenge: string, format?: SoftAttestationFormat): WebAuthnAttestation;
  /** The `X-Stamp-WebAuthn` header value for a request body sent exactly as `body`. */
  assert(body: string): string;
  /** A copy of this credential (same key and id) that counts on from this authenticator's count by itself. */
  clone(): SoftAuthenticator;
}

export interface AttestedCredential {
  aaguid: Uint8Array;
  credentialId: Uint8Array;
  coseKey: Uint8Array;
}

export function encodeAuthenticatorData(input: {
  rpId: string;
  flags: number;
  signCount: number;
  attestedCredential?: AttestedCredential;
  extensions?: Uint8Array;
}): Uint8Array {
  const header = new Uint8Array(37);
  header.set(sha256(utf8Encode(input.rpId)), 0);
  header[32] = input.flags;
  new DataView(header.buffer).setUint32(33, input.signCount, false);
  const parts: Uint8Array[] = [header];
  if (input.attestedCredential) {
    const { aaguid, credentialId, coseKey } = input.attestedCredential;
    const length = new Uint8Array(2);
    new DataView(length.buffer).setUint16(0, credentialId.length, false);
    parts.push(aaguid, length, credentialId, coseKey);
  }
  if (input.extensions) parts.push(input.extensions);
  return concatBytes(...parts);
}

/** COSE_Key for an EC2 key; alg and crv are parameters so tests can produce unsupported ones. */
export function encodeEc2CoseKey(uncompressedPoint: Uint8Array, alg = -7, crv = 1): Uint8Array {
  return encodeCBOR(
    new Map<number, CBORType>([
      [1, 2],
      [3, alg],
      [-1, crv],
      [-2, uncompressedPoint.slice(1, 33)],
      [-3, uncompressedPoint.slice(33, 65)],
    ]),
  );
}

export function encodeAttestationObject(fmt: string, attStmt: Map<string, CBORType>, authData: Uint8Array): Uint8Array {
  return encodeCBOR(
    new Map<string, CBORType>([
      ['fmt', fmt],
      ['attStmt', attStmt],
      ['authData', authData],
    ]),
  );
}

export function encodeClientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Uint8Array {
  return utf8Encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

export function createSoftAuthenticator(options: SoftAuthenticatorOptions): SoftAuthenticator {
  return softAuthenticator(options, { secretKey: p256.utils.randomSecretKey(), rawCredentialId: randomBytes(32), signCount: 0 });
}

function softAuthenticator(
  options: SoftAuthenticatorOptions,
  credential: { secretKey: Uint8Array; rawCredentialId: Uint8Array; signCount: number },
): SoftAuthenticator {
  const { secretKey, rawCredentialId } = credential;
  const publicKeyPoint = p256.getPublicKey(secretKey, false);
  const aaguid = hexToBytes((options.aaguid ?? '00000000-0000-0000-0000-000000000000').replaceAll('-', ''), 'aaguid');
  const transports = options.transports ?? ['AUTHENTICATOR_TRANSPORT_INTERNAL', 'AUTHENTICATOR_TRANSPORT_HYBRID'];
  let signCount = credential.signCount;

  const sign = (authenticatorData: Uint8Array, clientDataJson: Uint8Array) =>
    ecdsaSign('p256', concatBytes(authenticatorData, sha256(clientDataJson)), secretKey, 'der');

  return {
    credentialId: base64UrlEncode(rawCredentialId),
    publicKey: p256.Point.fromBytes(publicKeyPoint).toHex(true),
    get signCount() {
      return signCount;
    },
    register(challenge, format = 'none') {
      const clientDataJson = encodeClientData('webauthn.create', challenge, options.origin);
      const authData = encodeAuthenticatorData({
        rpId: options.rpId,
        flags: FLAGS.userPresent | FLAGS.userVerified | FLAGS.attestedCredentialData,
        signCount,
        attestedCredential: { aaguid, credentialId: rawCredentialId, coseKey: encodeEc2CoseKey(publicKeyPoint) },
      });
      const attStmt =
        format === 'packed'
          ? new Map<string, CBORType>([
              ['alg', -7],
              ['sig', sign(authData, clientDataJson)],
            ])
          : new Map<string, CBORType>();
      return {
        credentialId: base64UrlEncode(rawCredentialId),
        clientDataJson: base64UrlEncode(clientDataJson),
        attestationObject: base64UrlEncode(encodeAttestationObject(format, attStmt, authData)),
        transports: [...transports],
      };
    },
    assert(body) {
      if (options.counts !== false) signCount += 1;
      const challenge = base64UrlEncode(webAuthnChallengeFor(utf8Encode(body)));
      const clientDataJson = encodeClientData('webauthn.get', challenge, options.origin);
      const authenticatorData = encodeAuthenticatorData({
        rpId: options.rpId,
        flags: FLAGS.userPresent | FLAGS.userVerified,
        signCount,
      });
      return JSON.stringify({
        authenticatorData: base64UrlEncode(authenticatorData),
        clientDataJson: base64UrlEncode(clientDataJson),
        credentialId: base64UrlEncode(rawCredentialId),
        signature: base64UrlEncode(sign(authenticatorData, clientDataJson)),
      });
    },
    clone() {
      return softAuthenticator(options, { secretKey, rawCredentialId, signCount });
    },
  };
}
