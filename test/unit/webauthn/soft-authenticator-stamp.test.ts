import { describe, expect, it } from 'vitest';
import { QkError } from '../../../src/shared/errors';
import { base64UrlDecode, base64UrlEncode, utf8Encode } from '../../../src/shared/crypto/encoding';
import { parseWebAuthnStamp, verifyWebAuthnStamp } from '../../../src/shared/crypto/stamp';
import { parseWebAuthnRegistration } from '../../../src/service/auth/webauthn-attestation';
import { createSoftAuthenticator } from '../../support/soft-authenticator';

const rpId = 'wallet.example.com';
const origin = 'https://wallet.example.com';

describe('soft authenticator assertions against verifyWebAuthnStamp', () => {
  const authenticator = createSoftAuthenticator({ rpId, origin });
  const challenge = base64UrlEncode(utf8Encode('signup'));
  // The key the service stores is the one parsed out of the registration.
  const storedKey = parseWebAuthnRegistration({ challenge, attestation: authenticator.register(challenge) }).publicKey;
  const body = JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_POLICY_V3', timestampMs: '1700000000000', organizationId: 'org' });

  it('verifies for the exact body, with the registered key, and counts signatures', () => {
    const first = verifyWebAuthnStamp(parseWebAuthnStamp(authenticator.assert(body)), utf8Encode(body), storedKey, {
      rpId,
      allowedOrigins: [origin],
    });
    expect(first).toEqual({ credentialId: authenticator.credentialId, origin, userVerified: true, signCount: 1 });
    const second = verifyWebAuthnStamp(parseWebAuthnStamp(authenticator.assert(body)), utf8Encode(body), storedKey);
    expect(second.signCount).toBe(2);
    expect(authenticator.signCount).toBe(2);
  });

  it('is refused for another body, a tampered signature, or another credential key', () => {
    const stamp = parseWebAuthnStamp(authenticator.assert(body));
    const expectInvalid = (run: () => unknown, message: RegExp) => {
      expect(run).toThrow(QkError);
      expect(run).toThrow(message);
    };
    expectInvalid(() => verifyWebAuthnStamp(stamp, utf8Encode(`${body} `), storedKey), /challenge is not base64url/);

    const header = JSON.parse(authenticator.assert(body)) as { signature: string; [field: string]: string };
    const signature = base64UrlDecode(header.signature, 'signature');
    signature[signature.length - 1]! ^= 0x01;
    const tampered = parseWebAuthnStamp(JSON.stringify({ ...header, signature: base64UrlEncode(signature) }));
    expectInvalid(() => verifyWebAuthnStamp(tampered, utf8Encode(body), storedKey), /ES256 signature does not verify/);

    const other = createSoftAuthenticator({ rpId, origin });
    expectInvalid(() => verifyWebAuthnStamp(stamp, utf8Encode(body), other.publicKey), /ES256 signature does not verify/);
  });
});
