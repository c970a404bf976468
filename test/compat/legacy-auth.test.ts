/**
 * The older sign-in activities released SDKs still call, through `@turnkey/http` unchanged: init_otp_auth (V1, V2, V3)
 * sends a code for a user's contact, otp_auth trades the code for a credential key of that user, and oauth trades an
 * OIDC token for one; the key arrives only as a bundle sealed to the client's target key, which `@turnkey/crypto`
 * opens, and then stamps as the user. An app's backend runs init_otp_auth / otp_auth with the parent organization's key
 * for a sub-organization user, its wrong codes counted like the sub-organization's own.
 */
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import { recordedRows } from '../service/signing/recorded';
import { newKey, startTestService, type TestService } from '../support/service';
import { clientRefusal } from '../support/client-refusal';
import { createTestIssuer, sessionNonce, TEST_ISSUER, type TestIssuer } from '../support/test-issuer';

const AUDIENCE = 'legacy-auth-app';
const CAROL = 'carol@example.com';

let t: TestService;
let issuer: TestIssuer;
let carolId: string;
beforeEach(async () => {
  issuer = await createTestIssuer(AUDIENCE);
  t = await startTestService({ oidcIssuers: [issuer.trusted] });
  const created = await t.client().createUsers({
    ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_USERS_V4'),
    parameters: {
      users: [
        {
          userName: 'carol',
          userEmail: CAROL,
          apiKeys: [],
          authenticators: [],
          oauthProviders: [{ providerName: 'test', oidcClaims: { iss: TEST_ISSUER, sub: 'carol-subject', aud: AUDIENCE } }],
          userTags: [],
        },
      ],
    },
  });
  carolId = created.activity.result.createUsersResult!.userIds[0]!;
});
afterEach(() => t.close());

/** The key a credential bundle carries, checked to be the API key the result names, as a stamping key. */
async function openedKey(
  result: { apiKeyId?: string; credentialBundle?: string },
  target: ReturnType<typeof generateP256KeyPair>,
  credentialType: string,
  organizationId = t.info.organizationId,
) {
  const privateKey = decryptCredentialBundle(result.credentialBundle!, target.privateKey);
  const publicKey = bytesToHex(getPublicKey(privateKey, true));
  const { apiKey } = await t.client().getApiKey({ organizationId, apiKeyId: result.apiKeyId! });
  expect(apiKey.credential).toEqual({ publicKey, type: credentialType });
  return { curve: 'p256' as const, publicKey, privateKey };
}

describe('init_otp_auth and otp_auth', () => {
  const initOtpAuth = (key = t.rootKey) =>
    t.client(key).initOtpAuth({
      ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_AUTH_V3'),
      parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'Carol@Example.com', appName: 'Demo', otpLength: 7, alphanumeric: false },
    });
  const otpAuth = (otpId: string, otpCode: string, targetPublicKey: string, key = t.rootKey) =>
    t.client(key).otpAuth({
      ...t.nextEnvelope('ACTIVITY_TYPE_OTP_AUTH'),
      parameters: { otpId, otpCode, targetPublicKey, apiKeyName: 'otp', expirationSeconds: '300' },
    });

  it('sends a code to the outbox and trades it for a credential key of the user with the contact', async () => {
    const init = await initOtpAuth();
    const { otpId } = init.activity.result.initOtpAuthResultV2!;
    const { code, otpId: sentFor } = t.lastCode(CAROL);
    expect([sentFor, code]).toEqual([otpId, expect.stringMatching(/^\d{7}$/)]);

    const target = generateP256KeyPair();
    const authed = await otpAuth(otpId, code, target.publicKeyUncompressed);
    const result = authed.activity.result.otpAuthResult!;
    expect(result.userId).toBe(carolId);
    const key = await openedKey(result, target, 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256');
    expect((await t.client(key).getWhoami({ organizationId: t.info.organizationId })).userId).toBe(carolId);

    const again = await otpAuth(otpId, code, generateP256KeyPair().publicKeyUncompressed);
    expect([again.activity.status, again.activity.failure?.message]).toEqual(['ACTIVITY_STATUS_FAILED', expect.stringContaining('already used')]);
  });

  it('a wrong code fails the activity and counts; an OTP of init_otp is refused', async () => {
    const { otpId } = (await initOtpAuth()).activity.result.initOtpAuthResultV2!;
    const code = t.lastCode(CAROL).code;
    for (const attemptsLeft of [4, 3]) {
      const wrong = await otpAuth(otpId, code === '0000000' ? '1111111' : '0000000', generateP256KeyPair().publicKeyUncompressed);
      expect([wrong.activity.status, wrong.activity.failure?.message]).toEqual([
        'ACTIVITY_STATUS_FAILED',
        expect.stringContaining(`${attemptsLeft} attempts left`),
      ]);
    }
    expect((await otpAuth(otpId, code, generateP256KeyPair().publicKeyUncompressed)).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    const sealed = await t
      .client()
      .initOtp({ ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_V3'), parameters: { otpType: 'OTP_TYPE_EMAIL', contact: CAROL, appName: 'Demo' } });
    const sealedOtpId = sealed.activity.result.initOtpResultV2!.otpId;
    const refused = await clientRefusal(otpAuth(sealedOtpId, t.lastCode(CAROL).code, generateP256KeyPair().publicKeyUncompressed));
    expect(refused.message).toMatch(/was started with init_otp; verify it with verify_otp/);
  });

  it('the V1 and V2 requests of released SDKs run the same, answered under their own names', async () => {
    const v1 = await t.client().initOtpAuth({
      ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_AUTH' as 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3'),
      parameters: { otpType: 'OTP_TYPE_EMAIL', contact: CAROL, emailCustomization: { appName: 'Old app' } } as never,
    });
    const v1Result = (v1.activity.result as Record<string, { otpId: string } | undefined>)['initOtpAuthResult'];
    expect(v1Result?.otpId).toBe(t.lastCode(CAROL).otpId);
    expect(t.lastCode(CAROL).code).toMatch(/^[0-9A-Z]{9}$/);

    const v2 = await t.client().initOtpAuth({
      ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_AUTH_V2' as 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3'),
      parameters: { otpType: 'OTP_TYPE_EMAIL', contact: CAROL, otpLength: 8, alphanumeric: false } as never,
    });
    expect(v2.activity.type).toBe('ACTIVITY_TYPE_INIT_OTP_AUTH_V2');
    expect(v2.activity.result.initOtpAuthResultV2?.otpId).toBe(t.lastCode(CAROL).otpId);
    expect(t.lastCode(CAROL).code).toMatch(/^\d{8}$/);
  });

  it('a non-root user without a policy can neither send nor trade a code', async () => {
    const bob = await t.addUser({ name: 'bob' });
    expect((await clientRefusal(initOtpAuth(bob.key))).code).toBe(7);
    const { otpId } = (await initOtpAuth()).activity.result.initOtpAuthResultV2!;
    expect((await clientRefusal(otpAuth(otpId, t.lastCode(CAROL).code, generateP256KeyPair().publicKeyUncompressed, bob.key))).code).toBe(7);
  });

  it('refuses bad input with a 400 and records nothing: an unknown otpType, a contact no user has, a bad target key', async () => {
    const { otpId } = (await initOtpAuth()).activity.result.initOtpAuthResultV2!;
    const before = recordedRows(t);
    const badType = await clientRefusal(
      t.client().initOtpAuth({
        ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_AUTH_V3'),
        parameters: { otpType: 'OTP_TYPE_PIGEON', contact: CAROL, appName: 'Demo' },
      }),
    );
    expect([badType.code, badType.message]).toEqual([3, expect.stringContaining('must be OTP_TYPE_EMAIL or OTP_TYPE_SMS')]);
    const stranger = await clientRefusal(
      t.client().initOtpAuth({
        ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_AUTH_V3'),
        parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'nobody@example.com', appName: 'Demo' },
      }),
    );
    expect([stranger.code, stranger.message]).toEqual([5, expect.stringContaining('has the contact nobody@example.com')]);
    const badTarget = await clientRefusal(otpAuth(otpId, t.lastCode(CAROL).code, 'not-a-key'));
    expect([badTarget.code, badTarget.message]).toEqual([3, expect.stringContaining('parameters.targetPublicKey')]);
    expect(recordedRows(t)).toBe(before);
  });
});

describe('init_otp_auth and otp_auth from the parent organization for a sub-organization', () => {
  /** A sub-organization whose root user has `email` and an API key of its own. */
  async function subOrganization(email: string) {
    const key = newKey();
    const created = await t.client().createSubOrganization({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'),
      parameters: {
        subOrganizationName: `customer ${email}`,
        rootUsers: [
          {
            userName: 'dave',
            userEmail: email,
            apiKeys: [{ apiKeyName: 'k', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' }],
            authenticators: [],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
      },
    });
    const result = created.activity.result.createSubOrganizationResultV8!;
    return { id: result.subOrganizationId, userId: result.rootUserIds![0]!, key };
  }
  // Stamped with the parent's root key unless another key is given, as an app's backend does.
  const initOtpAuth = (organizationId: string, contact: string) =>
    t.client().initOtpAuth({
      ...t.nextEnvelope('ACTIVITY_TYPE_INIT_OTP_AUTH_V3', organizationId),
      parameters: { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Demo', otpLength: 7, alphanumeric: false },
    });
  const otpAuth = (organizationId: string, otpId: string, otpCode: string, key = t.rootKey) =>
    t.client(key).otpAuth({
      ...t.nextEnvelope('ACTIVITY_TYPE_OTP_AUTH', organizationId),
      parameters: { otpId, otpCode, targetPublicKey: generateP256KeyPair().publicKeyUncompressed, expirationSeconds: '300' },
    });
  const wrongCodeFor = (code: string) => (code === '0000000' ? '1111111' : '0000000');

  it("sends the code for a sub-organization user's contact and trades it for a credential key of that user", async () => {
    const sub = await subOrganization('Dave@Example.com');
    const init = await initOtpAuth(sub.id, 'dave@example.com');
    expect([init.activity.organizationId, init.activity.status]).toEqual([sub.id, 'ACTIVITY_STATUS_COMPLETED']);
    const { otpId } = init.activity.result.initOtpAuthResultV2!;
    const { code, otpId: sentFor } = t.lastCode('dave@example.com');
    expect(sentFor).toBe(otpId);

    const target = generateP256KeyPair();
    const authed = await t.client().otpAuth({
      ...t.nextEnvelope('ACTIVITY_TYPE_OTP_AUTH', sub.id),
      parameters: { otpId, otpCode: code, targetPublicKey: target.publicKeyUncompressed, expirationSeconds: '300' },
    });
    expect([authed.activity.organizationId, authed.activity.status]).toEqual([sub.id, 'ACTIVITY_STATUS_COMPLETED']);
    const result = authed.activity.result.otpAuthResult!;
    expect(result.userId).toBe(sub.userId);
    const key = await openedKey(result, target, 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256', sub.id);
    const whoami = await t.client(key).getWhoami({ organizationId: sub.id });
    expect([whoami.userId, whoami.organizationId]).toEqual([sub.userId, sub.id]);
  });

  it("counts the parent's wrong codes with the sub-organization's own and locks the OTP after the same limit", async () => {
    const sub = await subOrganization('dave@example.com');
    const { otpId } = (await initOtpAuth(sub.id, 'dave@example.com')).activity.result.initOtpAuthResultV2!;
    const { code } = t.lastCode('dave@example.com');
    const wrong = wrongCodeFor(code);
    // The sub-organization's own user tries once, then the parent's key four times: one count of five.
    const attempts = [sub.key, t.rootKey, t.rootKey, t.rootKey, t.rootKey];
    for (const [index, key] of attempts.entries()) {
      const failed = await otpAuth(sub.id, otpId, wrong, key);
      const left = 4 - index;
      expect([failed.activity.organizationId, failed.activity.status, failed.activity.failure?.message]).toEqual([
        sub.id,
        'ACTIVITY_STATUS_FAILED',
        expect.stringContaining(`${left} attempt${left === 1 ? '' : 's'} left`),
      ]);
    }
    for (const key of [t.rootKey, sub.key]) {
      const locked = await otpAuth(sub.id, otpId, code, key);
      expect([locked.activity.status, locked.activity.failure?.message]).toEqual([
        'ACTIVITY_STATUS_FAILED',
        expect.stringContaining('5 wrong attempts'),
      ]);
    }
    const { activities } = await t.client().getActivities({ organizationId: sub.id, filterByType: ['ACTIVITY_TYPE_OTP_AUTH'] });
    expect(activities.map((activity) => activity.status)).toEqual(Array(7).fill('ACTIVITY_STATUS_FAILED'));
  });

  it('refuses an OTP of another sub-organization, or a contact no user of the sub-organization has, and records nothing', async () => {
    const first = await subOrganization('dave@example.com');
    const second = await subOrganization('erin@example.com');
    const { otpId } = (await initOtpAuth(second.id, 'erin@example.com')).activity.result.initOtpAuthResultV2!;
    const { code } = t.lastCode('erin@example.com');
    const before = recordedRows(t);
    const foreign = await clientRefusal(otpAuth(first.id, otpId, code));
    expect([foreign.code, foreign.message]).toEqual([5, expect.stringContaining(`no OTP ${otpId} in organization ${first.id}`)]);
    const stranger = await clientRefusal(initOtpAuth(first.id, 'erin@example.com'));
    expect([stranger.code, stranger.message]).toEqual([5, expect.stringContaining('has the contact erin@example.com')]);
    expect(recordedRows(t)).toBe(before);
    // The OTP still works in its own sub-organization.
    expect((await otpAuth(second.id, otpId, code)).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});

describe('oauth', () => {
  const oauth = (oidcToken: string, targetPublicKey: string, key = t.rootKey) =>
    t.client(key).oauth({ ...t.nextEnvelope('ACTIVITY_TYPE_OAUTH'), parameters: { oidcToken, targetPublicKey, apiKeyName: 'oauth' } });

  it('trades a token whose nonce commits to the target key for a credential key of the provider’s user', async () => {
    const target = generateP256KeyPair();
    const token = await issuer.idToken({ sub: 'carol-subject', nowMs: t.clock.now(), nonce: sessionNonce(target.publicKeyUncompressed) });
    const result = (await oauth(token, target.publicKeyUncompressed)).activity.result.oauthResult!;
    expect(result.userId).toBe(carolId);
    const key = await openedKey(result, target, 'CREDENTIAL_TYPE_OAUTH_KEY_P256');
    expect((await t.client(key).getWhoami({ organizationId: t.info.organizationId })).userId).toBe(carolId);

    const otherKey = generateP256KeyPair().publicKeyUncompressed;
    const replayed = await oauth(token, otherKey);
    expect([replayed.activity.status, replayed.activity.failure?.message]).toEqual(['ACTIVITY_STATUS_FAILED', expect.stringContaining('nonce')]);
  });

  it('a non-root user without a policy is refused; bad input is a 400 that records nothing', async () => {
    const target = generateP256KeyPair();
    const token = await issuer.idToken({ sub: 'carol-subject', nowMs: t.clock.now(), nonce: sessionNonce(target.publicKeyUncompressed) });
    const bob = await t.addUser({ name: 'bob', key: newKey('p256') });
    expect((await clientRefusal(oauth(token, target.publicKeyUncompressed, bob.key))).code).toBe(7);

    const before = recordedRows(t);
    const badTarget = await clientRefusal(oauth(token, 'not-a-key'));
    expect([badTarget.code, badTarget.message]).toEqual([3, expect.stringContaining('parameters.targetPublicKey')]);
    const missingToken = await clientRefusal(
      t.client().oauth({ ...t.nextEnvelope('ACTIVITY_TYPE_OAUTH'), parameters: { targetPublicKey: target.publicKeyUncompressed } as never }),
    );
    expect([missingToken.code, missingToken.message]).toEqual([3, expect.stringContaining('parameters.oidcToken')]);
    expect(recordedRows(t)).toBe(before);
  });
});
