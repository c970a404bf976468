/**
 * Wire views of stored records shared by several families (v1User, v1ApiKey, v1Authenticator, v1OauthProvider,
 * v1Activity), built from store records only.
 */
import type { Activity, Vote } from '../../shared/api/activity-record';
import { WEBAUTHN_CREDENTIAL_TYPE } from '../auth/credentials';
import type { Repositories } from '../store';
import type { ActivityRecord, VoteRecord } from '../store/activities';
import type { ApiKeyRecord } from '../store/api-keys';
import type { AppProofRecord } from '../store/app-proofs';
import type { AuthenticatorRecord, OauthProviderRecord } from '../store/credentials';
import type { MfaPolicyRecord } from '../store/mfa-policies';
import { ConnectionMemo, deepFrozen } from '../store/table-memo';
import type { UserRecord } from '../store/users';
import { toTimestamp } from '../../shared/api/timestamps';

export function apiKeyView(key: ApiKeyRecord) {
  return {
    credential: {
      publicKey: key.publicKey,
      type: key.credentialType,
      ...(key.sessionProfileId === undefined ? {} : { sessionProfileId: key.sessionProfileId }),
    },
    apiKeyId: key.id,
    apiKeyName: key.name,
    createdAt: toTimestamp(key.createdAt),
    updatedAt: toTimestamp(key.updatedAt),
    ...(key.expirationSeconds === undefined ? {} : { expirationSeconds: String(key.expirationSeconds) }),
  };
}

export function authenticatorView(authenticator: AuthenticatorRecord) {
  return {
    transports: authenticator.transports,
    attestationType: authenticator.attestationType,
    aaguid: authenticator.aaguid,
    credentialId: authenticator.credentialId,
    model: '',
    credential: { publicKey: authenticator.publicKey, type: WEBAUTHN_CREDENTIAL_TYPE },
    authenticatorId: authenticator.id,
    authenticatorName: authenticator.name,
    createdAt: toTimestamp(authenticator.createdAt),
    updatedAt: toTimestamp(authenticator.updatedAt),
  };
}

export function oauthProviderView(provider: OauthProviderRecord) {
  return {
    providerId: provider.id,
    providerName: provider.name,
    issuer: provider.issuer,
    audience: provider.audience,
    subject: provider.subject,
    createdAt: toTimestamp(provider.createdAt),
    updatedAt: toTimestamp(provider.updatedAt),
  };
}

/** v1MfaPolicy: `order` is an int64, a decimal string on the wire. */
export function mfaPolicyView(policy: MfaPolicyRecord) {
  return {
    mfaPolicyId: policy.id,
    mfaPolicyName: policy.name,
    condition: policy.condition,
    requiredAuthenticationMethods: policy.requiredMethods,
    order: String(policy.order),
    ...(policy.notes === undefined ? {} : { notes: policy.notes }),
    createdAt: toTimestamp(policy.createdAt),
    updatedAt: toTimestamp(policy.updatedAt),
  };
}

/** v1User. Authenticators, OAuth providers and MFA policies join here as their families store them. */
export function userView(store: Repositories, user: UserRecord): Vote['user'] {
  return {
    userId: user.id,
    userName: user.name,
    ...(user.email === undefined ? {} : { userEmail: user.email }),
    ...(user.phoneNumber === undefined ? {} : { userPhoneNumber: user.phoneNumber }),
    authenticators: store.authenticators.listByUser(user.id).map(authenticatorView),
    apiKeys: store.apiKeys.listByUser(user.id).map(apiKeyView),
    userTags: store.userTags.tagIdsOfUser(user.id),
    oauthProviders: store.oauthProviders.listByUser(user.id).map(oauthProviderView),
    createdAt: toTimestamp(user.createdAt),
    updatedAt: toTimestamp(user.updatedAt),
    mfaPolicies: store.mfaPolicies.listByUser(user.id).map(mfaPolicyView),
  } as Vote['user'];
}

/** Every table a user's view is read from (userView). */
const USER_VIEW_TABLES = ['users', 'authenticators', 'api_keys', 'user_tag_members', 'oauth_providers', 'mfa_policies'];

/** Per connection: each voter's view, read once while its tables are unchanged instead of once per vote answered. */
const voterViews = new ConnectionMemo<Vote['user'] | undefined>(USER_VIEW_TABLES);

/** The voter's v1User; undefined when the user was deleted since. */
function voterView(store: Repositories, userId: string): Vote['user'] | undefined {
  return voterViews.read(store, userId, () => {
    const user = store.users.get(userId);
    return user === undefined ? undefined : deepFrozen(userView(store, user));
  });
}

function voteView(store: Repositories, vote: VoteRecord): Vote {
  const user = voterView(store, vote.userId);
  return {
    id: vote.id,
    userId: vote.userId,
    // A voter deleted since keeps their vote; the user object then carries only the id.
    user:
      user === undefined
        ? {
            userId: vote.userId,
            userName: '',
            authenticators: [],
            apiKeys: [],
            userTags: [],
            oauthProviders: [],
            createdAt: toTimestamp(vote.createdAt),
            updatedAt: toTimestamp(vote.createdAt),
            mfaPolicies: [],
          }
        : user,
    activityId: vote.activityId,
    selection: vote.selection,
    message: vote.message,
    publicKey: vote.publicKey,
    signature: vote.signature,
    scheme: vote.scheme,
    createdAt: toTimestamp(vote.createdAt),
  };
}

/** v1Activity of a stored activity, its votes and app proofs read from the store. */
export function activityView(store: Repositories, activity: ActivityRecord): Activity {
  return recordedActivityView(store, activity, store.activities.votes(activity.id), store.appProofs.listByActivity(activity.id));
}

/**
 * v1Activity from the activity's records as the transaction that wrote them has them (its votes oldest first), so
 * that it need not read back what it has just written: the answer activityView gives once it commits.
 */
export function recordedActivityView(
  store: Repositories,
  activity: ActivityRecord,
  votes: readonly VoteRecord[],
  appProofs: AppProofRecord[],
): Activity {
  // Waiting for authenticators, it takes the approvals that present them (docs/service.md#mfa-policies).
  const pending = activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' || activity.status === 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED';
  return {
    id: activity.id,
    organizationId: activity.organizationId,
    status: activity.status,
    type: activity.type,
    intent: activity.intent,
    result: activity.result ?? {},
    votes: votes.map((vote) => voteView(store, vote)),
    fingerprint: activity.fingerprint,
    canApprove: pending,
    canReject: pending,
    createdAt: toTimestamp(activity.createdAt),
    updatedAt: toTimestamp(activity.updatedAt),
    ...(activity.failure === undefined ? {} : { failure: activity.failure }),
    ...(appProofs.length === 0 ? {} : { appProofs }),
  };
}
