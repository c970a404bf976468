/**
 * The activity record every submit answers (`v1ActivityResponse`) and `get_activity` / `list_activities`
 * return (docs/service.md#envelope-and-record), and the older activity-type versions such records may still carry.
 */
import { z } from 'zod';
import { res, timestamp } from './primitives';
import { activityStatus, voteSelection } from './enums';
import { appProof, user } from './resources';
import { rpcStatus } from './error-body';

export const vote = res({
  id: z.string(),
  userId: z.string(),
  user,
  activityId: z.string(),
  selection: voteSelection,
  message: z.string(),
  publicKey: z.string(),
  signature: z.string(),
  scheme: z.string(),
  createdAt: timestamp,
});
export type Vote = z.infer<typeof vote>;

/** `v1Intent` / `v1Result`: one member named after the activity type, e.g. `{ createWalletIntent: {…} }`. */
const memberObject = z.record(z.string(), z.unknown());

export const activitySchema = res({
  id: z.string(),
  organizationId: z.string(),
  status: activityStatus,
  // Any ACTIVITY_TYPE_* is accepted: a newer service may record types this client does not know.
  type: z.string().regex(/^ACTIVITY_TYPE_[A-Z0-9_]+$/, { error: 'expected an ACTIVITY_TYPE_* value' }),
  intent: memberObject.refine((intent) => Object.keys(intent).length === 1, {
    error: 'an activity intent has exactly one member (e.g. createWalletIntent)',
  }),
  // Empty until the activity completes, then exactly one member.
  result: memberObject.refine((result) => Object.keys(result).length <= 1, {
    error: 'an activity result has at most one member (e.g. createWalletResult)',
  }),
  votes: z.array(vote),
  appProofs: z.array(appProof).optional(),
  fingerprint: z.string(),
  canApprove: z.boolean(),
  canReject: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  failure: rpcStatus.optional(),
});
export type Activity = z.infer<typeof activitySchema>;

export const activityResponseSchema = res({ activity: activitySchema });
export type ActivityResponse = z.infer<typeof activityResponseSchema>;

export interface ActivityTypeInfo {
  readonly intentKey: string;
  /** `null` for approve/reject: they answer the target activity and have no result of their own. */
  readonly resultKey: string | null;
}

/**
 * Superseded versions of the declared activity families (docs/service.md#activity-types, "—" path rows): records
 * created with them are still listed and fetched; those in activity-versions.ts are still submitted at the current path.
 */
export const supersededActivityTypes = {
  ACTIVITY_TYPE_CREATE_API_KEYS: { intentKey: 'createApiKeysIntent', resultKey: 'createApiKeysResult' },
  ACTIVITY_TYPE_CREATE_USERS: { intentKey: 'createUsersIntent', resultKey: 'createUsersResult' },
  ACTIVITY_TYPE_CREATE_USERS_V2: { intentKey: 'createUsersIntentV2', resultKey: 'createUsersResult' },
  ACTIVITY_TYPE_CREATE_USERS_V3: { intentKey: 'createUsersIntentV3', resultKey: 'createUsersResult' },
  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS: { intentKey: 'createPrivateKeysIntent', resultKey: 'createPrivateKeysResult' },
  ACTIVITY_TYPE_CREATE_POLICY: { intentKey: 'createPolicyIntent', resultKey: 'createPolicyResult' },
  ACTIVITY_TYPE_CREATE_POLICY_V2: { intentKey: 'createPolicyIntentV2', resultKey: 'createPolicyResult' },
  ACTIVITY_TYPE_UPDATE_POLICY: { intentKey: 'updatePolicyIntent', resultKey: 'updatePolicyResult' },
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS: {
    intentKey: 'createAuthenticatorsIntent',
    resultKey: 'createAuthenticatorsResult',
  },
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: {
    intentKey: 'createOauthProvidersIntent',
    resultKey: 'createOauthProvidersResult',
  },
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION: {
    intentKey: 'createSubOrganizationIntent',
    resultKey: 'createSubOrganizationResult',
  },
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V2: {
    intentKey: 'createSubOrganizationIntentV2',
    resultKey: 'createSubOrganizationResult',
  },
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V3: {
    intentKey: 'createSubOrganizationIntentV3',
    resultKey: 'createSubOrganizationResultV3',
  },
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4: {
    intentKey: 'createSubOrganizationIntentV4',
    resultKey: 'createSubOrganizationResultV4',
  },
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5: {
    intentKey: 'createSubOrganizationIntentV5',
    resultKey: 'createSubOrganizationResultV5',
  },
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6: {
    intentKey: 'createSubOrganizationIntentV6',
    resultKey: 'createSubOrganizationResultV6',
  },
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7: {
    intentKey: 'createSubOrganizationIntentV7',
    resultKey: 'createSubOrganizationResultV7',
  },
  ACTIVITY_TYPE_INIT_OTP_AUTH: { intentKey: 'initOtpAuthIntent', resultKey: 'initOtpAuthResult' },
  ACTIVITY_TYPE_INIT_OTP_AUTH_V2: { intentKey: 'initOtpAuthIntentV2', resultKey: 'initOtpAuthResultV2' },
} as const satisfies Record<string, ActivityTypeInfo>;
