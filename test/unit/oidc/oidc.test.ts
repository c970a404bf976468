import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcVerifier, parseJwksFlag, type OidcVerifier } from '../../../src/service/auth/oidc';
import { expectQkError, rejection } from '../../support/assertions';

const GOOGLE = 'https://accounts.google.example';
const APPLE = 'https://appleid.apple.example';
const CLIENT_ID = 'quorumkey-test-client';
const ISSUED_AT = 1_750_000_000;
const atSecond = (second: number) => () => new Date(second * 1000);

interface TestIssuer {
  issuer: string;
  alg: 'RS256' | 'ES256';
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function makeIssuer(issuer: string, alg: 'RS256' | 'ES256', kid: string): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { issuer, alg, kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

function sign(by: TestIssuer, claims: JWTPayload = {}, header: { kid?: string } = {}): Promise<string> {
  const payload = {
    iss: by.issuer,
    sub: 'subject-1',
    aud: CLIENT_ID,
    iat: ISSUED_AT,
    exp: ISSUED_AT + 3600,
    email: 'ada@example.com',
    nonce: 'n-123',
    ...claims,
  };
  return new SignJWT(payload).setProtectedHeader({ alg: by.alg, kid: header.kid ?? by.kid, typ: 'JWT' }).sign(by.privateKey);
}

async function expectRejected(promise: Promise<unknown>, reason: string, message: RegExp) {
  const error = await rejection(promise);
  expect(error.code).toBe('INVALID_OIDC_TOKEN');
  expect(error.details).toMatchObject({ reason });
  expect(error.message).toMatch(message);
}

let google: TestIssuer;
let apple: TestIssuer;
let stranger: TestIssuer;
let verifier: OidcVerifier;

beforeAll(async () => {
  google = await makeIssuer(GOOGLE, 'RS256', 'google-1');
  apple = await makeIssuer(APPLE, 'ES256', 'apple-1');
  stranger = await makeIssuer('https://untrusted.example', 'ES256', 'x');
  verifier = createOidcVerifier({
    issuers: [
      { issuer: GOOGLE, jwks: { keys: [google.publicJwk] } },
      { issuer: APPLE, jwks: { keys: [apple.publicJwk] } },
    ],
    now: atSecond(ISSUED_AT + 60),
  });
});

describe('createOidcVerifier().verify', () => {
  it('accepts valid RS256 and ES256 tokens, raw or base64-encoded, and returns their identity claims', async () => {
    const rsToken = await sign(google);
    const expected = { iss: GOOGLE, sub: 'subject-1', aud: CLIENT_ID, email: 'ada@example.com', nonce: 'n-123' };
    expect(await verifier.verify(rsToken)).toEqual(expected);
    expect(await verifier.verify(Buffer.from(rsToken).toString('base64'), { audience: CLIENT_ID, nonce: 'n-123' })).toEqual(expected);
    expect(await verifier.verify(Buffer.from(rsToken).toString('base64url'))).toEqual(expected);

    const esToken = await sign(apple, { email: undefined, nonce: undefined });
    expect(await verifier.verify(esToken, { audience: CLIENT_ID })).toEqual({ iss: APPLE, sub: 'subject-1', aud: CLIENT_ID });
  });

  it('picks the audience of a multi-audience token from azp, or refuses to guess', async () => {
    const withAzp = await sign(google, { aud: ['other-api', CLIENT_ID], azp: CLIENT_ID });
    expect((await verifier.verify(withAzp)).aud).toBe(CLIENT_ID);
    expect((await verifier.verify(withAzp, { audience: 'other-api' })).aud).toBe('other-api');
    const withoutAzp = await sign(google, { aud: ['other-api', CLIENT_ID] });
    await expectRejected(verifier.verify(withoutAzp), 'ambiguous_audience', /several audiences/);
  });

  it('refuses a token for another audience', async () => {
    await expectRejected(verifier.verify(await sign(google), { audience: 'someone-else' }), 'wrong_audience', /does not include "someone-else"/);
  });

  it('refuses an expired token by the injected clock, and one not yet valid', async () => {
    const token = await sign(google);
    const later = createOidcVerifier({ issuers: [{ issuer: GOOGLE, jwks: { keys: [google.publicJwk] } }], now: atSecond(ISSUED_AT + 3601) });
    await expectRejected(later.verify(token), 'expired', /expired at 2025-06-15T16:06:40\.000Z/);
    await expectRejected(verifier.verify(await sign(google, { nbf: ISSUED_AT + 600 })), 'not_yet_valid', /"nbf" is in the future/);
  });

  it('refuses an unknown issuer', async () => {
    await expectRejected(verifier.verify(await sign(stranger)), 'unknown_issuer', /issuer "https:\/\/untrusted\.example" is not a trusted/);
  });

  it('refuses a tampered payload and a token signed by another key under the trusted kid', async () => {
    const [header, , signature] = (await sign(google)).split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ iss: GOOGLE, sub: 'admin', aud: CLIENT_ID, iat: ISSUED_AT, exp: ISSUED_AT + 3600 })).toString(
      'base64url',
    );
    await expectRejected(verifier.verify(`${header}.${forgedPayload}.${signature}`), 'bad_signature', /does not verify with the JWKS of/);

    const impostor = await makeIssuer(GOOGLE, 'RS256', 'google-1');
    await expectRejected(verifier.verify(await sign(impostor)), 'bad_signature', /does not verify/);
    await expectRejected(verifier.verify(await sign(google, {}, { kid: 'rotated-away' })), 'unknown_key', /no single key/);
  });

  it('refuses alg "none"', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ iss: GOOGLE, sub: 's', aud: CLIENT_ID, iat: ISSUED_AT, exp: ISSUED_AT + 3600 })}.`;
    await expectRejected(verifier.verify(unsigned), 'algorithm_not_allowed', /accepted: RS256/);
  });

  it('refuses malformed tokens, missing claims and a wrong nonce', async () => {
    await expectRejected(verifier.verify(''), 'malformed', /empty/);
    await expectRejected(verifier.verify('not a token'), 'malformed', /expected a compact JWT/);
    await expectRejected(verifier.verify(Buffer.from('hello world').toString('base64')), 'malformed', /expected a compact JWT/);
    await expectRejected(verifier.verify('abc.def.ghi'), 'malformed', /not a JWT/);

    const noIat = await new SignJWT({ sub: 's' })
      .setProtectedHeader({ alg: 'RS256', kid: google.kid })
      .setIssuer(GOOGLE)
      .setAudience(CLIENT_ID)
      .setExpirationTime(ISSUED_AT + 3600)
      .sign(google.privateKey);
    await expectRejected(verifier.verify(noIat), 'missing_claim', /no "iat" claim/);
    await expectRejected(verifier.verify(await sign(google, { nonce: 'other' }), { nonce: 'n-123' }), 'nonce_mismatch', /"nonce" does not match/);
  });
});

describe('configuration', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'qk-oidc-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('parseJwksFlag reads ISSUER=FILE into a trusted issuer the verifier accepts', async () => {
    const file = join(directory, 'google=jwks.json');
    writeFileSync(file, JSON.stringify({ keys: [google.publicJwk] }));
    const trusted = parseJwksFlag(`${GOOGLE}=${file}`);
    expect(trusted).toEqual({ issuer: GOOGLE, jwks: { keys: [google.publicJwk] } });
    const fromFlag = createOidcVerifier({ issuers: [trusted], now: atSecond(ISSUED_AT) });
    expect((await fromFlag.verify(await sign(google))).sub).toBe('subject-1');
  });

  it('parseJwksFlag says what is wrong with the flag or the file', () => {
    expectQkError(() => parseJwksFlag('https://issuer.example'), 'CONFIG_INVALID', /must be ISSUER=FILE/);
    expectQkError(() => parseJwksFlag('=jwks.json'), 'CONFIG_INVALID', /must be ISSUER=FILE/);
    expectQkError(() => parseJwksFlag(`${GOOGLE}=${join(directory, 'missing.json')}`), 'FILE_ERROR', /cannot read the JWKS file .*missing\.json/);
    const notJson = join(directory, 'not.json');
    writeFileSync(notJson, '{keys');
    expectQkError(() => parseJwksFlag(`${GOOGLE}=${notJson}`), 'CONFIG_INVALID', /is not JSON/);
    const noKeys = join(directory, 'empty.json');
    writeFileSync(noKeys, '{"keys": []}');
    expectQkError(() => parseJwksFlag(`${GOOGLE}=${noKeys}`), 'CONFIG_INVALID', /must be an object \{"keys": \[\.\.\.\]\} with at least one key/);
  });

  it('createOidcVerifier refuses duplicate issuers and private keys in a JWKS', async () => {
    const jwks = { keys: [google.publicJwk] };
    expectQkError(
      () =>
        createOidcVerifier({
          issuers: [
            { issuer: GOOGLE, jwks },
            { issuer: GOOGLE, jwks },
          ],
          now: () => new Date(),
        }),
      'CONFIG_INVALID',
      /configured twice/,
    );
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwks = { keys: [await exportJWK(privateKey)] };
    expectQkError(
      () => createOidcVerifier({ issuers: [{ issuer: APPLE, jwks: privateJwks }], now: () => new Date() }),
      'CONFIG_INVALID',
      /holds a private key at keys\[0\]/,
    );
  });
});
