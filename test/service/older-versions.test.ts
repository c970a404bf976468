/**
 * Older activity versions submitted at the current paths (the ones no installed client sends on its own): each is
 * recorded and answered under its own type, intent and result names, runs the current implementation, and keeps
 * doing so when it completes later through consensus.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newKey, startTestService, type TestService } from '../support/service';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' };

describe('older versions at the current paths', () => {
  it('CREATE_API_KEYS (v1): a key without a curve is a P-256 key that then signs', async () => {
    const key = newKey('p256');
    const reply = await t.submit('create_api_keys', 'ACTIVITY_TYPE_CREATE_API_KEYS', {
      userId: t.info.rootUserId,
      apiKeys: [{ apiKeyName: 'v1 key', publicKey: key.publicKey }],
    });
    expect(reply.status).toBe(200);
    const { activity } = reply.body;
    expect([activity.type, activity.status]).toEqual(['ACTIVITY_TYPE_CREATE_API_KEYS', 'ACTIVITY_STATUS_COMPLETED']);
    expect(activity.intent).toEqual({
      createApiKeysIntent: { userId: t.info.rootUserId, apiKeys: [{ apiKeyName: 'v1 key', publicKey: key.publicKey }] },
    });
    expect(activity.result.createApiKeysResult.apiKeyIds).toHaveLength(1);
    const whoami = await t.query('whoami', {}, { key });
    expect([whoami.status, whoami.body.userId]).toEqual([200, t.info.rootUserId]);
  });

  it('CREATE_PRIVATE_KEYS (v1) answers only the ids, in createPrivateKeysResult', async () => {
    const reply = await t.submit('create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS', {
      privateKeys: [{ privateKeyName: 'v1 key', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }],
    });
    const { activity } = reply.body;
    expect(activity.type).toBe('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS');
    expect(Object.keys(activity.intent)).toEqual(['createPrivateKeysIntent']);
    const ids: string[] = activity.result.createPrivateKeysResult.privateKeyIds;
    expect(ids).toHaveLength(1);
    const fetched = await t.query('get_private_key', { privateKeyId: ids[0] });
    expect(fetched.body.privateKey.privateKeyName).toBe('v1 key');
  });

  it.each([
    ['ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4', 'createSubOrganizationIntentV4', 'createSubOrganizationResultV4', {}],
    ['ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5', 'createSubOrganizationIntentV5', 'createSubOrganizationResultV5', { oauthProviders: [] }],
  ])('%s with API keys without a curve', async (type, intentKey, resultKey, extra) => {
    const key = newKey('p256');
    const reply = await t.submit('create_sub_organization', type, {
      subOrganizationName: type,
      rootUsers: [{ userName: 'root', apiKeys: [{ apiKeyName: 'root key', publicKey: key.publicKey }], authenticators: [], ...extra }],
      rootQuorumThreshold: 1,
      wallet: { walletName: 'w', accounts: [ETHEREUM] },
    });
    const { activity } = reply.body;
    expect([activity.type, Object.keys(activity.intent), Object.keys(activity.result)]).toEqual([type, [intentKey], [resultKey]]);
    const subOrganizationId: string = activity.result[resultKey].subOrganizationId;
    const whoami = await t.query('whoami', { organizationId: subOrganizationId }, { key });
    expect([whoami.status, whoami.body.organizationId]).toEqual([200, subOrganizationId]);
  });

  it('CREATE_SUB_ORGANIZATION_V6 takes keys with a curve and OIDC providers by token', async () => {
    const reply = await t.submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6', {
      subOrganizationName: 'v6',
      rootUsers: [
        {
          userName: 'root',
          apiKeys: [{ apiKeyName: 'k', publicKey: newKey('p256').publicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    });
    expect(reply.body.activity.result.createSubOrganizationResultV6.subOrganizationId).toEqual(expect.any(String));
  });

  it('refuses a member a version does not have, naming it', async () => {
    const reply = await t.submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4', {
      subOrganizationName: 'v4',
      rootUsers: [{ userName: 'root', apiKeys: [], authenticators: [], oauthProviders: [] }],
      rootQuorumThreshold: 1,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain('parameters.rootUsers[0].oauthProviders: unknown field');
  });

  it('CREATE_POLICY with condition-shaped parameters creates the policy; selectors are refused clearly', async () => {
    const condition = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'";
    const v1 = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY', { policyName: 'v1', effect: 'EFFECT_ALLOW', condition, notes: '' });
    expect(v1.body.activity.intent).toEqual({ createPolicyIntent: { policyName: 'v1', effect: 'EFFECT_ALLOW', condition, notes: '' } });
    const policyId: string = v1.body.activity.result.createPolicyResult.policyId;
    expect((await t.query('get_policy', { policyId })).body.policy.condition).toBe(condition);

    const noSelectors = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V2', {
      policyName: 'v2 empty',
      selectors: [],
      effect: 'EFFECT_DENY',
    });
    expect(noSelectors.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    const selectors = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V2', {
      policyName: 'v2',
      selectors: [{ subject: 'activity.type', operator: 'OPERATOR_EQUAL', targets: ['ACTIVITY_TYPE_CREATE_WALLET'] }],
      effect: 'EFFECT_ALLOW',
    });
    expect(selectors.status).toBe(400);
    expect(selectors.body.message).toMatch(
      /^ACTIVITY_TYPE_CREATE_POLICY_V2: policies with selectors are not supported.*ACTIVITY_TYPE_CREATE_POLICY_V3/,
    );
  });

  it('a type that is no version of the path is refused', async () => {
    const reply = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_USERS_V2', { users: [] });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain('type');
  });
});

describe('an older version through consensus', () => {
  it('CREATE_USERS_V2 waits for a second root user, then runs and answers under its own names', async () => {
    const bob = await t.addUser({ name: 'bob' });
    await t.setRootQuorum(2, [t.info.rootUserId, bob.userId]);
    const key = newKey('p256');
    const proposed = await t.submit('create_users', 'ACTIVITY_TYPE_CREATE_USERS_V2', {
      users: [{ userName: 'late user', apiKeys: [{ apiKeyName: 'k', publicKey: key.publicKey }], authenticators: [], userTags: [] }],
    });
    const pending = proposed.body.activity;
    expect([pending.type, pending.status]).toEqual(['ACTIVITY_TYPE_CREATE_USERS_V2', 'ACTIVITY_STATUS_CONSENSUS_NEEDED']);

    const approved = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key: bob.key });
    const { activity } = approved.body;
    expect([activity.id, activity.status]).toEqual([pending.id, 'ACTIVITY_STATUS_COMPLETED']);
    expect(activity.result.createUsersResult.userIds).toHaveLength(1);
    expect((await t.query('whoami', {}, { key })).body.username).toBe('late user');
  });

  it('a policy naming the older type applies to it', async () => {
    const bob = await t.addUser({ name: 'bob' });
    await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'bob adds keys the old way',
      effect: 'EFFECT_ALLOW',
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_API_KEYS'",
      consensus: `approvers.any(user, user.id == '${bob.userId}')`,
      notes: '',
    });
    const params = { userId: t.info.rootUserId, apiKeys: [{ apiKeyName: 'by bob', publicKey: newKey('p256').publicKey }] };
    const allowed = await t.submit('create_api_keys', 'ACTIVITY_TYPE_CREATE_API_KEYS', params, { key: bob.key });
    expect(allowed.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const current = await t.submit(
      'create_api_keys',
      'ACTIVITY_TYPE_CREATE_API_KEYS_V2',
      { ...params, apiKeys: [{ apiKeyName: 'by bob v2', publicKey: newKey('p256').publicKey, curveType: 'API_KEY_CURVE_P256' }] },
      { key: bob.key },
    );
    expect(current.status).toBe(403);
  });
});
