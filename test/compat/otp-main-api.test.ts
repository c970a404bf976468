/**
 * init_otp / verify_otp / otp_login on the main API through `@turnkey/http` unchanged, as an app's backend runs the
 * OTP flow for its users: the code goes to the outbox, the client encrypts it with `@turnkey/crypto`, the verified
 * token and a signature by its key open a session for the sub-organization user with that contact.
 */
import { encryptOtpCodeToBundle } from '@turnkey/crypto';
import { TurnkeyRequestError } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { parseSessionJwt } from '../../src/shared/crypto/tokens';
import { clientSignature, newKey, startTestService, type TestKey, type TestService, tokenIdOf } from '../support/service';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

async function initOtp(contact: string, extra: { otpLength?: number; alphanumeric?: boolean } = {}) {
  const init = await t
    .client()
    .initOtp({ ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_V3'), parameters: { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Demo', ...extra } });
  return init.activity.result.initOtpResultV2!;
}

async function verify(otpId: string, targetBundle: string, code: string, key: TestKey) {
  const encryptedOtpBundle = await encryptOtpCodeToBundle(code, targetBundle, key.publicKey, t.info.otpTokenSignerPublicKey);
  return t.client().verifyOtp({ ...t.nextEnvelope('ACTIVITY_TYPE_VERIFY_OTP_V2'), parameters: { otpId, encryptedOtpBundle } });
}

describe('OTP on the main API', () => {
  it('init_otp → outbox → verify_otp → otp_login opens a session for the sub-organization user', async () => {
    const created = await t.client().createSubOrganization({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'),
      parameters: {
        subOrganizationName: 'customer',
        rootUsers: [
          {
            userName: 'alice',
            userEmail: 'alice@example.com',
            apiKeys: [{ apiKeyName: 'k', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }],
            authenticators: [],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
      },
    });
    const { subOrganizationId, rootUserIds } = created.activity.result.createSubOrganizationResultV8!;

    const { otpId, otpEncryptionTargetBundle } = await initOtp('alice@example.com', { otpLength: 6, alphanumeric: false });
    const { code } = t.lastCode('alice@example.com');
    expect(code).toMatch(/^\d{6}$/);
    const tokenKey = newKey('p256');
    const verified = await verify(otpId, otpEncryptionTargetBundle, code, tokenKey);
    const { verificationToken } = verified.activity.result.verifyOtpResult!;

    const session = generateApiKeyPair('p256');
    const login = await t.client().otpLogin({
      ...t.nextEnvelope('ACTIVITY_TYPE_OTP_LOGIN_V2', subOrganizationId),
      parameters: {
        verificationToken,
        publicKey: session.publicKey,
        clientSignature: await clientSignature(tokenKey, {
          login: { publicKey: session.publicKey },
          tokenId: tokenIdOf(verificationToken),
          type: 'USAGE_TYPE_LOGIN',
        }),
        expirationSeconds: '600',
      },
    });
    const claims = parseSessionJwt(login.activity.result.otpLoginResult!.session);
    expect([claims.user_id, claims.organization_id]).toEqual([rootUserIds![0], subOrganizationId]);
    const sessionKey = { curve: 'p256' as const, publicKey: claims.public_key, privateKey: session.privateKey };
    expect((await t.client(sessionKey).getWhoami({ organizationId: subOrganizationId })).userId).toBe(rootUserIds![0]);

    // The token is spent.
    const otherSession = newKey('p256').publicKey;
    const again = await t.client().otpLogin({
      ...t.nextEnvelope('ACTIVITY_TYPE_OTP_LOGIN_V2', subOrganizationId),
      parameters: {
        verificationToken,
        publicKey: otherSession,
        clientSignature: await clientSignature(tokenKey, {
          login: { publicKey: otherSession },
          tokenId: tokenIdOf(verificationToken),
          type: 'USAGE_TYPE_LOGIN',
        }),
      },
    });
    expect(again.activity.status).toBe('ACTIVITY_STATUS_FAILED');
  });

  it('counts wrong codes across failed verify_otp activities and burns the OTP after five', async () => {
    const { otpId, otpEncryptionTargetBundle } = await initOtp('bob@example.com');
    const { code } = t.lastCode('bob@example.com');
    const key = newKey('p256');
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const wrong = await verify(otpId, otpEncryptionTargetBundle, 'WRONGCODE', key);
      expect(wrong.activity.status).toBe('ACTIVITY_STATUS_FAILED');
      expect(wrong.activity.failure?.message).toContain(`${5 - attempt} attempt`);
    }
    const right = await verify(otpId, otpEncryptionTargetBundle, code, key);
    expect(right.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(right.activity.failure?.message).toContain('had 5 wrong attempts');
  });

  it('refuses an OTP length outside 6…9 and an unknown OTP id before recording anything', async () => {
    const short = await t
      .client()
      .initOtp({
        ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_V3'),
        parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'c@example.com', appName: 'Demo', otpLength: 4 },
      })
      .catch((error: unknown) => error);
    expect((short as TurnkeyRequestError).message).toContain('parameters.otpLength must be between 6 and 9');
    const unknown = await t
      .client()
      .verifyOtp({ ...t.nextEnvelope('ACTIVITY_TYPE_VERIFY_OTP_V2'), parameters: { otpId: 'missing', encryptedOtpBundle: '{}' } })
      .catch((error: unknown) => error);
    expect((unknown as TurnkeyRequestError).code).toBe(5);
  });
});
