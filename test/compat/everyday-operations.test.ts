/**
 * The everyday operations beyond the first release (renames, contact changes, bulk deletions, API-only users, stamp
 * login, a session profile by id), each called through Turnkey's `@turnkey/http` client unchanged, with a consensus
 * case where a policy lets a non-root user act.
 */
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { parseSessionJwt } from '../../src/shared/crypto/tokens';
import { newKey, startTestService, type TestService } from '../support/service';
import { clientRefusal } from '../support/client-refusal';

const ETHEREUM = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const ETHEREUM_2 = { ...ETHEREUM, path: "m/44'/60'/0'/0/1" } as const;

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

async function newWallet(name: string) {
  const created = await t
    .client()
    .createWallet({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'), parameters: { walletName: name, accounts: [ETHEREUM, ETHEREUM_2] } });
  return created.activity.result.createWalletResult!.walletId;
}

describe('wallets', () => {
  it('update_wallet renames; a name another wallet has is refused', async () => {
    const walletId = await newWallet('before');
    await newWallet('taken');
    const renamed = await t
      .client()
      .updateWallet({ ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_WALLET'), parameters: { walletId, walletName: 'after' } });
    expect(renamed.activity.result.updateWalletResult).toEqual({ walletId });
    expect((await t.client().getWallet({ organizationId: t.info.organizationId, walletId })).wallet.walletName).toBe('after');

    const taken = await clientRefusal(
      t.client().updateWallet({ ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_WALLET'), parameters: { walletId, walletName: 'taken' } }),
    );
    expect([taken.code, taken.message]).toEqual([6, expect.stringContaining('wallet label must be unique')]);
  });

  it('update_wallet by a non-root user needs the policy that allows it, then runs', async () => {
    const walletId = await newWallet('shared');
    const bob = await t.addUser({ name: 'bob' });
    const asBob = () =>
      t.client(bob.key).updateWallet({ ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_WALLET'), parameters: { walletId, walletName: 'renamed by bob' } });
    expect((await clientRefusal(asBob())).code).toBe(7);

    await t.client().createPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
      parameters: {
        policyName: 'bob renames the shared wallet',
        effect: 'EFFECT_ALLOW',
        condition: `activity.action == 'UPDATE' && wallet.id == '${walletId}'`,
        consensus: `approvers.any(user, user.id == '${bob.userId}')`,
        notes: '',
      },
    });
    const allowed = await asBob();
    expect(allowed.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await t.client().getWallet({ organizationId: t.info.organizationId, walletId })).wallet.walletName).toBe('renamed by bob');
  });

  it('delete_wallet_accounts refuses accounts of a never-exported wallet unless deleteWithoutExport', async () => {
    const walletId = await newWallet('accounts');
    const { accounts } = await t.client().getWalletAccounts({ organizationId: t.info.organizationId, walletId });
    const [first, second] = accounts.map((account) => account.walletAccountId);
    const kept = await clientRefusal(
      t.client().deleteWalletAccounts({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS'), parameters: { walletAccountIds: [first!] } }),
    );
    expect(kept.message).toMatch(/never been exported/);

    const deleted = await t.client().deleteWalletAccounts({
      ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS'),
      parameters: { walletAccountIds: [first!], deleteWithoutExport: true },
    });
    expect(deleted.activity.result.deleteWalletAccountsResult).toEqual({ walletAccountIds: [first] });
    const left = await t.client().getWalletAccounts({ organizationId: t.info.organizationId, walletId });
    expect(left.accounts.map((account) => account.walletAccountId)).toEqual([second]);

    const unknown = await clientRefusal(
      t.client().deleteWalletAccounts({
        ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS'),
        parameters: { walletAccountIds: [first!], deleteWithoutExport: true },
      }),
    );
    expect(unknown.message).toContain(`no wallet account ${first}`);
  });
});

describe('policies, users, tags, the organization', () => {
  it('get_active_policies tells which policies are inside their time window now', async () => {
    const dayAgo = new Date(t.clock.now() - 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const since = `time.now >= Timestamp('${dayAgo}')`;
    const until = `time.now < Timestamp('${dayAgo}')`;
    const created = await t.client().createPolicies({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICIES'),
      parameters: {
        policies: [
          { policyName: 'always', effect: 'EFFECT_DENY' as const, condition: 'false', notes: '' },
          { policyName: 'since yesterday', effect: 'EFFECT_DENY' as const, condition: 'false', notes: '', time: since },
          { policyName: 'until yesterday', effect: 'EFFECT_DENY' as const, condition: 'false', notes: '', time: until },
        ],
      },
    });
    const [always, sinceYesterday, untilYesterday] = created.activity.result.createPoliciesResult!.policyIds;
    const active = await t.client().getActivePolicies({ organizationId: t.info.organizationId });
    expect(active.evaluatedAtMs).toBe(String(t.clock.now()));
    expect(active.statuses.map((status) => [status.policyId, status.active, status.timeExpr])).toEqual([
      [always, true, undefined],
      [sinceYesterday, true, since],
      [untilYesterday, false, until],
    ]);
  });

  it('delete_policies deletes every named policy or none', async () => {
    const created = await t.client().createPolicies({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICIES'),
      parameters: { policies: ['a', 'b', 'c'].map((name) => ({ policyName: name, effect: 'EFFECT_DENY' as const, condition: 'false', notes: '' })) },
    });
    const [a, b, c] = created.activity.result.createPoliciesResult!.policyIds;
    const missing = await clientRefusal(
      t.client().deletePolicies({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_POLICIES'), parameters: { policyIds: [a!, 'nope'] } }),
    );
    expect(missing.message).toContain('parameters.policyIds[1]: no policy nope');
    const deleted = await t.client().deletePolicies({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_POLICIES'), parameters: { policyIds: [a!, b!] } });
    expect(deleted.activity.result.deletePoliciesResult).toEqual({ policyIds: [a, b] });
    const { policies } = await t.client().getPolicies({ organizationId: t.info.organizationId });
    expect(policies.map((policy) => policy.policyId)).toEqual([c]);
  });

  it('update_user_tag renames and moves members', async () => {
    const bob = await t.addUser({ name: 'bob' });
    const carol = await t.addUser({ name: 'carol' });
    const tag = await t
      .client()
      .createUserTag({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_USER_TAG'), parameters: { userTagName: 'ops', userIds: [bob.userId] } });
    const userTagId = tag.activity.result.createUserTagResult!.userTagId;
    const updated = await t.client().updateUserTag({
      ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_USER_TAG'),
      parameters: { userTagId, newUserTagName: 'operators', addUserIds: [carol.userId], removeUserIds: [bob.userId] },
    });
    expect(updated.activity.result.updateUserTagResult).toEqual({ userTagId });
    const { userTags } = await t.client().listUserTags({ organizationId: t.info.organizationId });
    expect(userTags.find((candidate) => candidate.tagId === userTagId)?.tagName).toBe('operators');
    const userTagsOf = async (userId: string) => (await t.client().getUser({ organizationId: t.info.organizationId, userId })).user.userTags;
    expect([await userTagsOf(bob.userId), await userTagsOf(carol.userId)]).toEqual([[], [userTagId]]);

    const both = await clientRefusal(
      t.client().updateUserTag({
        ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_USER_TAG'),
        parameters: { userTagId, addUserIds: [bob.userId], removeUserIds: [bob.userId] },
      }),
    );
    expect(both.message).toContain('in both addUserIds and removeUserIds');
  });

  it('update_user_email and update_user_phone_number set the contact, refusing malformed ones', async () => {
    const bob = await t.addUser({ name: 'bob' });
    await t
      .client()
      .updateUserEmail({ ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_USER_EMAIL'), parameters: { userId: bob.userId, userEmail: 'bob@example.com' } });
    await t.client().updateUserPhoneNumber({
      ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER'),
      parameters: { userId: bob.userId, userPhoneNumber: '+13214567890' },
    });
    const { user } = await t.client().getUser({ organizationId: t.info.organizationId, userId: bob.userId });
    expect([user.userEmail, user.userPhoneNumber, user.userName]).toEqual(['bob@example.com', '+13214567890', 'bob']);

    const bad = await clientRefusal(
      t.client().updateUserPhoneNumber({
        ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER'),
        parameters: { userId: bob.userId, userPhoneNumber: '555' },
      }),
    );
    expect(bad.message).toContain('parameters.userPhoneNumber: "555" is not in E.164 format');
    const badToken = await t.client().updateUserEmail({
      ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_USER_EMAIL'),
      parameters: { userId: bob.userId, userEmail: 'bob@example.org', verificationToken: 'not.a.token' },
    });
    expect(badToken.activity.status).toBe('ACTIVITY_STATUS_FAILED');
  });

  it('update_organization_name renames the organization whoami reports', async () => {
    const renamed = await t
      .client()
      .updateOrganizationName({ ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME'), parameters: { organizationName: 'Renamed Org' } });
    expect(renamed.activity.result.updateOrganizationNameResult).toEqual({ organizationId: t.info.organizationId, organizationName: 'Renamed Org' });
    expect((await t.client().getWhoami({ organizationId: t.info.organizationId })).organizationName).toBe('Renamed Org');
  });

  it('create_api_only_users creates users whose P-256 keys then sign', async () => {
    const key = newKey('p256');
    const created = await t.client().createApiOnlyUsers({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_API_ONLY_USERS'),
      parameters: { apiOnlyUsers: [{ userName: 'robot', userTags: [], apiKeys: [{ apiKeyName: 'robot key', publicKey: key.publicKey }] }] },
    });
    const [userId] = created.activity.result.createApiOnlyUsersResult!.userIds;
    const whoami = await t.client(key).getWhoami({ organizationId: t.info.organizationId });
    expect([whoami.userId, whoami.username]).toEqual([userId, 'robot']);
  });
});

describe('private key tags', () => {
  it('create, list, update and delete tags; keys carry them, and a policy on private_key.tags sees them', async () => {
    const keys = await t.client().createPrivateKeys({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'),
      parameters: {
        privateKeys: ['hot', 'cold'].map((name) => ({
          privateKeyName: name,
          curve: 'CURVE_SECP256K1' as const,
          privateKeyTags: [],
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM' as const],
        })),
      },
    });
    const [hot, cold] = keys.activity.result.createPrivateKeysResultV2!.privateKeys.map((key) => key.privateKeyId!);
    const created = await t.client().createPrivateKeyTag({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'),
      parameters: { privateKeyTagName: 'treasury', privateKeyIds: [hot!] },
    });
    const { privateKeyTagId } = created.activity.result.createPrivateKeyTagResult!;
    const tagsOf = async (privateKeyId: string) =>
      (await t.client().getPrivateKey({ organizationId: t.info.organizationId, privateKeyId })).privateKey.privateKeyTags;
    expect(await tagsOf(hot!)).toEqual([privateKeyTagId]);

    const duplicate = await clientRefusal(
      t.client().createPrivateKeyTag({
        ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'),
        parameters: { privateKeyTagName: 'treasury', privateKeyIds: [] },
      }),
    );
    expect(duplicate.code).toBe(6);

    await t.client().updatePrivateKeyTag({
      ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG'),
      parameters: { privateKeyTagId, newPrivateKeyTagName: 'vault', addPrivateKeyIds: [cold!], removePrivateKeyIds: [hot!] },
    });
    const { privateKeyTags } = await t.client().listPrivateKeyTags({ organizationId: t.info.organizationId });
    expect(privateKeyTags.map((tag) => [tag.tagId, tag.tagName, tag.tagType])).toEqual([[privateKeyTagId, 'vault', 'TAG_TYPE_PRIVATE_KEY']]);
    expect([await tagsOf(hot!), await tagsOf(cold!)]).toEqual([[], [privateKeyTagId]]);

    // A non-root user may export only keys carrying the tag.
    const bob = await t.addUser({ name: 'bob' });
    await t.client().createPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
      parameters: {
        policyName: 'bob exports the vault',
        effect: 'EFFECT_ALLOW',
        condition: `private_key.tags.contains('${privateKeyTagId}')`,
        notes: '',
      },
    });
    const exportAs = (privateKeyId: string) =>
      t.client(bob.key).exportPrivateKey({
        ...t.nextEnvelope('ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'),
        parameters: { privateKeyId, targetPublicKey: generateP256KeyPair().publicKeyUncompressed },
      });
    expect((await exportAs(cold!)).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await clientRefusal(exportAs(hot!))).code).toBe(7);

    const deleted = await t
      .client()
      .deletePrivateKeyTags({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS'), parameters: { privateKeyTagIds: [privateKeyTagId] } });
    expect(deleted.activity.result.deletePrivateKeyTagsResult).toEqual({ privateKeyTagIds: [privateKeyTagId], privateKeyIds: [cold] });
    expect(await tagsOf(cold!)).toEqual([]);
    expect((await t.client().listPrivateKeyTags({ organizationId: t.info.organizationId })).privateKeyTags).toEqual([]);
  });
});

describe('sessions', () => {
  it('stamp_login opens a session for the stamping user; its key then stamps', async () => {
    const pair = generateApiKeyPair('p256');
    const login = await t
      .client()
      .stampLogin({ ...t.nextEnvelope('ACTIVITY_TYPE_STAMP_LOGIN'), parameters: { publicKey: pair.publicKey, expirationSeconds: '600' } });
    const claims = parseSessionJwt(login.activity.result.stampLoginResult!.session);
    expect([claims.user_id, claims.organization_id, claims.exp]).toEqual([
      t.info.rootUserId,
      t.info.organizationId,
      Math.floor(t.clock.now() / 1000) + 600,
    ]);
    const sessionKey = { curve: 'p256' as const, publicKey: claims.public_key, privateKey: pair.privateKey };
    expect((await t.client(sessionKey).getWhoami({ organizationId: t.info.organizationId })).userId).toBe(t.info.rootUserId);
  });

  it('create_read_write_session hands over a fresh key only as a bundle @turnkey/crypto decrypts; the key then stamps', async () => {
    const target = generateP256KeyPair();
    const session = await t.client().createReadWriteSession({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2'),
      parameters: { targetPublicKey: target.publicKeyUncompressed, apiKeyName: 'rw', expirationSeconds: '120' },
    });
    const result = session.activity.result.createReadWriteSessionResultV2!;
    expect(result).toMatchObject({ organizationId: t.info.organizationId, userId: t.info.rootUserId, username: expect.any(String) });
    const privateKey = decryptCredentialBundle(result.credentialBundle, target.privateKey);
    const publicKey = bytesToHex(getPublicKey(privateKey, true));
    const { apiKey } = await t.client().getApiKey({ organizationId: t.info.organizationId, apiKeyId: result.apiKeyId });
    expect(apiKey).toMatchObject({
      apiKeyName: 'rw',
      expirationSeconds: '120',
      credential: { publicKey, type: 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256' },
    });
    const sessionKey = { curve: 'p256' as const, publicKey, privateKey };
    expect((await t.client(sessionKey).getWhoami({ organizationId: t.info.organizationId })).userId).toBe(t.info.rootUserId);

    t.clock.advance(121_000);
    expect((await clientRefusal(t.client(sessionKey).getWhoami({ organizationId: t.info.organizationId }))).code).toBe(16);
  });

  it('create_read_only_session answers a token that authenticates queries (sent as X-Session), never activities', async () => {
    const created = await t.client().createReadOnlySession({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION'), parameters: {} });
    const result = created.activity.result.createReadOnlySessionResult!;
    expect(result).toMatchObject({
      organizationId: t.info.organizationId,
      userId: t.info.rootUserId,
      sessionExpiry: String(Math.floor(t.clock.now() / 1000) + 3600),
    });
    // As @turnkey/sdk-browser sends a read-only session: the token in X-Session, no stamp.
    const withSession = (path: string, body: unknown) =>
      fetch(`${t.info.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Session': result.session },
        body: JSON.stringify(body),
      });
    const whoami = await withSession('/public/v1/query/whoami', { organizationId: t.info.organizationId });
    expect([whoami.status, (await whoami.json()).userId]).toEqual([200, t.info.rootUserId]);
    const write = await withSession('/public/v1/submit/create_wallet', {
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'),
      parameters: { walletName: 'no', accounts: [] },
    });
    expect(write.status).toBe(401);

    t.clock.advance(3_600_000);
    const expired = await withSession('/public/v1/query/whoami', { organizationId: t.info.organizationId });
    expect([expired.status, (await expired.json()).details[0].turnkeyErrorCode]).toEqual([401, 'TOKEN_EXPIRED']);
  });

  it('a read-only session ends with the credential that created it', async () => {
    const bob = await t.addUser({ name: 'bob' });
    await t.client().createPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
      parameters: {
        policyName: 'read-only sessions',
        effect: 'EFFECT_ALLOW',
        condition: "activity.type == 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION'",
        notes: '',
      },
    });
    const created = await t.client(bob.key).createReadOnlySession({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION'), parameters: {} });
    const { session } = created.activity.result.createReadOnlySessionResult!;
    const whoami = () =>
      fetch(`${t.info.baseUrl}/public/v1/query/whoami`, {
        method: 'POST',
        headers: { 'X-Session': session },
        body: JSON.stringify({ organizationId: t.info.organizationId }),
      });
    expect((await whoami()).status).toBe(200);
    const { apiKeys } = await t.client().getApiKeys({ organizationId: t.info.organizationId, userId: bob.userId });
    await t.client().deleteApiKeys({
      ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_API_KEYS'),
      parameters: { userId: bob.userId, apiKeyIds: apiKeys.map((key) => key.apiKeyId) },
    });
    const after = await whoami();
    expect([after.status, (await after.json()).details[0].turnkeyErrorCode]).toEqual([401, 'SESSION_EXPIRED']);
  });

  it('get_session_profile answers one profile, NOT_FOUND for another id', async () => {
    const created = await t.client().createSessionProfile({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_SESSION_PROFILE'),
      parameters: { sessionProfileName: 'reader', scope: "activity.action == 'CREATE'", expirationSeconds: '300' },
    });
    const sessionProfileId = created.activity.result.createSessionProfileResult!.sessionProfileId;
    const { sessionProfile } = await t.client().getSessionProfile({ organizationId: t.info.organizationId, sessionProfileId });
    expect(sessionProfile).toMatchObject({ sessionProfileId, sessionProfileName: 'reader', expirationSeconds: '300' });
    expect((await clientRefusal(t.client().getSessionProfile({ organizationId: t.info.organizationId, sessionProfileId: 'missing' }))).code).toBe(5);
  });
});

describe('get_latest_boot_proof', () => {
  it('answers the boot proof of the one enclave app, NOT_FOUND for another', async () => {
    const { bootProof } = await t.client().getLatestBootProof({ organizationId: t.info.organizationId, appName: 'signer' });
    const { bootProof: byKey } = await t
      .client()
      .getBootProof({ organizationId: t.info.organizationId, ephemeralKey: bootProof.ephemeralPublicKeyHex });
    expect(bootProof).toEqual(byKey);
    expect((await clientRefusal(t.client().getLatestBootProof({ organizationId: t.info.organizationId, appName: 'notarizer' }))).code).toBe(5);
  });
});

describe('get_policy_evaluations', () => {
  it('answers the engine outcome per applicable policy at each vote that asked it', async () => {
    const bob = await t.addUser({ name: 'bob' });
    const carol = await t.addUser({ name: 'carol' });
    const created = await t.client().createPolicies({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICIES'),
      parameters: {
        policies: [
          {
            policyName: 'carol co-signs wallets',
            effect: 'EFFECT_ALLOW',
            condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'",
            consensus: `approvers.any(user, user.id == '${carol.userId}')`,
            notes: '',
          },
          { policyName: 'never applies', effect: 'EFFECT_DENY', condition: 'false', notes: '' },
        ],
      },
    });
    const [cosign] = created.activity.result.createPoliciesResult!.policyIds;
    const proposed = await t
      .client(bob.key)
      .createWallet({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'), parameters: { walletName: 'co-signed', accounts: [ETHEREUM] } });
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const approved = await t
      .client(carol.key)
      .approveActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'), parameters: { fingerprint: proposed.activity.fingerprint } });
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    const { policyEvaluations } = await t.client().getPolicyEvaluations({ organizationId: t.info.organizationId, activityId: proposed.activity.id });
    expect(policyEvaluations.map((evaluation) => [evaluation.voteId, evaluation.policyEvaluations])).toEqual([
      [approved.activity.votes[0]!.id, [{ policyId: cosign, outcome: 'OUTCOME_REQUIRES_CONSENSUS' }]],
      [approved.activity.votes[1]!.id, [{ policyId: cosign, outcome: 'OUTCOME_ALLOW' }]],
    ]);
    expect(
      policyEvaluations.every((evaluation) => evaluation.activityId === proposed.activity.id && evaluation.organizationId === t.info.organizationId),
    ).toBe(true);

    const missing = await clientRefusal(t.client().getPolicyEvaluations({ organizationId: t.info.organizationId, activityId: 'missing' }));
    expect(missing.message).toContain('no activity missing');
  });
});
