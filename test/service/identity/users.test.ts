/** Users, user tags and API keys through Turnkey's official client (@turnkey/http + ApiKeyStamper). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activityOperations, queryOperations } from '../../../src/shared/api';
import { newKey, refusal, startTestService, type TestService } from '../../support/service';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(async () => {
  await t.close();
});

const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  userName,
  apiKeys: [],
  authenticators: [],
  oauthProviders: [],
  userTags: [],
  ...extra,
});
const p256Key = (name: string, key = newKey('p256')) => ({ apiKeyName: name, publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' as const });

async function createUsers(users: ReturnType<typeof newUser>[]): Promise<string[]> {
  const { activity } = await t.client().createUsers(t.envelope('ACTIVITY_TYPE_CREATE_USERS_V4', { users }));
  expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return activityOperations.create_users.result.parse(activity.result.createUsersResult).userIds;
}

describe('users', () => {
  it('creates users with tags and keys of every curve, then gets and lists them in the v1User shape', async () => {
    const tag = await t.client().createUserTag(t.envelope('ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: 'operators', userIds: [] }));
    const tagId = activityOperations.create_user_tag.result.parse(tag.activity.result.createUserTagResult).userTagId;
    const ed = newKey('ed25519');
    const k1 = newKey('secp256k1');
    const [aliceId, bobId] = await createUsers([
      newUser('alice', {
        userEmail: 'alice@example.com',
        userPhoneNumber: '+13214567890',
        userTags: [tagId],
        apiKeys: [
          { apiKeyName: 'ed', publicKey: ed.publicKey, curveType: 'API_KEY_CURVE_ED25519' },
          { apiKeyName: 'k1', publicKey: k1.publicKey, curveType: 'API_KEY_CURVE_SECP256K1', expirationSeconds: '3600' },
        ],
      }),
      newUser('bob'),
    ]);

    const { user } = queryOperations.get_user.response.parse(await t.client().getUser({ organizationId: t.info.organizationId, userId: aliceId! }));
    expect(user).toMatchObject({ userId: aliceId, userName: 'alice', userEmail: 'alice@example.com', userPhoneNumber: '+13214567890' });
    expect(user.userTags).toEqual([tagId]);
    expect(user.apiKeys.map((key) => [key.apiKeyName, key.credential.type, key.credential.publicKey, key.expirationSeconds])).toEqual([
      ['ed', 'CREDENTIAL_TYPE_API_KEY_ED25519', ed.publicKey, undefined],
      ['k1', 'CREDENTIAL_TYPE_API_KEY_SECP256K1', k1.publicKey, '3600'],
    ]);

    const { users } = queryOperations.list_users.response.parse(await t.client().getUsers({ organizationId: t.info.organizationId }));
    expect(users.map((u) => u.userName)).toEqual(['Root user', 'alice', 'bob']);
    expect(users[2]).toMatchObject({ userId: bobId, apiKeys: [], userTags: [], authenticators: [], oauthProviders: [] });
  });

  it('an uncompressed P-256 key is stored in the compressed form stamps carry, so the new user can stamp', async () => {
    const key = newKey('p256');
    const { uncompressP256 } = await import('../../../src/shared/crypto/keys');
    const [userId] = await createUsers([
      newUser('carol', { apiKeys: [p256Key('uncompressed', { ...key, publicKey: uncompressP256(key.publicKey) })] }),
    ]);
    const whoami = await t.client(key).getWhoami({ organizationId: t.info.organizationId });
    expect(whoami).toMatchObject({ userId, username: 'carol' });
  });

  it('updates a user (name, email, phone, tags) and the name alone', async () => {
    const [userId] = await createUsers([newUser('dave')]);
    const tag = await t.client().createUserTag(t.envelope('ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: 'signers', userIds: [] }));
    const tagId = tag.activity.result.createUserTagResult!.userTagId;
    const updated = await t.client().updateUser(
      t.envelope('ACTIVITY_TYPE_UPDATE_USER', {
        userId: userId!,
        userEmail: 'dave@example.org',
        userPhoneNumber: '+442071234567',
        userTagIds: [tagId],
      }),
    );
    expect(activityOperations.update_user.result.parse(updated.activity.result.updateUserResult)).toEqual({ userId });
    const renamed = await t.client().updateUserName(t.envelope('ACTIVITY_TYPE_UPDATE_USER_NAME', { userId: userId!, userName: 'David' }));
    expect(activityOperations.update_user_name.result.parse(renamed.activity.result.updateUserNameResult)).toEqual({ userId });
    const { user } = await t.client().getUser({ organizationId: t.info.organizationId, userId: userId! });
    expect(user).toMatchObject({ userName: 'David', userEmail: 'dave@example.org', userPhoneNumber: '+442071234567', userTags: [tagId] });
  });

  it('deletes users with their keys; their keys no longer authenticate', async () => {
    const key = newKey('p256');
    const [userId] = await createUsers([newUser('erin', { apiKeys: [p256Key('erin key', key)] })]);
    const deleted = await t.client().deleteUsers(t.envelope('ACTIVITY_TYPE_DELETE_USERS', { userIds: [userId!] }));
    expect(activityOperations.delete_users.result.parse(deleted.activity.result.deleteUsersResult)).toEqual({ userIds: [userId] });
    expect(refusal(await t.query('get_user', { userId }))).toEqual([404, 'NOT_FOUND']);
    expect(refusal(await t.query('whoami', {}, { key }))).toEqual([401, 'PUBLIC_KEY_NOT_FOUND']);
  });

  it('refuses bad users before recording anything', async () => {
    const submit = (users: unknown[]) => t.submit('create_users', 'ACTIVITY_TYPE_CREATE_USERS_V4', { users });
    expect(refusal(await submit([]))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await submit([newUser(' ')]))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await submit([newUser('x', { userEmail: 'not-an-email' })]))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await submit([newUser('x', { userPhoneNumber: '0123' })]))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await submit([newUser('x', { userTags: ['no-such-tag'] })]))).toEqual([404, 'NOT_FOUND']);
    const bad = await submit([newUser('x', { apiKeys: [{ apiKeyName: 'k', publicKey: '02abcd', curveType: 'API_KEY_CURVE_P256' }] })]);
    expect(refusal(bad)).toEqual([400, 'KEY_INVALID']);
    expect(bad.body.message).toContain('parameters.users[0].apiKeys[0].publicKey');
    const shared = p256Key('same');
    expect(refusal(await submit([newUser('x', { apiKeys: [shared] }), newUser('y', { apiKeys: [shared] })]))).toEqual([409, 'ALREADY_EXISTS']);
    expect(refusal(await submit([newUser('x', { apiKeys: [p256Key('root again', t.rootKey)] })]))).toEqual([409, 'ALREADY_EXISTS']);
    const withPasskey = await submit([
      newUser('x', {
        authenticators: [
          { authenticatorName: 'a', challenge: 'c', attestation: { credentialId: 'i', clientDataJson: 'j', attestationObject: 'o', transports: [] } },
        ],
      }),
    ]);
    expect(refusal(withPasskey)).toEqual([400, 'REQUEST_INVALID']);
    expect((await t.query('list_activities', {})).body.activities).toEqual([]);
  });

  it('holds at most 100 users per organization', async () => {
    await createUsers(Array.from({ length: 99 }, (_, i) => newUser(`user ${i}`)));
    const reply = await t.submit('create_users', 'ACTIVITY_TYPE_CREATE_USERS_V4', { users: [newUser('one too many')] });
    expect(refusal(reply)).toEqual([429, 'LIMIT_EXCEEDED']);
  });

  it('refuses to delete a root quorum member, an unknown user, or the same user twice in one request', async () => {
    const root = await t.submit('delete_users', 'ACTIVITY_TYPE_DELETE_USERS', { userIds: [t.info.rootUserId] });
    expect(refusal(root)).toEqual([400, 'REQUEST_INVALID']);
    expect(root.body.message).toContain('quorum users missing');
    expect(refusal(await t.submit('delete_users', 'ACTIVITY_TYPE_DELETE_USERS', { userIds: ['nobody'] }))).toEqual([404, 'NOT_FOUND']);
    const [userId] = await createUsers([newUser('frank')]);
    expect(refusal(await t.submit('delete_users', 'ACTIVITY_TYPE_DELETE_USERS', { userIds: [userId, userId] }))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await t.submit('update_user_name', 'ACTIVITY_TYPE_UPDATE_USER_NAME', { userId: 'nobody', userName: 'x' }))).toEqual([
      404,
      'NOT_FOUND',
    ]);
  });
});

describe('user tags', () => {
  it('creates, lists and deletes tags; deletion names the users that carried them', async () => {
    const [a, b] = await createUsers([newUser('a'), newUser('b')]);
    const first = await t.client().createUserTag(t.envelope('ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: 'first', userIds: [a!, b!] }));
    expect(activityOperations.create_user_tag.result.parse(first.activity.result.createUserTagResult)).toEqual({
      userTagId: expect.any(String),
      userIds: [a, b],
    });
    const firstId = first.activity.result.createUserTagResult!.userTagId;
    const second = await t.client().createUserTag(t.envelope('ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: 'second', userIds: [b!] }));
    const secondId = second.activity.result.createUserTagResult!.userTagId;

    const { userTags } = queryOperations.list_user_tags.response.parse(await t.client().listUserTags({ organizationId: t.info.organizationId }));
    expect(userTags.map((tag) => [tag.tagId, tag.tagName, tag.tagType])).toEqual([
      [firstId, 'first', 'TAG_TYPE_USER'],
      [secondId, 'second', 'TAG_TYPE_USER'],
    ]);

    const deleted = await t.client().deleteUserTags(t.envelope('ACTIVITY_TYPE_DELETE_USER_TAGS', { userTagIds: [firstId, secondId] }));
    expect(activityOperations.delete_user_tags.result.parse(deleted.activity.result.deleteUserTagsResult)).toEqual({
      userTagIds: [firstId, secondId],
      userIds: [a, b],
    });
    expect((await t.client().getUser({ organizationId: t.info.organizationId, userId: b! })).user.userTags).toEqual([]);
    expect((await t.client().listUserTags({ organizationId: t.info.organizationId })).userTags).toEqual([]);
  });

  it('refuses duplicate names, unknown users and tags, and more than 100 tags', async () => {
    const create = (userTagName: string, userIds: string[] = []) =>
      t.submit('create_user_tag', 'ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName, userIds });
    expect((await create('dup')).status).toBe(200);
    t.clock.advance(1); // a byte-identical body would be the same activity again (idempotency)
    expect(refusal(await create('dup'))).toEqual([409, 'ALREADY_EXISTS']);
    expect(refusal(await create('x', ['nobody']))).toEqual([404, 'NOT_FOUND']);
    expect(refusal(await create(''))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await t.submit('delete_user_tags', 'ACTIVITY_TYPE_DELETE_USER_TAGS', { userTagIds: ['nope'] }))).toEqual([404, 'NOT_FOUND']);
    for (let i = 1; i < 100; i += 1) expect((await create(`tag ${i}`)).status).toBe(200);
    expect(refusal(await create('tag 100'))).toEqual([429, 'LIMIT_EXCEEDED']);
  });
});

describe('API keys', () => {
  it('creates, gets, lists (all, or one user’s) and deletes keys', async () => {
    const [userId] = await createUsers([newUser('gina')]);
    const key = newKey('p256');
    const created = await t
      .client()
      .createApiKeys(
        t.envelope('ACTIVITY_TYPE_CREATE_API_KEYS_V2', { userId: userId!, apiKeys: [{ ...p256Key('laptop', key), expirationSeconds: '600' }] }),
      );
    const [apiKeyId] = activityOperations.create_api_keys.result.parse(created.activity.result.createApiKeysResult).apiKeyIds;

    const { apiKey } = queryOperations.get_api_key.response.parse(
      await t.client().getApiKey({ organizationId: t.info.organizationId, apiKeyId: apiKeyId! }),
    );
    expect(apiKey).toEqual({
      credential: { publicKey: key.publicKey, type: 'CREDENTIAL_TYPE_API_KEY_P256' },
      apiKeyId,
      apiKeyName: 'laptop',
      createdAt: expect.any(Object),
      updatedAt: expect.any(Object),
      expirationSeconds: '600',
    });
    const mine = queryOperations.get_api_keys.response.parse(await t.client().getApiKeys({ organizationId: t.info.organizationId, userId: userId! }));
    expect(mine.apiKeys.map((k) => k.apiKeyId)).toEqual([apiKeyId]);
    const all = await t.client().getApiKeys({ organizationId: t.info.organizationId });
    expect(all.apiKeys.map((k) => k.credential.publicKey)).toEqual([t.rootKey.publicKey, key.publicKey]);

    expect((await t.client(key).getWhoami({ organizationId: t.info.organizationId })).userId).toBe(userId);
    t.clock.advance(601_000);
    expect(refusal(await t.query('whoami', {}, { key }))).toEqual([401, 'API_KEY_EXPIRED']);

    const deleted = await t.client().deleteApiKeys(t.envelope('ACTIVITY_TYPE_DELETE_API_KEYS', { userId: userId!, apiKeyIds: [apiKeyId!] }));
    expect(activityOperations.delete_api_keys.result.parse(deleted.activity.result.deleteApiKeysResult)).toEqual({ apiKeyIds: [apiKeyId] });
    expect(refusal(await t.query('get_api_key', { apiKeyId }))).toEqual([404, 'NOT_FOUND']);
  });

  it('refuses a duplicate key, a bad expiration, another user’s key, and an unknown user', async () => {
    const [userId] = await createUsers([newUser('hank')]);
    const create = (apiKeys: unknown[], forUser = userId) =>
      t.submit('create_api_keys', 'ACTIVITY_TYPE_CREATE_API_KEYS_V2', { userId: forUser, apiKeys });
    expect(refusal(await create([p256Key('root', t.rootKey)]))).toEqual([409, 'ALREADY_EXISTS']);
    const zero = await create([{ ...p256Key('zero'), expirationSeconds: '0' }]);
    expect(refusal(zero)).toEqual([400, 'REQUEST_INVALID']);
    expect(zero.body.message).toContain('invalid api key expiration');
    expect(refusal(await create([p256Key('x')], 'nobody'))).toEqual([404, 'NOT_FOUND']);
    expect(refusal(await create([]))).toEqual([400, 'REQUEST_INVALID']);
    const rootKeyId = (await t.query('get_api_keys', { userId: t.info.rootUserId })).body.apiKeys[0].apiKeyId;
    const foreign = await t.submit('delete_api_keys', 'ACTIVITY_TYPE_DELETE_API_KEYS', { userId, apiKeyIds: [rootKeyId] });
    expect(refusal(foreign)).toEqual([404, 'NOT_FOUND']);
  });

  it('allows 10 long-lived keys per user; expiring keys past 10 evict the expired, then the oldest', async () => {
    const [userId] = await createUsers([newUser('ivy')]);
    const create = (apiKeys: unknown[]) => t.submit('create_api_keys', 'ACTIVITY_TYPE_CREATE_API_KEYS_V2', { userId, apiKeys });
    expect((await create(Array.from({ length: 10 }, (_, i) => p256Key(`long ${i}`)))).status).toBe(200);
    const over = await create([p256Key('long 10')]);
    expect(refusal(over)).toEqual([429, 'LIMIT_EXCEEDED']);
    expect(over.body.message).toContain('long-lived api keys');

    expect((await create([{ ...p256Key('short-lived'), expirationSeconds: '1' }])).status).toBe(200);
    t.clock.advance(2_000);
    for (let i = 0; i < 9; i += 1) expect((await create([{ ...p256Key(`expiring ${i}`), expirationSeconds: '3600' }])).status).toBe(200);
    const names = async () => (await t.query('get_api_keys', { userId })).body.apiKeys.map((k: { apiKeyName: string }) => k.apiKeyName);
    expect((await names()).filter((n: string) => !n.startsWith('long'))).toHaveLength(10);
    expect((await create([{ ...p256Key('expiring 9'), expirationSeconds: '3600' }])).status).toBe(200);
    const expiring = (await names()).filter((n: string) => !n.startsWith('long'));
    expect(expiring).toEqual(Array.from({ length: 10 }, (_, i) => `expiring ${i}`));
    expect((await create([{ ...p256Key('expiring 10'), expirationSeconds: '3600' }])).status).toBe(200);
    expect((await names()).filter((n: string) => !n.startsWith('long'))[0]).toBe('expiring 1');
  });
});
