/** Organizations, sub-organizations and the root quorum through Turnkey's official client. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activityOperations, queryOperations } from '../../../src/shared/api';
import { newKey, refusal, startTestService, type TestKey, type TestService } from '../../support/service';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(async () => {
  await t.close();
});

const rootUser = (userName: string, key?: TestKey, extra: Record<string, unknown> = {}) => ({
  userName,
  apiKeys: key === undefined ? [] : [{ apiKeyName: `${userName} key`, publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
  authenticators: [],
  oauthProviders: [],
  ...extra,
});

async function createSubOrganization(name: string, users = [rootUser('owner', newKey())], threshold = 1, flags: Record<string, boolean> = {}) {
  const { activity } = await t.client().createSubOrganization(
    t.envelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
      subOrganizationName: name,
      rootUsers: users,
      rootQuorumThreshold: threshold,
      ...flags,
    }),
  );
  expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return activityOperations.create_sub_organization.result.parse(activity.result.createSubOrganizationResultV8);
}

describe('root quorum', () => {
  it('a 2-of-3 quorum set up with create_users + update_root_quorum needs two approvals to change again', async () => {
    const bobKey = newKey();
    const carolKey = newKey();
    const created = await t.client().createUsers(
      t.envelope('ACTIVITY_TYPE_CREATE_USERS_V4', {
        users: [
          { ...rootUser('bob', bobKey), userTags: [] },
          { ...rootUser('carol', carolKey), userTags: [] },
        ],
      }),
    );
    const [bob, carol] = created.activity.result.createUsersResult!.userIds;
    const members = [t.info.rootUserId, bob!, carol!];
    const set = await t.client().updateRootQuorum(t.envelope('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold: 2, userIds: members }));
    expect(set.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(activityOperations.update_root_quorum.result.parse(set.activity.result.updateRootQuorumResult)).toEqual({});
    const { configs } = queryOperations.get_organization_configs.response.parse(
      await t.client().getOrganizationConfigs({ organizationId: t.info.organizationId }),
    );
    expect(configs).toEqual({ features: [], quorum: { threshold: 2, userIds: members } });

    // Down to 1-of-2 without carol: proposed by bob, pending until a second root user approves.
    t.clock.advance(1);
    const proposed = await t
      .client(bobKey)
      .updateRootQuorum(t.envelope('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold: 1, userIds: [t.info.rootUserId, bob!] }));
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect((await t.query('get_organization_configs', {})).body.configs.quorum.threshold).toBe(2);
    const approved = await t
      .client(carolKey)
      .approveActivity(t.envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: proposed.activity.fingerprint }));
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await t.query('get_organization_configs', {})).body.configs.quorum).toEqual({ threshold: 1, userIds: [t.info.rootUserId, bob] });
  });

  it('refuses a zero or oversized threshold, non-members, and a proposer outside the quorum', async () => {
    const dave = await t.addUser({ name: 'dave' });
    const update = (threshold: number, userIds: string[], key?: TestKey) =>
      t.submit('update_root_quorum', 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold, userIds }, key === undefined ? {} : { key });
    const zero = await update(0, [t.info.rootUserId]);
    expect(refusal(zero)).toEqual([400, 'REQUEST_INVALID']);
    expect(zero.body.message).toContain('quorum threshold must be non-zero integer');
    expect(refusal(await update(2, [t.info.rootUserId]))).toEqual([400, 'REQUEST_INVALID']);
    const stranger = await update(1, [t.info.rootUserId, 'not-a-user']);
    expect(stranger.body.message).toContain('quorum users missing');
    expect(refusal(await update(1, [t.info.rootUserId, t.info.rootUserId]))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await update(1, [dave.userId], dave.key))).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect((await t.query('get_organization_configs', {})).body.configs.quorum).toEqual({ threshold: 1, userIds: [t.info.rootUserId] });
  });
});

describe('sub-organizations', () => {
  it('creates a sub-organization with its root users, quorum and features; reads it through get_organization', async () => {
    const ownerKey = newKey();
    const result = await createSubOrganization(
      'customer 1',
      [rootUser('owner', ownerKey, { userEmail: 'owner@example.com' }), rootUser('backup', newKey())],
      2,
      { disableSmsAuth: true, disableEmailRecovery: true },
    );
    expect(result).toEqual({ subOrganizationId: expect.any(String), rootUserIds: [expect.any(String), expect.any(String)] });
    const { subOrganizationId, rootUserIds } = result;

    const { configs } = await t.client(ownerKey).getOrganizationConfigs({ organizationId: subOrganizationId });
    expect(configs).toEqual({
      features: [{ name: 'FEATURE_NAME_EMAIL_AUTH' }, { name: 'FEATURE_NAME_OTP_EMAIL_AUTH' }],
      quorum: { threshold: 2, userIds: rootUserIds },
    });
    const { organizationData } = queryOperations.get_organization.response.parse(
      await t.client().getOrganization({ organizationId: subOrganizationId }),
    );
    expect(organizationData).toMatchObject({
      organizationId: subOrganizationId,
      name: 'customer 1',
      policies: [],
      tags: [],
      rootQuorum: { threshold: 2, userIds: rootUserIds },
    });
    expect(organizationData.users?.map((u) => [u.userName, u.userEmail])).toEqual([
      ['owner', 'owner@example.com'],
      ['backup', undefined],
    ]);
    expect((await t.client(ownerKey).getWhoami({ organizationId: subOrganizationId })).organizationName).toBe('customer 1');
  });

  it('a parent-organization user reads its sub-organization but cannot act in it; a sub-organization user cannot reach the parent', async () => {
    const ownerKey = newKey();
    const { subOrganizationId, rootUserIds } = await createSubOrganization('customer 2', [rootUser('owner', ownerKey)]);
    const users = await t.client().getUsers({ organizationId: subOrganizationId });
    expect(users.users.map((u) => u.userId)).toEqual(rootUserIds);
    expect((await t.client().getApiKeys({ organizationId: subOrganizationId })).apiKeys[0]?.credential.publicKey).toBe(ownerKey.publicKey);

    const parentActs = await t.submit(
      'create_user_tag',
      'ACTIVITY_TYPE_CREATE_USER_TAG',
      { userTagName: 'x', userIds: [] },
      { organizationId: subOrganizationId },
    );
    expect(refusal(parentActs)).toEqual([400, 'ORGANIZATION_MISMATCH']);
    expect(refusal(await t.query('list_users', {}, { key: ownerKey }))).toEqual([401, 'PUBLIC_KEY_NOT_FOUND']);
    const childActs = await t.submit('create_user_tag', 'ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: 'x', userIds: [] }, { key: ownerKey });
    expect(refusal(childActs)).toEqual([401, 'PUBLIC_KEY_NOT_FOUND']);

    // The sub-organization's own root user acts in it, within the sub-organization's tag limit of 10.
    for (let i = 0; i < 10; i += 1) {
      const reply = await t.submit(
        'create_user_tag',
        'ACTIVITY_TYPE_CREATE_USER_TAG',
        { userTagName: `tag ${i}`, userIds: [] },
        { key: ownerKey, organizationId: subOrganizationId },
      );
      expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    }
    const eleventh = await t.submit(
      'create_user_tag',
      'ACTIVITY_TYPE_CREATE_USER_TAG',
      { userTagName: 'tag 10', userIds: [] },
      { key: ownerKey, organizationId: subOrganizationId },
    );
    expect(refusal(eleventh)).toEqual([429, 'LIMIT_EXCEEDED']);
    const nested = await t.submit(
      'create_sub_organization',
      'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8',
      { subOrganizationName: 'nested', rootUsers: [rootUser('n')], rootQuorumThreshold: 1 },
      { key: ownerKey, organizationId: subOrganizationId },
    );
    expect(refusal(nested)).toEqual([429, 'LIMIT_EXCEEDED']);
  });

  it('refuses a bad threshold, no root users, an empty name, a wallet with a bad mnemonic length, and a forged token', async () => {
    const submit = (parameters: Record<string, unknown>) =>
      t.submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
        subOrganizationName: 'x',
        rootUsers: [rootUser('a')],
        rootQuorumThreshold: 1,
        ...parameters,
      });
    expect(refusal(await submit({ rootQuorumThreshold: 2 }))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await submit({ rootQuorumThreshold: 0 }))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await submit({ rootUsers: [] }))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await submit({ subOrganizationName: '  ' }))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await submit({ wallet: { walletName: 'w', accounts: [], mnemonicLength: 13 } }))).toEqual([400, 'MNEMONIC_INVALID']);
    expect(
      refusal(await submit({ clientSignature: { publicKey: '02', scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message: '{}', signature: '00' } })),
    ).toEqual([400, 'REQUEST_INVALID']);
    // The token's expiry depends on when the activity runs, so a bad token fails the activity rather than the request.
    const forged = await submit({
      verificationToken: 'token',
      clientSignature: { publicKey: '02', scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message: '{}', signature: '00' },
    });
    expect(forged.body.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(forged.body.activity.failure.details[0].turnkeyErrorCode).toBe('TOKEN_INVALID');
    expect((await t.query('list_suborgs', {})).body.organizationIds).toEqual([]);
  });

  it('lists sub-organizations by page and by name, email or public key', async () => {
    const key = newKey();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const users = [rootUser(`user ${i}`, i === 3 ? key : undefined, i === 1 ? { userEmail: 'one@example.com' } : {})];
      ids.push((await createSubOrganization(`org ${i}`, users)).subOrganizationId);
      t.clock.advance(1);
    }
    const list = async (request: Record<string, unknown>) =>
      queryOperations.list_suborgs.response.parse(await t.client().getSubOrgIds({ organizationId: t.info.organizationId, ...request }))
        .organizationIds;
    expect(await list({})).toEqual(ids);
    expect(await list({ paginationOptions: { limit: '2' } })).toEqual(ids.slice(0, 2));
    expect(await list({ paginationOptions: { limit: '2', after: ids[1] } })).toEqual(ids.slice(2, 4));
    expect(await list({ paginationOptions: { limit: '2', before: ids[4] } })).toEqual(ids.slice(2, 4));
    expect(await list({ filterType: 'NAME', filterValue: 'org 2' })).toEqual([ids[2]]);
    expect(await list({ filterType: 'EMAIL', filterValue: 'one@example.com' })).toEqual([ids[1]]);
    expect(await list({ filterType: 'PUBLIC_KEY', filterValue: key.publicKey.toUpperCase() })).toEqual([ids[3]]);
    expect(refusal(await t.query('list_suborgs', { filterType: 'WALLET_ACCOUNT_ADDRESS', filterValue: 'x' }))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await t.query('list_suborgs', { paginationOptions: { limit: '101' } }))).toEqual([400, 'REQUEST_INVALID']);
  });

  it('deletes a sub-organization only from inside it, and only with its wallets exported or deleteWithoutExport', async () => {
    const ownerKey = newKey();
    const { subOrganizationId } = await createSubOrganization('leaving', [rootUser('owner', ownerKey)]);
    const asOwner = { key: ownerKey, organizationId: subOrganizationId };
    const wallet = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'funds', accounts: [] }, asOwner);
    expect(wallet.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    expect(refusal(await t.submit('delete_sub_organization', 'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION', {}))).toEqual([400, 'FAILED_PRECONDITION']);
    const unexported = await t.submit('delete_sub_organization', 'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION', {}, asOwner);
    expect(refusal(unexported)).toEqual([400, 'NOT_EXPORTED']);
    expect(unexported.body.message).toContain('deleteWithoutExport');

    const deleted = await t
      .client(ownerKey)
      .deleteSubOrganization(t.envelope('ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION', { deleteWithoutExport: true }, subOrganizationId));
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(activityOperations.delete_sub_organization.result.parse(deleted.activity.result.deleteSubOrganizationResult)).toEqual({
      subOrganizationUuid: subOrganizationId,
    });
    expect(refusal(await t.query('list_users', { organizationId: subOrganizationId }))).toEqual([404, 'ORGANIZATION_NOT_FOUND']);
    expect((await t.query('list_suborgs', {})).body.organizationIds).toEqual([]);
    expect(t.store.read.wallets.listByOrganization(subOrganizationId)).toEqual([]);
    expect(t.store.read.apiKeys.findByPublicKey(ownerKey.publicKey)).toEqual([]);
  });
});
