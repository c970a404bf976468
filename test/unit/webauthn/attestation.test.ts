import { decodeCBOR, encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import { base64UrlDecode, base64UrlEncode, utf8Encode } from '../../../src/shared/crypto/encoding';
import { parseWebAuthnRegistration, type ParseRegistrationOptions, type WebAuthnAttestation } from '../../../src/service/auth/webauthn-attestation';
import {
  createSoftAuthenticator,
  encodeAttestationObject,
  encodeAuthenticatorData,
  encodeClientData,
  encodeEc2CoseKey,
  FLAGS,
} from '../../support/soft-authenticator';
import { expectQkError } from '../../support/assertions';

const rpId = 'wallet.example.com';
const origin = 'https://wallet.example.com';
const challenge = base64UrlEncode(utf8Encode('registration challenge 0123456789'));

function expectRefused(attestation: WebAuthnAttestation, message: RegExp, options?: ParseRegistrationOptions, withChallenge = challenge) {
  expectQkError(() => parseWebAuthnRegistration({ challenge: withChallenge, attestation }, options), 'REQUEST_INVALID', message);
}

/** A registration assembled from parts, so each test changes exactly one thing. */
function assemble(parts: {
  flags?: number;
  coseKey?: Uint8Array;
  fmt?: string;
  attStmt?: Map<string, CBORType>;
  clientDataJson?: Uint8Array;
  trailing?: Uint8Array;
}): WebAuthnAttestation {
  const credentialId = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8);
  const authData = encodeAuthenticatorData({
    rpId,
    flags: parts.flags ?? FLAGS.userPresent | FLAGS.attestedCredentialData,
    signCount: 0,
    attestedCredential: {
      aaguid: new Uint8Array(16),
      credentialId,
      coseKey: parts.coseKey ?? encodeEc2CoseKey(p256.getPublicKey(p256.utils.randomSecretKey(), false)),
    },
    ...(parts.trailing === undefined ? {} : { extensions: parts.trailing }),
  });
  return {
    credentialId: base64UrlEncode(credentialId),
    clientDataJson: base64UrlEncode(parts.clientDataJson ?? encodeClientData('webauthn.create', challenge, origin)),
    attestationObject: base64UrlEncode(encodeAttestationObject(parts.fmt ?? 'none', parts.attStmt ?? new Map(), authData)),
    transports: [],
  };
}

/** Decodes the attestation object, lets `change` edit the map, and re-encodes it. */
function rewriteAttestationObject(attestation: WebAuthnAttestation, change: (object: Map<string, CBORType>) => void) {
  const object = decodeCBOR(base64UrlDecode(attestation.attestationObject, 'attestationObject')) as Map<string, CBORType>;
  change(object);
  return { ...attestation, attestationObject: base64UrlEncode(encodeCBOR(object)) };
}

describe('parseWebAuthnRegistration', () => {
  it('round-trips a "none" registration from the soft authenticator', () => {
    const authenticator = createSoftAuthenticator({ rpId, origin, aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4' });
    const attestation = authenticator.register(challenge);
    const parsed = parseWebAuthnRegistration({ challenge, attestation }, { rpId, allowedOrigins: [origin] });
    expect(parsed).toEqual({
      credentialId: authenticator.credentialId,
      publicKey: authenticator.publicKey,
      aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
      attestationType: 'none',
      signCount: 0,
      transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL', 'AUTHENTICATOR_TRANSPORT_HYBRID'],
      origin,
      userVerified: true,
    });
    expect(parsed.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
  });

  it('verifies a "packed" self-attestation and accepts a padded challenge', () => {
    const authenticator = createSoftAuthenticator({ rpId, origin });
    const fourByteChallenge = base64UrlEncode(utf8Encode('pads'));
    const attestation = authenticator.register(fourByteChallenge, 'packed');
    const parsed = parseWebAuthnRegistration({ challenge: `${fourByteChallenge}==`, attestation });
    expect(parsed.attestationType).toBe('packed');
    expect(parsed.publicKey).toBe(authenticator.publicKey);
    expect(parsed.aaguid).toBe('00000000-0000-0000-0000-000000000000');
  });

  it('accepts extension data when the ED flag announces it', () => {
    const extensions = encodeCBOR(new Map<string, CBORType>([['credProtect', 2]]));
    const attestation = assemble({ flags: FLAGS.userPresent | FLAGS.attestedCredentialData | FLAGS.extensionData, trailing: extensions });
    expect(parseWebAuthnRegistration({ challenge, attestation }).userVerified).toBe(false);
  });

  describe('refuses, naming the field and the problem', () => {
    const authenticator = createSoftAuthenticator({ rpId, origin });

    it('tampered or truncated CBOR', () => {
      const bytes = base64UrlDecode(authenticator.register(challenge).attestationObject, 'attestationObject');
      const truncated = { ...authenticator.register(challenge), attestationObject: base64UrlEncode(bytes.slice(0, -10)) };
      expectRefused(truncated, /^attestation\.attestationObject is not valid CBOR/);
      const notAMap = { ...authenticator.register(challenge), attestationObject: base64UrlEncode(encodeCBOR(['fmt', 'none'])) };
      expectRefused(notAMap, /attestationObject must be a CBOR map with fmt, attStmt and authData/);
      const noAuthData = rewriteAttestationObject(authenticator.register(challenge), (object) => object.set('authData', 'text'));
      expectRefused(noAuthData, /member "authData" must be a byte string/);
    });

    it('a challenge other than the registration challenge', () => {
      const attestation = authenticator.register(base64UrlEncode(utf8Encode('another challenge')));
      expectRefused(attestation, /^attestation\.clientDataJson challenge does not equal the registration challenge/);
      expectRefused(authenticator.register(challenge), /^challenge must be a non-empty base64url string/, undefined, '');
    });

    it('clientDataJSON of the wrong type, or not JSON', () => {
      expectRefused(
        assemble({ clientDataJson: encodeClientData('webauthn.get', challenge, origin) }),
        /clientDataJson has type "webauthn.get", expected "webauthn.create"/,
      );
      expectRefused(assemble({ clientDataJson: utf8Encode('{"type":') }), /attestation\.clientDataJson is not UTF-8 JSON/);
      expectRefused(assemble({ clientDataJson: utf8Encode('{"type":"webauthn.create","challenge":1}') }), /member "challenge" must be a string/);
    });

    it('an origin or rpId the caller does not allow', () => {
      const attestation = authenticator.register(challenge);
      expectRefused(attestation, /origin "https:\/\/wallet\.example\.com" is not among the allowed/, { allowedOrigins: ['https://other.example'] });
      expect(parseWebAuthnRegistration({ challenge, attestation }, { allowedOrigins: ['*'] }).origin).toBe(origin);
      expectRefused(attestation, /authData\.rpIdHash is not SHA-256 of rpId "other\.example"/, { rpId: 'other.example' });
    });

    it('an unsupported credential algorithm or curve', () => {
      const point = p256.getPublicKey(p256.utils.randomSecretKey(), false);
      expectRefused(
        assemble({ coseKey: encodeEc2CoseKey(point, -257) }),
        /credentialPublicKey is not supported: COSE key alg \(label 3\) must be -7, got -257/,
      );
      expectRefused(assemble({ coseKey: encodeEc2CoseKey(point, -7, 2) }), /COSE key crv \(label -1\) must be 1, got 2/);
      const ed25519Key = encodeCBOR(
        new Map<number, CBORType>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, new Uint8Array(32)],
        ]),
      );
      expectRefused(assemble({ coseKey: ed25519Key }), /COSE key kty \(label 1\) must be 2, got 1/);
      expectRefused(assemble({ coseKey: Uint8Array.of(0xa5, 0x01) }), /credentialPublicKey is not valid CBOR/);
    });

    it('a flipped signature, a wrong alg or a certificate chain in a packed attestation', () => {
      const flipped = rewriteAttestationObject(authenticator.register(challenge, 'packed'), (object) => {
        const sig = ((object.get('attStmt') as Map<string, CBORType>).get('sig') as Uint8Array).slice();
        sig[sig.length - 1]! ^= 0x01;
        (object.get('attStmt') as Map<string, CBORType>).set('sig', sig);
      });
      expectRefused(flipped, /packed self-attestation signature does not verify with the credential public key/);

      const otherClientData = {
        ...authenticator.register(challenge, 'packed'),
        clientDataJson: base64UrlEncode(utf8Encode(JSON.stringify({ type: 'webauthn.create', challenge, origin, extra: 1 }))),
      };
      expectRefused(otherClientData, /packed self-attestation signature does not verify/);

      const wrongAlg = rewriteAttestationObject(authenticator.register(challenge, 'packed'), (object) =>
        (object.get('attStmt') as Map<string, CBORType>).set('alg', -257),
      );
      expectRefused(wrongAlg, /packed attStmt alg is -257/);

      const withChain = rewriteAttestationObject(authenticator.register(challenge, 'packed'), (object) =>
        (object.get('attStmt') as Map<string, CBORType>).set('x5c', [new Uint8Array(10)]),
      );
      expectRefused(withChain, /certificate chain \(x5c\); only packed self-attestation is supported/);
    });

    it('other attestation formats, and "none" with a statement', () => {
      expectRefused(assemble({ fmt: 'fido-u2f' }), /attestation format "fido-u2f"; only "none" and "packed"/);
      expectRefused(assemble({ attStmt: new Map([['sig', new Uint8Array(4)]]) }), /fmt "none" but a non-empty attStmt/);
    });

    it('a credentialId that differs from the one in authData', () => {
      const attestation = { ...authenticator.register(challenge), credentialId: base64UrlEncode(Uint8Array.of(9, 9, 9)) };
      expectRefused(attestation, /^attestation\.credentialId does not match the credential id in the attestationObject authData/);
    });

    it('authData without user presence or attested credential data, too short, or with trailing bytes', () => {
      expectRefused(assemble({ flags: FLAGS.attestedCredentialData }), /authData flags lack user presence \(UP\)/);
      expectRefused(assemble({ flags: FLAGS.userPresent }), /authData flags lack attested credential data \(AT\)/);
      expectRefused(assemble({ trailing: Uint8Array.of(0) }), /authData has 1 unexpected trailing bytes/);
      const short = rewriteAttestationObject(authenticator.register(challenge), (object) =>
        object.set('authData', (object.get('authData') as Uint8Array).slice(0, 40)),
      );
      expectRefused(short, /authData is 40 bytes; .* needs at least 55/);
      const badLength = rewriteAttestationObject(authenticator.register(challenge), (object) => {
        const authData = (object.get('authData') as Uint8Array).slice();
        authData.set([0xff, 0xff], 53);
        object.set('authData', authData);
      });
      expectRefused(badLength, /authData credentialIdLength 65535 does not fit/);
    });

    it('bad base64url, bad transports, and prefixes field names when asked', () => {
      expectRefused({ ...authenticator.register(challenge), clientDataJson: 'a+b/' }, /^attestation\.clientDataJson is not base64url/);
      expectRefused(
        { ...authenticator.register(challenge), attestationObject: '' },
        /attestation\.attestationObject must be a non-empty base64url string/,
      );
      const badTransport = { ...authenticator.register(challenge), transports: ['AUTHENTICATOR_TRANSPORT_CABLE'] } as unknown as WebAuthnAttestation;
      expectRefused(badTransport, /attestation\.transports\[0\] is "AUTHENTICATOR_TRANSPORT_CABLE"; expected one of/);
      expectRefused(
        authenticator.register(base64UrlEncode(utf8Encode('x'))),
        /^authenticators\[2\]\.attestation\.clientDataJson challenge does not equal/,
        { fieldPrefix: 'authenticators[2].' },
      );
    });
  });
});
