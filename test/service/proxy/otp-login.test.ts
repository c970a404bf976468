/**
 * The auth proxy end to end over HTTP: OTP by the outbox, signup_v2 with a verification token, otp_login_v2, the
 * session key stamping the main API, and every refusal on the way. Turnkey's own verifiers check our tokens.
 */
import { verifyOtpVerificationToken, verifySessionJwtSignature } from '@turnkey/crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSessionJwt } from '../../../src/shared/crypto/tokens';
import { MAX_OTP_ATTEMPTS, VERIFICATION_TOKEN_LIFETIME_MS } from '../../../src/service/proxy/otp';
import { clientSignature, newKey, startTestService, type TestKey, type TestService, tokenIdOf } from '../../support/service';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

const EMAIL = 'Alice@Example.com';

async function signupWithEmail(email = EMAIL) {
  const tokenKey = newKey();
  const verificationToken = await t.verifyContact(email, tokenKey);
  const apiKey = newKey();
  const apiKeys = [{ apiKeyName: 'laptop', publicKey: apiKey.publicKey, curveType: 'API_KEY_CURVE_P256' }];
  const signature = await clientSignature(tokenKey, {
    signupV2: { apiKeys, email },
    tokenId: tokenIdOf(verificationToken),
    type: 'USAGE_TYPE_SIGNUP',
  });
  const reply = await t.proxy('signup_v2', {
    userEmail: email,
    userName: 'Alice',
    verificationToken,
    apiKeys,
    authenticators: [],
    oauthProviders: [],
    clientSignature: signature,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { ...(reply.body as { organizationId: string; userId: string }), apiKey };
}

async function loginBody(email: string, tokenKey: TestKey, sessionKey: TestKey, extra: Record<string, unknown> = {}) {
  const verificationToken = await t.verifyContact(email, tokenKey);
  return {
    verificationToken,
    publicKey: sessionKey.publicKey,
    clientSignature: await clientSignature(tokenKey, {
      login: { publicKey: sessionKey.publicKey },
      tokenId: tokenIdOf(verificationToken),
      type: 'USAGE_TYPE_LOGIN',
    }),
    ...extra,
  };
}

describe('auth proxy: OTP signup and login', () => {
  it('signs up with a verified email, logs in by OTP and uses the session key on the main API', async () => {
    const { organizationId, userId } = await signupWithEmail();

    const sessionKey = newKey();
    const login = await t.proxy('otp_login_v2', await loginBody(EMAIL, newKey(), sessionKey));
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const session = login.body.session as string;
    await expect(verifySessionJwtSignature(session, t.info.sessionSignerPublicKey)).resolves.toBe(true);
    await expect(verifySessionJwtSignature(session, t.info.otpTokenSignerPublicKey)).resolves.toBe(false);
    const claims = parseSessionJwt(session);
    expect(claims).toMatchObject({
      public_key: sessionKey.publicKey,
      user_id: userId,
      organization_id: organizationId,
      session_type: 'SESSION_TYPE_READ_WRITE',
    });
    expect(claims.exp).toBe(Math.floor(t.clock.now() / 1000) + 900);

    const whoami = await t.post('/public/v1/query/whoami', { organizationId }, { key: sessionKey });
    expect(whoami.status, JSON.stringify(whoami.body)).toBe(200);
    expect(whoami.body).toMatchObject({ organizationId, userId });

    const [stored] = t.service.store.read.apiKeys.findByPublicKey(sessionKey.publicKey);
    expect(stored).toMatchObject({ organizationId, userId, credentialType: 'CREDENTIAL_TYPE_LOGIN', expirationSeconds: 900 });

    // The session expires with its credential.
    t.clock.advance(901_000);
    const expired = await t.post('/public/v1/query/whoami', { organizationId }, { key: sessionKey });
    expect(expired.status).toBe(401);
    expect(expired.body.details[0].turnkeyErrorCode).toBe('API_KEY_EXPIRED');
  });

  it('issues verification tokens that Turnkey’s verifier accepts with our key, and only with it', async () => {
    const key = newKey();
    const token = await t.verifyContact('bob@example.com', key);
    const claims = await verifyOtpVerificationToken(token, t.info.otpTokenSignerPublicKey);
    expect(claims).toMatchObject({
      contact: 'bob@example.com',
      verification_type: 'OTP_TYPE_EMAIL',
      organization_id: t.info.organizationId,
      public_key: key.publicKey,
    });
    expect(Number(claims.exp)).toBe(t.clock.now() + VERIFICATION_TOKEN_LIFETIME_MS);
    await expect(verifyOtpVerificationToken(token, t.info.sessionSignerPublicKey)).rejects.toThrow();
  });

  it('finds the verified sub-organization for list_verified_suborgs, with filters and pagination', async () => {
    const first = await signupWithEmail('one@example.com');
    const second = await signupWithEmail('two@example.com');
    const unverified = await t.proxy('signup_v2', {
      userEmail: 'three@example.com',
      apiKeys: [{ apiKeyName: 'k', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }],
      authenticators: [],
      oauthProviders: [],
    });
    expect(unverified.status).toBe(200);
    const list = (body: Record<string, unknown>) =>
      t.post('/public/v1/query/list_verified_suborgs', { organizationId: t.info.organizationId, ...body });

    expect((await list({})).body.organizationIds).toEqual([first.organizationId, second.organizationId]);
    expect((await list({ filterType: 'EMAIL', filterValue: 'two@example.com' })).body.organizationIds).toEqual([second.organizationId]);
    expect((await list({ filterType: 'EMAIL', filterValue: 'three@example.com' })).body.organizationIds).toEqual([]);
    expect((await list({ filterType: 'PHONE_NUMBER' })).body.organizationIds).toEqual([]);
    expect((await list({ paginationOptions: { limit: '1' } })).body.organizationIds).toEqual([first.organizationId]);
    expect((await list({ paginationOptions: { after: first.organizationId } })).body.organizationIds).toEqual([second.organizationId]);
    expect((await list({ paginationOptions: { before: second.organizationId } })).body.organizationIds).toEqual([first.organizationId]);
    for (const bad of [
      { paginationOptions: { limit: '0' } },
      { paginationOptions: { limit: '101' } },
      { filterType: 'USERNAME' },
      { paginationOptions: { after: 'nope' } },
    ]) {
      expect((await list(bad)).status, JSON.stringify(bad)).toBe(400);
    }
  });

  it('refuses a wrong code, and burns the OTP after the allowed attempts', async () => {
    const init = await t.proxy('otp_init', { otpType: 'OTP_TYPE_EMAIL', contact: 'carol@example.com' });
    expect(init.status).toBe(200);
    const { code, otpId } = t.lastCode('carol@example.com');
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{9}$/);
    const key = newKey();
    for (let attempt = 1; attempt <= MAX_OTP_ATTEMPTS; attempt++) {
      const wrong = await t.proxy('otp_verify', { otpId, otpCode: code === 'AAAAAAAAA' ? 'BBBBBBBBB' : 'AAAAAAAAA', publicKey: key.publicKey });
      expect(wrong.status).toBe(400);
      expect(wrong.body.details[0].turnkeyErrorCode).toBe('OTP_INVALID');
    }
    const right = await t.proxy('otp_verify', { otpId, otpCode: code, publicKey: key.publicKey });
    expect(right.status).toBe(429);
    expect(right.body.details[0].turnkeyErrorCode).toBe('OTP_ATTEMPTS_EXCEEDED');
  });

  it('accepts the right code once, and not after it expired', async () => {
    const key = newKey();
    await t.proxy('otp_init', { otpType: 'OTP_TYPE_SMS', contact: '+15551234567' });
    const { code, otpId } = t.lastCode('+15551234567');
    const ok = await t.proxy('otp_verify', { otpId, otpCode: code.toLowerCase(), publicKey: key.publicKey });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await t.proxy('otp_verify', { otpId, otpCode: code, publicKey: key.publicKey })).body.details[0].turnkeyErrorCode).toBe('OTP_INVALID');

    await t.proxy('otp_init', { otpType: 'OTP_TYPE_SMS', contact: '+15551234567' });
    const late = t.lastCode('+15551234567');
    t.clock.advance(5 * 60 * 1000);
    const expired = await t.proxy('otp_verify', { otpId: late.otpId, otpCode: late.code, publicKey: key.publicKey });
    expect(expired.status).toBe(400);
    expect(expired.body.message).toMatch(/expired/);
  });

  it('refuses a reused token, an expired token, and a signature by another key or over another session key', async () => {
    await signupWithEmail();
    const tokenKey = newKey();
    const sessionKey = newKey();
    const body = await loginBody(EMAIL, tokenKey, sessionKey);
    expect((await t.proxy('otp_login_v2', body)).status).toBe(200);
    const reused = await t.proxy('otp_login_v2', { ...body, publicKey: newKey().publicKey });
    expect(reused.status).toBe(401);
    const again = await t.proxy('otp_login_v2', body);
    expect(again.status).toBe(401);
    expect(again.body.details[0].turnkeyErrorCode).toBe('TOKEN_INVALID');

    const other = await loginBody(EMAIL, tokenKey, newKey());
    const forged = await t.proxy('otp_login_v2', { ...other, clientSignature: (await loginBody(EMAIL, newKey(), newKey())).clientSignature });
    expect(forged.status).toBe(401);
    expect(forged.body.details[0].turnkeyErrorCode).toBe('SIGNATURE_INVALID');
    const swapped = await t.proxy('otp_login_v2', { ...other, publicKey: newKey().publicKey });
    expect(swapped.status).toBe(401);
    expect(swapped.body.message).toMatch(/login\.publicKey/);

    const stale = await loginBody(EMAIL, tokenKey, newKey());
    t.clock.advance(VERIFICATION_TOKEN_LIFETIME_MS);
    const late = await t.proxy('otp_login_v2', stale);
    expect(late.status).toBe(401);
    expect(late.body.details[0].turnkeyErrorCode).toBe('TOKEN_EXPIRED');
  });

  it('invalidateExisting revokes earlier sessions of the user', async () => {
    const { organizationId } = await signupWithEmail();
    const first = newKey();
    expect((await t.proxy('otp_login_v2', await loginBody(EMAIL, newKey(), first))).status).toBe(200);
    const second = newKey();
    expect((await t.proxy('otp_login_v2', await loginBody(EMAIL, newKey(), second, { invalidateExisting: true }))).status).toBe(200);
    expect((await t.post('/public/v1/query/whoami', { organizationId }, { key: first })).status).toBe(401);
    expect((await t.post('/public/v1/query/whoami', { organizationId }, { key: second })).status).toBe(200);
  });

  it('requires a known X-Auth-Proxy-Config-Id', async () => {
    const request = { otpType: 'OTP_TYPE_EMAIL', contact: 'dan@example.com' };
    for (const header of [undefined, 'not-a-config']) {
      const reply = await t.proxy('otp_init', request, { 'x-auth-proxy-config-id': header });
      expect(reply.status).toBe(401);
      expect(reply.body.message).toMatch(/X-Auth-Proxy-Config-Id/);
    }
  });

  it('refuses a signup whose token verified another contact, or whose signature does not cover the parameters', async () => {
    const tokenKey = newKey();
    const verificationToken = await t.verifyContact('erin@example.com', tokenKey);
    const apiKeys = [{ apiKeyName: 'k', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }];
    const base = { verificationToken, apiKeys, authenticators: [], oauthProviders: [] };
    const signed = await clientSignature(tokenKey, {
      signupV2: { apiKeys, email: 'erin@example.com' },
      tokenId: tokenIdOf(verificationToken),
      type: 'USAGE_TYPE_SIGNUP',
    });
    const otherContact = await t.proxy('signup_v2', { ...base, userEmail: 'mallory@example.com', clientSignature: signed });
    expect(otherContact.status).toBe(400);
    const otherKeys = [{ apiKeyName: 'k', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }];
    const swappedKeys = await t.proxy('signup_v2', { ...base, apiKeys: otherKeys, userEmail: 'erin@example.com', clientSignature: signed });
    expect(swappedKeys.status).toBe(401);
    expect(swappedKeys.body.message).toMatch(/signupV2\.apiKeys/);
    const unsigned = await t.proxy('signup_v2', { ...base, userEmail: 'erin@example.com' });
    expect(unsigned.status).toBe(400);
    expect((await t.proxy('signup_v2', { ...base, userEmail: 'erin@example.com', clientSignature: signed })).status).toBe(200);
  });
});
