/**
 * Built-in authorization exceptions (docs/service.md#policy-precedence): a user manages its own credentials without a
 * policy unless a DENY policy matches; users named in a consensus expression may vote on the activities that policy
 * covers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authorize, isEligibleVoter, type Approver } from '../../../src/service/authorize';
import { recordingPolicyWorkers } from '../../support/policy-workers';
import { newKey, refusal, startTestService, type TestKey, type TestService } from '../../support/service';

let t: TestService;
let dave: { userId: string; key: TestKey };
let erin: { userId: string; key: TestKey };

beforeEach(async () => {
  t = await startTestService();
  dave = await t.addUser({ name: 'dave' });
  erin = await t.addUser({ name: 'erin' });
});
afterEach(async () => {
  await t.close();
});

const apiKeyParams = (name: string, key: TestKey) => ({ apiKeyName: name, publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' });
const createApiKey = (forUserId: string, newApiKey: TestKey, by: TestKey) =>
  t.submit('create_api_keys', 'ACTIVITY_TYPE_CREATE_API_KEYS_V2', { userId: forUserId, apiKeys: [apiKeyParams('laptop', newApiKey)] }, { key: by });
const deleteApiKeys = (forUserId: string, apiKeyIds: string[], by: TestKey) =>
  t.submit('delete_api_keys', 'ACTIVITY_TYPE_DELETE_API_KEYS', { userId: forUserId, apiKeyIds }, { key: by });
const apiKeyIdsOf = async (userId: string): Promise<string[]> =>
  (await t.query('get_api_keys', { userId })).body.apiKeys.map((key: { apiKeyId: string }) => key.apiKeyId);

describe('users manage their own credentials without a policy', () => {
  it('a non-root user adds an API key for itself alone, uses it, and deletes it alone', async () => {
    const laptop = newKey('p256');
    const created = await createApiKey(dave.userId, laptop, dave.key);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const [laptopKeyId] = created.body.activity.result.createApiKeysResult.apiKeyIds as string[];
    expect((await t.query('whoami', {}, { key: laptop })).body.userId).toBe(dave.userId);

    const deleted = await deleteApiKeys(dave.userId, [laptopKeyId!], dave.key);
    expect(deleted.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await apiKeyIdsOf(dave.userId)).not.toContain(laptopKeyId);
    expect((await t.query('whoami', {}, { key: laptop })).status).toBe(401);
  });

  it('cannot add or delete keys of another user, and nothing is recorded', async () => {
    const before = await t.activityCount();
    const forErin = await createApiKey(erin.userId, newKey('p256'), dave.key);
    expect(refusal(forErin)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    const [erinKeyId] = await apiKeyIdsOf(erin.userId);
    const deletingErins = await deleteApiKeys(erin.userId, [erinKeyId!], dave.key);
    expect(refusal(deletingErins)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    // Naming itself as the owner of another user's key does not get past the key's real owner.
    const disguised = await deleteApiKeys(dave.userId, [erinKeyId!], dave.key);
    expect(refusal(disguised)).toEqual([404, 'NOT_FOUND']);
    expect(await apiKeyIdsOf(erin.userId)).toEqual([erinKeyId]);
    expect(await t.activityCount()).toBe(before);
  });

  it('a matching DENY policy stops it', async () => {
    const [laptopKeyId] = (await createApiKey(dave.userId, newKey('p256'), dave.key)).body.activity.result.createApiKeysResult.apiKeyIds;
    const policy = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'no new credentials',
      effect: 'EFFECT_DENY',
      condition: "activity.resource == 'CREDENTIAL' && activity.action == 'CREATE'",
      notes: '',
    });
    expect(policy.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const refused = await createApiKey(dave.userId, newKey('p256'), dave.key);
    expect(refusal(refused)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect(refused.body.message).toBe('policy engine denied request explicitly');
    // Deleting is not what the policy denies.
    expect((await deleteApiKeys(dave.userId, [laptopKeyId], dave.key)).body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('a root user short of the root threshold still manages its own keys alone', async () => {
    await t.setRootQuorum(2, [t.info.rootUserId, dave.userId]);
    const own = await createApiKey(dave.userId, newKey('p256'), dave.key);
    expect(own.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const others = await createApiKey(erin.userId, newKey('p256'), dave.key);
    expect(others.body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
  });
});

describe('authorize(): the own-credentials exception by activity type', () => {
  const credentialActivityTypes = [
    'ACTIVITY_TYPE_CREATE_API_KEYS_V2',
    'ACTIVITY_TYPE_DELETE_API_KEYS',
    'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
    'ACTIVITY_TYPE_DELETE_AUTHENTICATORS',
    'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2',
    'ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS',
  ];
  const approver = (userId: string): Approver => {
    const key = t.store.read.apiKeys.listByUser(userId)[0]!;
    return { userId, credential: { id: key.id, user_id: userId, type: key.credentialType, public_key: key.publicKey } };
  };
  const decide = (activityType: string, params: Record<string, unknown>, by: string) =>
    authorize({
      store: t.store.read,
      organization: t.store.read.organizations.get(t.info.organizationId)!,
      activityType,
      params,
      resources: {},
      approvers: [approver(by)],
      now: t.clock.now(),
      log: () => {},
      policyWorkers: recordingPolicyWorkers(),
    });

  it.each(credentialActivityTypes)('%s: allowed for the user named by userId, denied for another', async (activityType) => {
    expect(await decide(activityType, { userId: dave.userId }, dave.userId)).toMatchObject({ decision: 'allow', by: 'own-credentials' });
    expect(await decide(activityType, { userId: erin.userId }, dave.userId)).toMatchObject({ decision: 'deny', reason: 'implicit' });
  });

  it('does not extend to other activities that name the user', async () => {
    expect(await decide('ACTIVITY_TYPE_UPDATE_USER_NAME', { userId: dave.userId, userName: 'd' }, dave.userId)).toMatchObject({ decision: 'deny' });
    expect(await decide('ACTIVITY_TYPE_DELETE_USERS', { userIds: [dave.userId] }, dave.userId)).toMatchObject({ decision: 'deny' });
  });
});

describe('users named in a consensus expression may approve', () => {
  it('isEligibleVoter holds for the user a policy consensus names, not for others', async () => {
    await t.store.transaction((tx) =>
      tx.policies.insert({
        id: 'policy-erin-approves',
        organizationId: t.info.organizationId,
        name: 'erin approves policies',
        effect: 'EFFECT_ALLOW',
        condition: "activity.resource == 'POLICY'",
        consensus: `approvers.any(user, user.id == '${erin.userId}')`,
        time: '',
        notes: '',
        now: t.clock.now(),
      }),
    );
    const request = (activityType: string) => ({
      store: t.store.read,
      organization: t.store.read.organizations.get(t.info.organizationId)!,
      activityType,
      params: {},
      resources: {},
      now: t.clock.now(),
      log: () => {},
      policyWorkers: recordingPolicyWorkers(),
    });
    expect(await isEligibleVoter(request('ACTIVITY_TYPE_CREATE_POLICY_V3'), erin.userId)).toBe(true);
    expect(await isEligibleVoter(request('ACTIVITY_TYPE_CREATE_POLICY_V3'), dave.userId)).toBe(false);
    // The policy's condition does not cover wallets, so naming erin gives her no vote there.
    expect(await isEligibleVoter(request('ACTIVITY_TYPE_CREATE_WALLET'), erin.userId)).toBe(false);
  });
});
