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
import { lockOutOf, ownPublicKeyOf } from '../confirmation/stamp-reading';
import type { TokenKeys } from '../pkcs11/token-keys';
import type { Profiles } from '../profiles/profiles';
import { visibleText } from '../../shared/visible-text';
import { credentialsOf } from './credentials';
import { readOrganization } from '../signing/organization';
import type { OpenPasskeyPage } from '../passkeys/passkey-page';
import { registerPasskey } from '../passkeys/passkey-registration';
import type { PendingPasskeys } from '../passkeys/pending-passkeys';

type UsersChannel =
  | 'users.create'
  | 'users.delete'
  | 'users.deletionCheck'
  | 'users.credentials'
  | 'users.setTags'
  | 'users.createTag'
  | 'users.addApiKey'
  | 'users.removeApiKeys'
  | 'users.addPasskey';
type ApiKeyParams = ParamsOf<typeof operations.create_api_keys>['apiKeys'][number];
type NewApiKey = NonNullable<ChannelInput<'users.create'>['apiKey']>;

export interface UsersHandlerDeps extends ActiveProfileHandlerDeps {
  keychain: Pick<Keychain, 'getApiKeyPublic' | 'listApiKeys'>;
  /** This desktop's profiles: which of a user's API keys are on its hardware tokens (the public keys they pinned). */
  profiles: Pick<Profiles, 'list' | 'update'>;
  /** Reads a hardware token key's public key from the token itself (after its PIN), for a new API key. */
  tokenKeys: Pick<TokenKeys, 'find'>;
  /** Shows main's passkey page, where a new security key is made; none where no page can be shown (the CLI). */
  openPasskeyPage?: OpenPasskeyPage | undefined;
  /** Where a new security key whose registration waits for approvals is kept until it completes. */
  pendingPasskeys: Pick<PendingPasskeys, 'add'>;
}

const CURVE_TYPES = { p256: 'API_KEY_CURVE_P256', secp256k1: 'API_KEY_CURVE_SECP256K1', ed25519: 'API_KEY_CURVE_ED25519' } as const;

export function usersHandlers({
  active,
  now,
  keychain,
  profiles,
  tokenKeys,
  openPasskeyPage,
  pendingPasskeys,
}: UsersHandlerDeps): Pick<IpcHandlers, UsersChannel> {
  /**
   * The service's API key parameters: a pasted public key as given, a keychain key by its stored public key, a token
   * key by the public key the token itself answers (never one the window sends).
   */
  const apiKeyParams = async (apiKey: NewApiKey): Promise<ApiKeyParams> => {
    if (apiKey.kind === 'public-key') return { apiKeyName: apiKey.apiKeyName, publicKey: apiKey.publicKey, curveType: CURVE_TYPES[apiKey.curve] };
    if (apiKey.kind === 'token') {
      const { apiKeyName, kind: _kind, ...ref } = apiKey;
      const found = await tokenKeys.find(ref);
      return { apiKeyName, publicKey: found.publicKey, curveType: CURVE_TYPES.p256 };
    }
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
      const [snapshot, ownKey] = await Promise.all([readOrganization(client), ownPublicKeyOf(profile, keychain)]);
      const refusal = lockOutOf(
        { type: 'ACTIVITY_TYPE_DELETE_USERS', intent: { deleteUsersIntent: { userIds: [userId] } } },
        snapshot,
        ownKey,
        profile.name,
        now(),
      );
      return refusal === undefined ? {} : { refusal };
    },
    // Each credential with what removing it would leave, and the lock-out guard's refusal where the stamp check would refuse it.
    'users.credentials': async ({ userId }) => {
      const { client, profile } = await active.services();
      const [snapshot, ownKey, desktopProfiles, keychainKeys] = await Promise.all([
        readOrganization(client),
        ownPublicKeyOf(profile, keychain),
        profiles.list(),
        keychain.listApiKeys(),
      ]);
      const user = snapshot.users.find((candidate) => candidate.userId === userId);
      if (user === undefined) throw new QkError('NOT_FOUND', `no user of this organization has id ${userId}`, { userId });
      const nowMs = now();
      const credentials = credentialsOf(user, { profiles: desktopProfiles, keychainKeys }, nowMs, ({ id }, isAuthenticator) =>
        lockOutOf(
          isAuthenticator
            ? { type: 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS', intent: { deleteAuthenticatorsIntent: { userId, authenticatorIds: [id] } } }
            : { type: 'ACTIVITY_TYPE_DELETE_API_KEYS', intent: { deleteApiKeysIntent: { userId, apiKeyIds: [id] } } },
          snapshot,
          ownKey,
          profile.name,
          nowMs,
        ),
      );
      return { userId, userName: visibleText(user.userName), credentials };
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
    'users.addPasskey': async ({ name }) => {
      if (openPasskeyPage === undefined) {
        throw new QkError('FAILED_PRECONDITION', 'a security key is added in the QuorumKey app, which shows the page to touch it on');
      }
      const outcome = await registerPasskey({ openPage: openPasskeyPage, profiles, pending: pendingPasskeys }, await active.services(), name);
      return outcomeView(outcome, (result) => ({ authenticatorIds: result.authenticatorIds }), now());
    },
  };
}
