/**
 * oauth_login proposed with a key of the sub-organization's direct parent (the auth proxy's way,
 * docs/service.md#auth-proxy): the verified OIDC token is the authorization; every other activity, and every other
 * organization's key, is refused.
 */
import { randomUUID } from 'node:crypto';
import { verifySessionJwtSignature } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionJwt } from '../../../src/shared/crypto/tokens';
import { createTestIssuer, sessionNonce, TEST_ISSUER as ISSUER, type TestIssuer } from '../../support/test-issuer';
import { newKey, type Reply, startTestService, type TestKey, type TestService } from '../../support/service';

const AUDIENCE = 'quorumkey-test-client';
let t: TestService;
let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await createTestIssuer(AUDIENCE);
  t = await startTestService({ oidcIssuers: [issuer.trusted] });
});
afterAll(() => t.close());

/** An ID token for `subject` whose nonce commits to the session key, as Turnkey's SDKs set it. */
function idToken(subject: string, sessionKey: TestKey): Promise<string> {
  return issuer.idToken({ sub: subject, nonce: sessionNonce(sessionKey.publicKey), nowMs: t.clock.now() });
}

/** A sub-organization of the root organization whose one user logs in with OIDC subject `subject`. */
async function subOrganizationFor(subject: string) {
  const apiKey = newKey();
  const reply = await t.proxy('signup_v2', {
    userName: `user ${subject}`,
    apiKeys: [{ apiKeyName: 'key', publicKey: apiKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
    authenticators: [],
    oauthProviders: [{ providerName: 'test', oidcClaims: { iss: ISSUER, sub: subject, aud: AUDIENCE } }],
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { organizationId: reply.body.organizationId as string, userId: reply.body.userId as string, apiKey };
}

async function oauthLogin(organizationId: string, subject: string, key: TestKey) {
  const sessionKey = newKey();
  const reply = await t.submit(
    'oauth_login',
    'ACTIVITY_TYPE_OAUTH_LOGIN',
    {
      oidcToken: await idToken(subject, sessionKey),
      publicKey: sessionKey.publicKey,
    },
    { organizationId, key },
  );
  return { reply, sessionKey };
}

function expectRefused(reply: Reply, status: number, turnkeyErrorCode: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.details[0].turnkeyErrorCode).toBe(turnkeyErrorCode);
}

describe('oauth_login proposed by the parent organization', () => {
  it('logs a sub-organization user in with the parent root key and records the parent user as proposer', async () => {
    const sub = await subOrganizationFor('parent-login');
    const parentUserId = (await t.post('/public/v1/query/whoami', { organizationId: t.info.organizationId })).body.userId as string;

    const { reply, sessionKey } = await oauthLogin(sub.organizationId, 'parent-login', t.rootKey);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { activity } = reply.body;
    expect(activity).toMatchObject({ organizationId: sub.organizationId, status: 'ACTIVITY_STATUS_COMPLETED' });
    expect(activity.votes).toMatchObject([{ userId: parentUserId, user: { userId: parentUserId }, selection: 'VOTE_SELECTION_APPROVED' }]);
    const session = activity.result.oauthLoginResult.session as string;
    await expect(verifySessionJwtSignature(session, t.info.sessionSignerPublicKey)).resolves.toBe(true);
    expect(parseSessionJwt(session)).toMatchObject({ user_id: sub.userId, organization_id: sub.organizationId, public_key: sessionKey.publicKey });
    const whoami = await t.post('/public/v1/query/whoami', { organizationId: sub.organizationId }, { key: sessionKey });
    expect(whoami.body).toMatchObject({ userId: sub.userId, organizationId: sub.organizationId });
  });

  it('still refuses every other activity the parent key submits to the sub-organization (ORGANIZATION_MISMATCH)', async () => {
    const sub = await subOrganizationFor('other-activities');
    const profile = await t.submit(
      'create_session_profile',
      'ACTIVITY_TYPE_CREATE_SESSION_PROFILE',
      {
        sessionProfileName: 'from parent',
        scope: 'true',
      },
      { organizationId: sub.organizationId },
    );
    expectRefused(profile, 400, 'ORGANIZATION_MISMATCH');
    const users = await t.submit(
      'create_users',
      'ACTIVITY_TYPE_CREATE_USERS_V4',
      {
        users: [{ userName: 'planted', apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      },
      { organizationId: sub.organizationId },
    );
    expectRefused(users, 400, 'ORGANIZATION_MISMATCH');
    const login = await oauthLogin(sub.organizationId, 'other-activities', sub.apiKey);
    const approval = await t.submit(
      'approve_activity',
      'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      {
        fingerprint: login.reply.body.activity.fingerprint,
      },
      { organizationId: sub.organizationId },
    );
    expectRefused(approval, 400, 'ORGANIZATION_MISMATCH');
  });

  it('does not let the parent key approve a sub-organization login that awaits the sub-organization’s quorum', async () => {
    const sub = await subOrganizationFor('awaiting-quorum');
    await t.service.store.transaction((tx) => {
      const now = t.clock.now();
      const secondRootUserId = randomUUID();
      tx.users.insert({ id: secondRootUserId, organizationId: sub.organizationId, name: 'second root', now });
      tx.organizations.setRootQuorum(sub.organizationId, { threshold: 2, userIds: [sub.userId, secondRootUserId] }, now);
    });
    const sessionKey = newKey();
    const parameters = { oidcToken: await idToken('awaiting-quorum', sessionKey), publicKey: sessionKey.publicKey };
    const proposed = await t.submit('oauth_login', 'ACTIVITY_TYPE_OAUTH_LOGIN', parameters, { organizationId: sub.organizationId, key: sub.apiKey });
    expect(proposed.body.activity?.status, JSON.stringify(proposed.body)).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');

    // The byte-identical body from another user is that user's approval
    // (docs/service.md#fingerprint-idempotency-and-votes); a parent user may not cast it.
    const parentApproval = await t.submit('oauth_login', 'ACTIVITY_TYPE_OAUTH_LOGIN', parameters, {
      organizationId: sub.organizationId,
      key: t.rootKey,
    });
    expectRefused(parentApproval, 400, 'ORGANIZATION_MISMATCH');
  });

  it('refuses the key of a grandparent or of an unrelated organization; the direct parent’s key is accepted', async () => {
    const sub = await subOrganizationFor('grandchild-parent');
    const sibling = await subOrganizationFor('sibling');
    const grandchildId = randomUUID();
    await t.service.store.transaction((tx) => {
      const now = t.clock.now();
      const userId = randomUUID();
      tx.organizations.insert({ id: grandchildId, parentId: sub.organizationId, name: 'grandchild', rootQuorumThreshold: 1, now });
      tx.users.insert({ id: userId, organizationId: grandchildId, name: 'grandchild user', now });
      tx.organizations.setRootQuorum(grandchildId, { threshold: 1, userIds: [userId] }, now);
      tx.oauthProviders.insert({
        id: randomUUID(),
        organizationId: grandchildId,
        userId,
        name: 'test',
        issuer: ISSUER,
        audience: AUDIENCE,
        subject: 'grandchild',
        now,
      });
    });

    expectRefused((await oauthLogin(grandchildId, 'grandchild', t.rootKey)).reply, 401, 'PUBLIC_KEY_NOT_FOUND');
    expectRefused((await oauthLogin(sub.organizationId, 'grandchild-parent', sibling.apiKey)).reply, 401, 'PUBLIC_KEY_NOT_FOUND');
    const direct = (await oauthLogin(grandchildId, 'grandchild', sub.apiKey)).reply;
    expect(direct.body.activity?.status, JSON.stringify(direct.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('refuses the login when the token names a user of another sub-organization: no session, nothing recorded', async () => {
    const target = await subOrganizationFor('target-user');
    await subOrganizationFor('elsewhere-user');
    const { reply, sessionKey } = await oauthLogin(target.organizationId, 'elsewhere-user', t.rootKey);
    expectRefused(reply, 401, 'CREDENTIAL_NOT_FOUND');
    expect(reply.body.message).toMatch(new RegExp(`no user of organization ${target.organizationId}`));
    const whoami = await t.post('/public/v1/query/whoami', { organizationId: target.organizationId }, { key: sessionKey });
    expectRefused(whoami, 401, 'PUBLIC_KEY_NOT_FOUND');
    expect(await activityLog(target)).toEqual([]);
  });
});

/** The activities recorded in a sub-organization, read with its own user's key. */
async function activityLog(sub: { organizationId: string; apiKey: TestKey }): Promise<string[]> {
  const reply = await t.post('/public/v1/query/list_activities', { organizationId: sub.organizationId }, { key: sub.apiKey });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return (reply.body.activities as { type: string; status: string }[]).map((activity) => `${activity.type} ${activity.status}`);
}

/** A user of the root (parent) organization with one API key, outside the root quorum and named by no policy. */
async function parentUserWithoutPermission(): Promise<TestKey> {
  return (await t.addUser({ name: 'no permission' })).key;
}

describe('finding 6: a parent-organization user with no permission cannot write oauth_login activities into a sub-organization', () => {
  it('refuses the proposal (403) before anything is recorded, whatever the token', async () => {
    const sub = await subOrganizationFor('no-permission-target');
    const intruder = await parentUserWithoutPermission();
    const before = await activityLog(sub);

    const badToken = await t.submit(
      'oauth_login',
      'ACTIVITY_TYPE_OAUTH_LOGIN',
      {
        oidcToken: 'not-a-token',
        publicKey: newKey().publicKey,
      },
      { organizationId: sub.organizationId, key: intruder },
    );
    expectRefused(badToken, 403, 'REQUEST_NOT_AUTHORIZED');
    const goodToken = (await oauthLogin(sub.organizationId, 'no-permission-target', intruder)).reply;
    expectRefused(goodToken, 403, 'REQUEST_NOT_AUTHORIZED');
    expect(goodToken.body.message).toContain('No policies evaluated to outcome: Allow for ACTIVITY_TYPE_OAUTH_LOGIN');

    expect(await activityLog(sub)).toEqual(before);
  });

  it('a permitted parent user with a token that proves nothing is refused (401) and leaves the log untouched', async () => {
    const sub = await subOrganizationFor('permitted-bad-token');
    const before = await activityLog(sub);
    const malformed = await t.submit(
      'oauth_login',
      'ACTIVITY_TYPE_OAUTH_LOGIN',
      {
        oidcToken: 'not-a-token',
        publicKey: newKey().publicKey,
      },
      { organizationId: sub.organizationId },
    );
    expectRefused(malformed, 401, 'INVALID_OIDC_TOKEN');
    const otherSubject = (await oauthLogin(sub.organizationId, 'nobody-here', t.rootKey)).reply;
    expectRefused(otherSubject, 401, 'CREDENTIAL_NOT_FOUND');
    expect(await activityLog(sub)).toEqual(before);
  });

  it('a parent user allowed by a parent policy may propose the login', async () => {
    const sub = await subOrganizationFor('policy-allowed');
    const allowed = await parentUserWithoutPermission();
    const whoami = await t.post('/public/v1/query/whoami', { organizationId: t.info.organizationId }, { key: allowed });
    const policy = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'auth proxy logins',
      effect: 'EFFECT_ALLOW',
      consensus: `approvers.any(user, user.id == '${whoami.body.userId as string}')`,
      condition: "activity.type == 'ACTIVITY_TYPE_OAUTH_LOGIN'",
      notes: '',
    });
    expect(policy.body.activity?.status, JSON.stringify(policy.body)).toBe('ACTIVITY_STATUS_COMPLETED');
    const login = (await oauthLogin(sub.organizationId, 'policy-allowed', allowed)).reply;
    expect(login.body.activity?.status, JSON.stringify(login.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});
