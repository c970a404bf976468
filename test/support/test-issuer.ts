/**
 * A trusted OIDC issuer for tests: one ES256 key pair, the JWKS entry the service is started with, and ID tokens
 * signed with it on the test's own clock.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { TrustedIssuer } from '../../src/service/auth/oidc';
import { bytesToHex, utf8Encode } from '../../src/shared/crypto/encoding';

export const TEST_ISSUER = 'https://issuer.test';

export interface IdTokenClaims {
  sub: string;
  /** The test clock's time: tokens are issued then and expire `expiresInSeconds` later (600 by default). */
  nowMs: number;
  nonce?: string;
  /** Defaults to the issuer's audience. */
  aud?: string;
  expiresInSeconds?: number;
}

export interface TestIssuer {
  audience: string;
  /** Pass to startService's `oidcIssuers`. */
  trusted: TrustedIssuer;
  idToken(claims: IdTokenClaims): Promise<string>;
}

export async function createTestIssuer(audience: string): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  return {
    audience,
    trusted: { issuer: TEST_ISSUER, jwks: { keys: [jwk] } },
    idToken({ sub, nowMs, nonce, aud = audience, expiresInSeconds = 600 }) {
      const nowSeconds = Math.floor(nowMs / 1000);
      return new SignJWT(nonce === undefined ? {} : { nonce })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(TEST_ISSUER)
        .setSubject(sub)
        .setAudience(aud)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(nowSeconds + expiresInSeconds)
        .sign(privateKey);
    },
  };
}

/** The nonce Turnkey's SDKs put in an ID token: the hex SHA-256 of the session public key. */
export function sessionNonce(publicKey: string): string {
  return bytesToHex(sha256(utf8Encode(publicKey)));
}
