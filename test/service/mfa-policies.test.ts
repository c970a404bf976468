/**
 * MFA policies (docs/service.md#mfa-policies) through Turnkey's client: the six operations, the refusals of a policy
 * the user cannot meet, and the flow: a matching activity waits in ACTIVITY_STATUS_AUTHENTICATORS_NEEDED until its
 * proposer (or an approver) approves it again stamped with the authenticator each step asks for.
 */
import { TurnkeyClient } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientRefusal } from '../support/client-refusal';
import type { SoftAuthenticator } from '../support/soft-authenticator';
import { newKey, startTestService, type TestKey, type TestService } from '../support/service';
import { addStoredPasskey } from '../support/stored-passkey';

let t: TestService;
let rootUserId: string;
let signWith: string;

beforeEach(async () => {
  t = await startTestService();
  rootUserId = t.info.rootUserId;
  const created = await t.client().createPrivateKeys({
    ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'),
    parameters: {
      privateKeys: [{ privateKeyName: 'hot', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }],
    },
  });
  signWith = created.activity.result.createPrivateKeysResultV2!.privateKeys[0]!.privateKeyId!;
});
afterEach(() => t.close());

const PASSKEY = 'AUTHENTICATION_TYPE_PASSKEY';

/** Gives `userId` a passkey (straight through the store) and answers it with its authenticator id. */
async function addPasskey(userId: string): Promise<{ passkey: SoftAuthenticator; authenticatorId: string }> {
  const authenticatorId = `passkey-${userId.slice(0, 8)}`;
  return { passkey: await addStoredPasskey(t, userId, authenticatorId), authenticatorId };
}

/** Turnkey's client stamping with a passkey (X-Stamp-WebAuthn) instead of an API key. */
function passkeyClient(passkey: SoftAuthenticator): TurnkeyClient {
  return new TurnkeyClient(
    { baseUrl: t.info.baseUrl },
    { stamp: async (payload: string) => ({ stampHeaderName: 'X-Stamp-WebAuthn', stampHeaderValue: passkey.assert(payload) }) },
  );
}

async function requirePasskeyFor(userId: string, condition: string, key?: TestKey): Promise<string> {
  const { activity } = await t.client(key).createMfaPolicy({
    ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_MFA_POLICY'),
    parameters: {
      userId,
      mfaPolicyName: `passkey when ${condition}`,
      condition,
      requiredAuthenticationMethods: [{ any: [{ type: PASSKEY }] }],
      order: 0,
    },
  });
  expect(activity.status, JSON.stringify(activity.failure)).toBe('ACTIVITY_STATUS_COMPLETED');
  return activity.result.createMfaPolicyResult!.mfaPolicyId;
}

function signRequest(client: TurnkeyClient) {
  return client.signRawPayload({
    ...t.nextEnvelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'),
    parameters: { signWith, payload: 'ab'.repeat(32), encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' },
  });
}

function approve(client: TurnkeyClient, fingerprint: string) {
  return client.approveActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'), parameters: { fingerprint } });
}

describe('create_mfa_policy refuses a policy the user cannot meet or that does not parse', () => {
  const cases: { name: string; parameters: Record<string, unknown>; status: number; code: string; message: RegExp }[] = [
    {
      name: 'a condition that does not parse',
      parameters: { condition: "activity.action == 'SIGN' &&", requiredAuthenticationMethods: [{ any: [{ type: PASSKEY }] }] },
      status: 400,
      code: 'POLICY_PARSE_ERROR',
      message: /invalid MFA policy condition/,
    },
    {
      name: 'a passkey the user does not have',
      parameters: { requiredAuthenticationMethods: [{ any: [{ type: PASSKEY }] }] },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /cannot satisfy mfa policy requirement: .*AUTHENTICATION_TYPE_PASSKEY/,
    },
    {
      name: 'an email OTP for a user without an email',
      parameters: { requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_EMAIL_OTP' }] }] },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /cannot satisfy mfa policy requirement/,
    },
    {
      name: 'an id on an OTP method',
      parameters: { requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_SMS_OTP', id: 'x' }] }] },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /has no id to name/,
    },
    {
      name: 'an API key other than the user’s',
      parameters: { requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY', id: 'not-a-key' }] }] },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /cannot satisfy/,
    },
    {
      name: 'no step at all',
      parameters: { requiredAuthenticationMethods: [] },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /give 1 to 6 steps/,
    },
    {
      name: 'a negative order',
      parameters: { requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_SESSION' }] }], order: -1 },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /parameters.order/,
    },
    {
      name: 'a user of no organization here',
      parameters: {
        userId: '00000000-0000-0000-0000-000000000000',
        requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_SESSION' }] }],
      },
      status: 404,
      code: 'NOT_FOUND',
      message: /no user/,
    },
  ];
  it.each(cases)('$name', async ({ parameters, status, code, message }) => {
    const before = await t.activityCount();
    const reply = await t.submit('create_mfa_policy', 'ACTIVITY_TYPE_CREATE_MFA_POLICY', {
      userId: rootUserId,
      mfaPolicyName: 'refused',
      condition: 'true',
      order: 0,
      ...parameters,
    });
    expect([reply.status, reply.body.details?.[0]?.turnkeyErrorCode], JSON.stringify(reply.body)).toEqual([status, code]);
    expect(reply.body.message).toMatch(message);
    expect(await t.activityCount()).toBe(before);
  });
});

describe('an MFA policy requiring a passkey for signing', () => {
  it('holds a sign request in AUTHENTICATORS_NEEDED; an API-key approval is refused, a passkey approval completes it', async () => {
    const { passkey, authenticatorId } = await addPasskey(rootUserId);
    const mfaPolicyId = await requirePasskeyFor(rootUserId, "activity.action == 'SIGN'");
    const { mfaPolicies } = await t.client().getMfaPolicies({ organizationId: t.info.organizationId, userId: rootUserId });
    expect(mfaPolicies).toMatchObject([
      { mfaPolicyId, condition: "activity.action == 'SIGN'", requiredAuthenticationMethods: [{ any: [{ type: PASSKEY }] }], order: '0' },
    ]);
    const user = await t.client().getUser({ organizationId: t.info.organizationId, userId: rootUserId });
    expect(user.user.mfaPolicies.map((policy) => policy.mfaPolicyId)).toEqual([mfaPolicyId]);

    // Anything the condition does not match runs as before, root user included.
    const renamed = await t
      .client()
      .updateUserName({ ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_USER_NAME'), parameters: { userId: rootUserId, userName: 'root' } });
    expect(renamed.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    const { activity } = await signRequest(t.client());
    expect(activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
    expect(activity.result).toEqual({});
    expect(activity.canApprove).toBe(true);
    const waiting = await t.client().getMfaStatus({ organizationId: t.info.organizationId, activityId: activity.id });
    expect(waiting.mfaStatuses).toEqual([
      { mfaPolicyId, userId: rootUserId, satisfied: false, satisfiedMethods: [], requiredMethods: [{ any: [{ type: PASSKEY }] }] },
    ]);

    // The stamp decides which method an approval presents: the same API key again meets no step.
    const withApiKey = await clientRefusal(approve(t.client(), activity.fingerprint));
    expect(withApiKey.details?.[0]).toMatchObject({ turnkeyErrorCode: 'AUTHENTICATOR_NOT_ACCEPTED' });
    expect(withApiKey.message).toMatch(/stamped with AUTHENTICATION_TYPE_API_KEY .*approve it again stamped with: AUTHENTICATION_TYPE_PASSKEY/);
    // Nobody else votes while the proposer's MFA waits.
    const bob = await t.addUser({ name: 'bob' });
    const other = await clientRefusal(approve(t.client(bob.key), activity.fingerprint));
    expect(other.details?.[0]).toMatchObject({ turnkeyErrorCode: 'ACTIVITY_NOT_PENDING' });

    const done = await approve(passkeyClient(passkey), activity.fingerprint);
    expect(done.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(done.activity.result.signRawPayloadResult).toMatchObject({ v: expect.stringMatching(/^0[01]$/) });
    expect(done.activity.votes.map((vote) => vote.scheme)).toEqual(['SIGNATURE_SCHEME_TK_API_P256', 'SIGNATURE_SCHEME_TK_API_P256_WEBAUTHN']);
    const met = await t.client().getMfaStatus({ organizationId: t.info.organizationId, activityId: activity.id, userId: rootUserId });
    expect(met.mfaStatuses).toMatchObject([{ satisfied: true, satisfiedMethods: [{ type: PASSKEY, id: authenticatorId }] }]);
  });

  it('is met at once by a proposal stamped with the passkey itself', async () => {
    const { passkey } = await addPasskey(rootUserId);
    await requirePasskeyFor(rootUserId, "activity.action == 'SIGN'");
    const { activity } = await signRequest(passkeyClient(passkey));
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('is enforced as it reads now: once the user signed without it, when added, and no more once deleted', async () => {
    // The user's policies are remembered between activities (mfaPoliciesOf): each change must reach the next one.
    expect((await signRequest(t.client())).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    await addPasskey(rootUserId);
    const mfaPolicyId = await requirePasskeyFor(rootUserId, "activity.action == 'SIGN'");
    expect((await signRequest(t.client())).activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
    const deleted = await t
      .client()
      .deleteMfaPolicy({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_MFA_POLICY'), parameters: { userId: rootUserId, mfaPolicyId } });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await signRequest(t.client())).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('counts a session of the named profile as one step: Turnkey’s session-and-passkey example', async () => {
    const { passkey, authenticatorId } = await addPasskey(rootUserId);
    const profile = await t.client().createSessionProfile({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_SESSION_PROFILE'),
      parameters: { sessionProfileName: 'signing', scope: 'true' },
    });
    const sessionProfileId = profile.activity.result.createSessionProfileResult!.sessionProfileId;
    const sessionKey = newKey('p256');
    const login = await t
      .client()
      .stampLogin({ ...t.nextEnvelope('ACTIVITY_TYPE_STAMP_LOGIN'), parameters: { publicKey: sessionKey.publicKey, sessionProfileId } });
    expect(login.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const session = { type: 'AUTHENTICATION_TYPE_SESSION' as const, id: sessionProfileId };
    await t.client().createMfaPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_MFA_POLICY'),
      parameters: {
        userId: rootUserId,
        mfaPolicyName: 'session and passkey',
        condition: "activity.action == 'SIGN'",
        requiredAuthenticationMethods: [{ any: [session] }, { any: [{ type: PASSKEY }] }],
        order: 0,
      },
    });

    const { activity } = await signRequest(t.client(sessionKey));
    expect(activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
    const status = await t.client().getMfaStatus({ organizationId: t.info.organizationId, activityId: activity.id });
    expect(status.mfaStatuses).toMatchObject([{ satisfied: false, satisfiedMethods: [session] }]);
    // The session step is met: the session again meets nothing still open.
    const again = await clientRefusal(approve(t.client(sessionKey), activity.fingerprint));
    expect(again.details?.[0]).toMatchObject({ turnkeyErrorCode: 'AUTHENTICATOR_NOT_ACCEPTED' });
    const done = await approve(passkeyClient(passkey), activity.fingerprint);
    expect(done.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const met = await t.client().getMfaStatus({ organizationId: t.info.organizationId, activityId: activity.id });
    expect(met.mfaStatuses).toMatchObject([{ satisfied: true, satisfiedMethods: [session, { type: PASSKEY, id: authenticatorId }] }]);
  });

  it('is evaluated in order: only the first matching policy is enforced', async () => {
    const { authenticatorId } = await addPasskey(rootUserId);
    const session = { type: 'AUTHENTICATION_TYPE_SESSION' } as const;
    const first = await t.client().createMfaPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_MFA_POLICY'),
      parameters: {
        userId: rootUserId,
        mfaPolicyName: 'signing',
        condition: "activity.action == 'SIGN'",
        requiredAuthenticationMethods: [{ any: [{ type: PASSKEY, id: authenticatorId }] }],
        order: 1,
      },
    });
    const catchAll = await t.client().createMfaPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_MFA_POLICY'),
      parameters: {
        userId: rootUserId,
        mfaPolicyName: 'everything',
        condition: 'true',
        requiredAuthenticationMethods: [{ any: [session] }],
        order: 2,
      },
    });
    expect([first.activity.status, catchAll.activity.status]).toEqual(['ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_COMPLETED']);
    const signing = await signRequest(t.client());
    const status = await t.client().getMfaStatus({ organizationId: t.info.organizationId, activityId: signing.activity.id });
    expect(status.mfaStatuses).toMatchObject([{ mfaPolicyId: first.activity.result.createMfaPolicyResult!.mfaPolicyId }]);
    // The catch-all now holds every other activity of the root user, deleting an MFA policy too.
    const deleting = await t.client().deleteMfaPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_MFA_POLICY'),
      parameters: { userId: rootUserId, mfaPolicyId: catchAll.activity.result.createMfaPolicyResult!.mfaPolicyId },
    });
    expect(deleting.activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
  });
});

describe('MFA with consensus', () => {
  it('a consensus over credentials reads the credential each approval was made with, the MFA passkey included', async () => {
    const carol = await t.addUser({ name: 'carol' });
    const { passkey } = await addPasskey(carol.userId);
    const allowed = await t.client().createPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
      parameters: {
        policyName: 'carol signs with her passkey',
        effect: 'EFFECT_ALLOW',
        condition: "activity.action == 'SIGN'",
        consensus: `credentials.any(c, c.user_id == '${carol.userId}' && c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')`,
        notes: '',
      },
    });
    expect(allowed.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    // Without MFA, her API-key proposal waits for a consensus she can no longer add to.
    const plain = await signRequest(t.client(carol.key));
    expect(plain.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect((await clientRefusal(approve(passkeyClient(passkey), plain.activity.fingerprint))).details?.[0]).toMatchObject({
      turnkeyErrorCode: 'ALREADY_VOTED',
    });

    // With it, the passkey approval her MFA asks for is one more approving credential.
    const mfaPolicyId = await requirePasskeyFor(carol.userId, "activity.action == 'SIGN'");
    const held = await signRequest(t.client(carol.key));
    expect(held.activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
    const done = await approve(passkeyClient(passkey), held.activity.fingerprint);
    expect(done.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    // Deleting her MFA policy is an activity like any other: she has no policy allowing it; the root user does.
    const refused = await clientRefusal(
      t
        .client(carol.key)
        .deleteMfaPolicy({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_MFA_POLICY'), parameters: { userId: carol.userId, mfaPolicyId } }),
    );
    expect(refused.details?.[0]).toMatchObject({ turnkeyErrorCode: 'REQUEST_NOT_AUTHORIZED' });
    const deleted = await t
      .client()
      .deleteMfaPolicy({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_MFA_POLICY'), parameters: { userId: carol.userId, mfaPolicyId } });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await t.client().getMfaPolicies({ organizationId: t.info.organizationId, userId: carol.userId })).mfaPolicies).toEqual([]);
  });

  it('an approver’s vote counts only once their own MFA is met', async () => {
    const bob = await t.addUser({ name: 'bob' });
    const { passkey } = await addPasskey(bob.userId);
    await requirePasskeyFor(bob.userId, 'true');
    await t.setRootQuorum(2, [rootUserId, bob.userId]);
    const proposed = await t
      .client()
      .updateUserName({ ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_USER_NAME'), parameters: { userId: bob.userId, userName: 'robert' } });
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');

    const withKey = await approve(t.client(bob.key), proposed.activity.fingerprint);
    expect(withKey.activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
    const status = await t.client().getMfaStatus({ organizationId: t.info.organizationId, activityId: proposed.activity.id, userId: bob.userId });
    expect(status.mfaStatuses).toMatchObject([{ userId: bob.userId, satisfied: false }]);

    const withPasskey = await approve(passkeyClient(passkey), proposed.activity.fingerprint);
    expect(withPasskey.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});

describe('update_mfa_policy and get_mfa_policy', () => {
  it('changes the fields given and keeps the others', async () => {
    const { authenticatorId } = await addPasskey(rootUserId);
    const mfaPolicyId = await requirePasskeyFor(rootUserId, "activity.action == 'EXPORT'");
    const updated = await t.client().updateMfaPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_MFA_POLICY'),
      parameters: {
        userId: rootUserId,
        mfaPolicyId,
        requiredAuthenticationMethods: [{ any: [{ type: PASSKEY, id: authenticatorId }] }],
        order: 3,
        notes: 'laptop only',
      },
    });
    expect(updated.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { mfaPolicy } = await t.client().getMfaPolicy({ organizationId: t.info.organizationId, userId: rootUserId, mfaPolicyId });
    expect(mfaPolicy).toMatchObject({
      mfaPolicyId,
      condition: "activity.action == 'EXPORT'",
      requiredAuthenticationMethods: [{ any: [{ type: PASSKEY, id: authenticatorId }] }],
      order: '3',
      notes: 'laptop only',
    });
    const missing = await clientRefusal(t.client().getMfaPolicy({ organizationId: t.info.organizationId, userId: rootUserId, mfaPolicyId: 'nope' }));
    expect(missing.details?.[0]).toMatchObject({ turnkeyErrorCode: 'NOT_FOUND' });
  });
});
