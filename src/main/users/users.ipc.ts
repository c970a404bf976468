/**
 * Users, their tags and API keys, as activities of the active profile: each waits for votes like any other when the
 * organization's policies or root quorum ask for them.
 */
import type { ParamsOf, operations } from '../../shared/api';
import type { ChannelInput } from '../../shared/ipc/contract';
import { QkError } from '../../shared/errors';
import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { outcomeView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import type { Keychain } from '../keychain/keychain';
import { lockOutOf } from '../confirmation/stamp-reading';
import { readOrganization } from '../signing/organization';

type UsersChannel =
  'users.create' | 'users.delete' | 'users.deletionCheck' | 'users.setTags' | 'users.createTag' | 'users.addApiKey' | 'users.removeApiKeys';
type ApiKeyParams = ParamsOf<typeof operations.create_api_keys>['apiKeys'][number];
type NewApiKey = NonNullable<ChannelInput<'users.create'>['apiKey']>;

export interface UsersHandlerDeps extends ActiveProfileHandlerDeps {
  keychain: Pick<Keychain, 'getApiKeyPublic'>;
}

const CURVE_TYPES = { p256: 'API_KEY_CURVE_P256', secp256k1: 'API_KEY_CURVE_SECP256K1', ed25519: 'API_KEY_CURVE_ED25519' } as const;

export function usersHandlers({ active, now, keychain }: UsersHandlerDeps): Pick<IpcHandlers, UsersChannel> {
  /** The service's API key parameters: a pasted public key as given, a keychain key by its stored public key. */
  const apiKeyParams = async (apiKey: NewApiKey): Promise<ApiKeyParams> => {
    if (apiKey.kind === 'public-key') return { apiKeyName: apiKey.apiKeyName, publicKey: apiKey.publicKey, curveType: CURVE_TYPES[apiKey.curve] };
    const stored = await keychain.getApiKeyPublic(apiKey.keyName);
    if (stored.missing) {
      throw new QkError('KEY_NOT_FOUND', `the OS keychain no longer holds the private key of ${stored.name}; create another key for this user`, {
        name: stored.name,
      });
    }
    return { apiKeyName: stored.name, publicKey: stored.publicKey, curveType: CURVE_TYPES[stored.curve] };
  };

  return {
    'users.create': async ({ userName, tagIds = [], apiKey }) => {
      const { client } = await active.services();
      const apiKeys = apiKey === undefined ? [] : [await apiKeyParams(apiKey)];
      const outcome = await client.submit('create_users', {
        users: [{ userName, userTags: tagIds, apiKeys, authenticators: [], oauthProviders: [] }],
      });
      return outcomeView(
        outcome,
        ({ userIds }) => {
          const [userId] = userIds;
          if (userId === undefined) throw new QkError('RESPONSE_INVALID', 'create_users completed without the id of the user it created');
          return { userId };
        },
        now(),
      );
    },
    'users.delete': async ({ userIds }) => {
      const { client } = await active.services();
      return outcomeView(await client.submit('delete_users', { userIds }), (result) => ({ userIds: result.userIds }), now());
    },
    // The stamp check refuses such a deletion before asking anyone (stamp-check.ts): the screen says so beforehand.
    'users.deletionCheck': async ({ userId }) => {
      const { client, profile } = await active.services();
      const [snapshot, ownKey] = await Promise.all([
        readOrganization(client),
        keychain.getApiKeyPublic(profile.apiKeyName).then(
          (key) => key.publicKey,
          () => undefined,
        ),
      ]);
      const refusal = lockOutOf(
        { type: 'ACTIVITY_TYPE_DELETE_USERS', intent: { deleteUsersIntent: { userIds: [userId] } } },
        snapshot,
        ownKey,
        profile.name,
      );
      return refusal === undefined ? {} : { refusal };
    },
    'users.setTags': async ({ userId, tagIds }) => {
      if (tagIds.length === 0) {
        // On the wire an empty list is the same as no list: update_user would leave the tags as they are.
        throw new QkError('REQUEST_INVALID', 'a user cannot be left with no tags by changing the user; keep one tag, or delete the tags themselves', {
          field: 'tagIds',
        });
      }
      const { client } = await active.services();
      return outcomeView(await client.submit('update_user', { userId, userTagIds: tagIds }), (result) => ({ userId: result.userId }), now());
    },
    'users.createTag': async ({ tagName, userIds }) => {
      const { client } = await active.services();
      return outcomeView(await client.submit('create_user_tag', { userTagName: tagName, userIds }), (result) => ({ tagId: result.userTagId }), now());
    },
    'users.addApiKey': async ({ userId, apiKey }) => {
      const { client } = await active.services();
      const outcome = await client.submit('create_api_keys', { userId, apiKeys: [await apiKeyParams(apiKey)] });
      return outcomeView(outcome, (result) => ({ apiKeyIds: result.apiKeyIds }), now());
    },
    'users.removeApiKeys': async ({ userId, apiKeyIds }) => {
      const { client } = await active.services();
      return outcomeView(await client.submit('delete_api_keys', { userId, apiKeyIds }), (result) => ({ apiKeyIds: result.apiKeyIds }), now());
    },
  };
}
