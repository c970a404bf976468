import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { signAppProof, verifyAppProof, type AppProof } from '../../../src/shared/crypto/app-proof';
import { base64UrlDecode, base64UrlEncode, utf8Decode, utf8Encode } from '../../../src/shared/crypto/encoding';
import { generateApiKeyPair, generateEncryptionKeyPair } from '../../../src/shared/crypto/keys';
import {
  digestSignerFromPrivateKey,
  encodeSessionJwt,
  encodeVerificationToken,
  parseSessionJwt,
  verifySessionJwt,
  verifyVerificationToken,
  type SessionJwtClaims,
  type VerificationTokenClaims,
} from '../../../src/shared/crypto/tokens';
import { thrown } from '../../support/assertions';

const notarizer = generateEncryptionKeyPair();
const signNotarized = digestSignerFromPrivateKey(notarizer.privateKey);
const NOW_MS = Date.UTC(2026, 0, 1);

const sessionClaims: SessionJwtClaims = {
  exp: NOW_MS / 1000 + 900,
  public_key: generateApiKeyPair('p256').publicKey,
  session_type: 'SESSION_TYPE_READ_WRITE',
  user_id: 'user-1',
  organization_id: 'org-1',
};
const tokenClaims: VerificationTokenClaims = {
  exp: String(NOW_MS + 60_000),
  id: 'verification-1',
  organization_id: 'org-1',
  verification_type: 'OTP_TYPE_EMAIL',
  contact: 'user@example.com',
  public_key: generateApiKeyPair('p256').publicKey,
};

function replaceSegment(jwt: string, index: number, value: string): string {
  const parts = jwt.split('.');
  parts[index] = value;
  return parts.join('.');
}

function segmentOf(value: object): string {
  return base64UrlEncode(utf8Encode(JSON.stringify(value)));
}

describe('session JWT', () => {
  it('has the Turnkey header and claims and verifies', async () => {
    const jwt = await encodeSessionJwt(sessionClaims, signNotarized);
    const [header] = jwt.split('.');
    expect(utf8Decode(base64UrlDecode(header!, 'header'))).toBe('{"alg":"ES256","typ":"JWT"}');
    expect(verifySessionJwt(jwt, notarizer.publicKey, NOW_MS)).toEqual(sessionClaims);
    expect(parseSessionJwt(jwt)).toEqual(sessionClaims);
  });

  it('fails with the wrong key, altered claims, expiry and malformed parts', async () => {
    const jwt = await encodeSessionJwt(sessionClaims, signNotarized);
    expect(thrown(() => verifySessionJwt(jwt, generateEncryptionKeyPair().publicKey, NOW_MS)).code).toBe('TOKEN_INVALID');
    const altered = replaceSegment(jwt, 1, segmentOf({ ...sessionClaims, user_id: 'user-2' }));
    expect(thrown(() => verifySessionJwt(altered, notarizer.publicKey, NOW_MS)).code).toBe('TOKEN_INVALID');
    expect(thrown(() => verifySessionJwt(jwt, notarizer.publicKey, sessionClaims.exp * 1000)).code).toBe('TOKEN_EXPIRED');
    expect(thrown(() => verifySessionJwt(jwt.split('.').slice(0, 2).join('.'), notarizer.publicKey, NOW_MS)).message).toMatch(/3 dot-separated/);
    expect(
      thrown(() => verifySessionJwt(replaceSegment(jwt, 0, segmentOf({ alg: 'none', typ: 'JWT' })), notarizer.publicKey, NOW_MS)).message,
    ).toMatch(/alg/);
    expect(thrown(() => verifySessionJwt(replaceSegment(jwt, 2, 'AAAA'), notarizer.publicKey, NOW_MS)).message).toMatch(/64 bytes/);
  });

  it('is not a standard single-hash ES256 token', async () => {
    const singleHashed = await encodeVerificationToken(tokenClaims, signNotarized);
    const asSession = replaceSegment(singleHashed, 0, segmentOf({ alg: 'ES256', typ: 'JWT' }));
    expect(thrown(() => verifySessionJwt(asSession, notarizer.publicKey, NOW_MS)).code).toBe('TOKEN_INVALID');
  });

  it('requires the claims parseSession requires', async () => {
    const { user_id: _dropped, ...withoutUser } = sessionClaims;
    const jwt = await encodeSessionJwt(withoutUser as SessionJwtClaims, signNotarized);
    expect(thrown(() => verifySessionJwt(jwt, notarizer.publicKey, NOW_MS)).message).toMatch(/"user_id"/);
  });
});

describe('OTP verification token', () => {
  it('verifies and returns its six claims; exp is in milliseconds', async () => {
    const jwt = await encodeVerificationToken(tokenClaims, signNotarized);
    expect(utf8Decode(base64UrlDecode(jwt.split('.')[0]!, 'header'))).toBe('{"typ":"JWT","alg":"ES256"}');
    expect(verifyVerificationToken(jwt, notarizer.publicKey, NOW_MS)).toEqual(tokenClaims);
    expect(thrown(() => verifyVerificationToken(jwt, notarizer.publicKey, NOW_MS + 60_000)).code).toBe('TOKEN_EXPIRED');
  });

  it('rejects altered, re-keyed and numeric-exp tokens', async () => {
    const jwt = await encodeVerificationToken(tokenClaims, signNotarized);
    const altered = replaceSegment(jwt, 1, segmentOf({ ...tokenClaims, contact: 'attacker@example.com' }));
    expect(thrown(() => verifyVerificationToken(altered, notarizer.publicKey, NOW_MS)).code).toBe('TOKEN_INVALID');
    expect(thrown(() => verifyVerificationToken(jwt, generateEncryptionKeyPair().publicKey, NOW_MS)).code).toBe('TOKEN_INVALID');
    // Correctly signed, but with the legacy numeric `exp`: v2 requires a millisecond string.
    const signingInput = `${segmentOf({ typ: 'JWT', alg: 'ES256' })}.${segmentOf({ ...tokenClaims, exp: NOW_MS + 60_000 })}`;
    const signature = await signNotarized(sha256(utf8Encode(signingInput)));
    const numericExp = `${signingInput}.${base64UrlEncode(signature)}`;
    expect(thrown(() => verifyVerificationToken(numericExp, notarizer.publicKey, NOW_MS)).message).toMatch(/claim "exp"/);
  });
});

describe('app proofs', () => {
  const qosEncryption = generateEncryptionKeyPair();
  const qosSigning = generateEncryptionKeyPair();
  const signer = { publicKey130Hex: qosEncryption.publicKey + qosSigning.publicKey, signRaw: digestSignerFromPrivateKey(qosSigning.privateKey) };
  const payload = {
    type: 'APP_PROOF_TYPE_ADDRESS_DERIVATION',
    timestampMs: '1767225600000',
    addressDerivationProof: { organizationId: 'org-1', walletId: 'wallet-1', derivationPath: "m/44'/60'/0'/0/0", address: '0xabc' },
  };

  it('round-trip and return the payload', async () => {
    const proof = await signAppProof(payload, signer);
    expect(proof.scheme).toBe('SIGNATURE_SCHEME_EPHEMERAL_KEY_P256');
    expect(proof.signature).toMatch(/^[0-9a-f]{128}$/);
    expect(verifyAppProof(proof)).toEqual(payload);
  });

  it('fail when the payload, key half or scheme is wrong', async () => {
    const proof = await signAppProof(payload, signer);
    const variants: Array<[AppProof, string]> = [
      [{ ...proof, proofPayload: proof.proofPayload.replace('0xabc', '0xabd') }, 'SIGNATURE_INVALID'],
      [{ ...proof, publicKey: qosSigning.publicKey + qosEncryption.publicKey }, 'SIGNATURE_INVALID'],
      [{ ...proof, publicKey: qosSigning.publicKey }, 'KEY_INVALID'],
      [{ ...proof, scheme: 'SIGNATURE_SCHEME_TK_API_P256' as AppProof['scheme'] }, 'SIGNATURE_INVALID'],
    ];
    for (const [variant, code] of variants) expect(thrown(() => verifyAppProof(variant)).code).toBe(code);
  });
});
