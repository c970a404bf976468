/**
 * How each activity type QuorumKey implements appears to policies as `activity.type`, `.kind`, `.resource`,
 * `.action` and `.params` (docs/service.md#policy-keywords). Assignments marked "inferred" are not in Turnkey's docs
 * table.
 */
import { QkError } from '../errors';
import type { PolicyActivity, PolicyStruct, PolicyValue } from './values';

export type PolicyResource =
  | 'AUTH'
  | 'AUTH_PROXY'
  | 'CONFIG'
  | 'CREDENTIAL'
  | 'FIAT_TRANSACTION'
  | 'INVITATION'
  | 'MFA_POLICY'
  | 'OAUTH2_CREDENTIAL'
  | 'ON_RAMP_CREDENTIALS'
  | 'ORGANIZATION'
  | 'OTP'
  | 'PAYMENT_METHOD'
  | 'POLICY'
  | 'PRIVATE_KEY'
  | 'RECOVERY'
  | 'SECRET'
  | 'SESSION_PROFILE'
  | 'SMART_CONTRACT_INTERFACE'
  | 'SPONSORSHIP'
  | 'SUBSCRIPTION'
  | 'TVC_APP'
  | 'TVC_DEPLOYMENT'
  | 'TVC_OPERATOR'
  | 'TVC_QUORUM_KEY'
  | 'USER'
  | 'WALLET'
  | 'WEBHOOK_ENDPOINT';

export type PolicyAction = 'CREATE' | 'UPDATE' | 'DELETE' | 'SIGN' | 'EXPORT' | 'IMPORT' | 'VERIFY' | 'ENCRYPT';

export interface ActivityClass {
  readonly type: string;
  /** The type without `ACTIVITY_TYPE_` and its `_V<n>` revision, e.g. `SIGN_TRANSACTION`. */
  readonly kind: string;
  /** Null for the activities outside Turnkey's resource table: approve/reject, root quorum and feature changes. */
  readonly resource: PolicyResource | null;
  readonly action: PolicyAction | null;
}

type Classification = readonly [PolicyResource, PolicyAction] | null;

const CLASSIFICATIONS: Readonly<Record<string, Classification>> = {
  // Votes, the root quorum and the organization features are governed by consensus and the root quorum itself, not
  // by resource policies.
  ACTIVITY_TYPE_APPROVE_ACTIVITY: null,
  ACTIVITY_TYPE_REJECT_ACTIVITY: null,
  ACTIVITY_TYPE_UPDATE_ROOT_QUORUM: null,
  ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE: null,
  ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE: null,

  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7: ['ORGANIZATION', 'CREATE'],
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8: ['ORGANIZATION', 'CREATE'],
  ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION: ['ORGANIZATION', 'DELETE'],
  ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME: ['ORGANIZATION', 'UPDATE'], // inferred: the type names the resource and action
  // inferred: the organization's access settings; no documented resource is closer.
  ACTIVITY_TYPE_SET_IP_ALLOWLIST: ['ORGANIZATION', 'UPDATE'],
  ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST: ['ORGANIZATION', 'UPDATE'],

  ACTIVITY_TYPE_CREATE_POLICY_V3: ['POLICY', 'CREATE'],
  ACTIVITY_TYPE_CREATE_POLICIES: ['POLICY', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_POLICY_V2: ['POLICY', 'UPDATE'],
  ACTIVITY_TYPE_DELETE_POLICY: ['POLICY', 'DELETE'],
  ACTIVITY_TYPE_DELETE_POLICIES: ['POLICY', 'DELETE'],

  ACTIVITY_TYPE_CREATE_MFA_POLICY: ['MFA_POLICY', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_MFA_POLICY: ['MFA_POLICY', 'UPDATE'],
  ACTIVITY_TYPE_DELETE_MFA_POLICY: ['MFA_POLICY', 'DELETE'],

  ACTIVITY_TYPE_CREATE_WALLET: ['WALLET', 'CREATE'],
  ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS: ['WALLET', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_WALLET: ['WALLET', 'UPDATE'],
  ACTIVITY_TYPE_DELETE_WALLETS: ['WALLET', 'DELETE'],
  ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS: ['WALLET', 'DELETE'],
  ACTIVITY_TYPE_EXPORT_WALLET: ['WALLET', 'EXPORT'],
  ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: ['WALLET', 'EXPORT'],
  ACTIVITY_TYPE_INIT_IMPORT_WALLET: ['WALLET', 'IMPORT'],
  ACTIVITY_TYPE_IMPORT_WALLET: ['WALLET', 'IMPORT'],

  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2: ['PRIVATE_KEY', 'CREATE'],
  ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG: ['PRIVATE_KEY', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG: ['PRIVATE_KEY', 'UPDATE'], // inferred, by analogy with update_user_tag
  ACTIVITY_TYPE_DELETE_PRIVATE_KEYS: ['PRIVATE_KEY', 'DELETE'],
  ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS: ['PRIVATE_KEY', 'DELETE'],
  ACTIVITY_TYPE_DISABLE_PRIVATE_KEY: ['PRIVATE_KEY', 'DELETE'],
  ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: ['PRIVATE_KEY', 'EXPORT'],
  ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY: ['PRIVATE_KEY', 'IMPORT'],
  ACTIVITY_TYPE_IMPORT_PRIVATE_KEY: ['PRIVATE_KEY', 'IMPORT'],
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: ['PRIVATE_KEY', 'SIGN'],
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: ['PRIVATE_KEY', 'SIGN'],
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: ['PRIVATE_KEY', 'SIGN'],
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2: ['PRIVATE_KEY', 'SIGN'],
  ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2: ['PRIVATE_KEY', 'SIGN'],
  // inferred: classed with the other sends; an undelegation signs an authorization and a transaction.
  ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION: ['PRIVATE_KEY', 'SIGN'],
  ACTIVITY_TYPE_ETH_UNDELEGATE_7702: ['PRIVATE_KEY', 'SIGN'],
  // inferred: Spark activities sign with a wallet account (`signWith`) like the other signing activities.
  ACTIVITY_TYPE_SPARK_SIGN_FROST: ['PRIVATE_KEY', 'SIGN'],
  ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER: ['PRIVATE_KEY', 'SIGN'],
  ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER: ['PRIVATE_KEY', 'SIGN'],
  ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE: ['PRIVATE_KEY', 'SIGN'],

  ACTIVITY_TYPE_CREATE_USERS_V3: ['USER', 'CREATE'],
  ACTIVITY_TYPE_CREATE_USERS_V4: ['USER', 'CREATE'],
  ACTIVITY_TYPE_CREATE_API_ONLY_USERS: ['USER', 'CREATE'],
  ACTIVITY_TYPE_CREATE_USER_TAG: ['USER', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_USER: ['USER', 'UPDATE'],
  ACTIVITY_TYPE_UPDATE_USER_NAME: ['USER', 'UPDATE'],
  ACTIVITY_TYPE_UPDATE_USER_EMAIL: ['USER', 'UPDATE'],
  ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER: ['USER', 'UPDATE'],
  ACTIVITY_TYPE_UPDATE_USER_TAG: ['USER', 'UPDATE'],
  ACTIVITY_TYPE_DELETE_USERS: ['USER', 'DELETE'],
  ACTIVITY_TYPE_DELETE_USER_TAGS: ['USER', 'DELETE'],

  ACTIVITY_TYPE_CREATE_API_KEYS_V2: ['CREDENTIAL', 'CREATE'],
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: ['CREDENTIAL', 'CREATE'],
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: ['CREDENTIAL', 'CREATE'],
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2: ['CREDENTIAL', 'CREATE'],
  ACTIVITY_TYPE_DELETE_API_KEYS: ['CREDENTIAL', 'DELETE'],
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: ['CREDENTIAL', 'DELETE'],
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: ['CREDENTIAL', 'DELETE'],

  ACTIVITY_TYPE_EMAIL_AUTH_V3: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_INIT_OTP_AUTH_V3: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_OTP_AUTH: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_OAUTH: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_OAUTH_LOGIN: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_OTP_LOGIN_V2: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_STAMP_LOGIN: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION: ['AUTH', 'CREATE'], // inferred: the docs list elides the rest of AUTH CREATE

  // inferred: RECOVERY is a documented resource; starting a recovery creates it, recovering uses it.
  ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2: ['RECOVERY', 'CREATE'],
  ACTIVITY_TYPE_RECOVER_USER: ['RECOVERY', 'UPDATE'],

  ACTIVITY_TYPE_INIT_OTP_V3: ['OTP', 'CREATE'],
  ACTIVITY_TYPE_VERIFY_OTP_V2: ['OTP', 'VERIFY'],

  ACTIVITY_TYPE_CREATE_SESSION_PROFILE: ['SESSION_PROFILE', 'CREATE'], // inferred (docs/service.md#policy-keywords)

  ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE: ['SMART_CONTRACT_INTERFACE', 'CREATE'],
  ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE: ['SMART_CONTRACT_INTERFACE', 'DELETE'],

  ACTIVITY_TYPE_CREATE_TVC_APP: ['TVC_APP', 'CREATE'],
  ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS: ['TVC_APP', 'DELETE'],

  // inferred: INVITATION is a documented resource; the type names give the action.
  ACTIVITY_TYPE_CREATE_INVITATIONS: ['INVITATION', 'CREATE'],
  ACTIVITY_TYPE_DELETE_INVITATION: ['INVITATION', 'DELETE'],

  // inferred: Turnkey's resource table names no secret; a resource of its own keeps a policy about private keys from
  // also covering secrets. The type names give the action.
  ACTIVITY_TYPE_INIT_IMPORT_SECRETS: ['SECRET', 'IMPORT'],
  ACTIVITY_TYPE_IMPORT_SECRETS: ['SECRET', 'IMPORT'],
  ACTIVITY_TYPE_EXPORT_SECRETS: ['SECRET', 'EXPORT'],

  // inferred: Turnkey's resource table names no OAuth 2.0 credential, which is the organization's app client and not a
  // user's credential; ON_RAMP_CREDENTIALS is documented. The type names give the action.
  ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL: ['OAUTH2_CREDENTIAL', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL: ['OAUTH2_CREDENTIAL', 'UPDATE'],
  ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL: ['OAUTH2_CREDENTIAL', 'DELETE'],
  ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL: ['ON_RAMP_CREDENTIALS', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL: ['ON_RAMP_CREDENTIALS', 'UPDATE'],
  ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL: ['ON_RAMP_CREDENTIALS', 'DELETE'],

  // inferred: WEBHOOK_ENDPOINT is a documented resource; the type names give the action.
  ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT: ['WEBHOOK_ENDPOINT', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT: ['WEBHOOK_ENDPOINT', 'UPDATE'],
  ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT: ['WEBHOOK_ENDPOINT', 'DELETE'],

  // Older versions still submitted (src/shared/api/activity-versions.ts): classified as their current version.
  ACTIVITY_TYPE_CREATE_USERS_V2: ['USER', 'CREATE'],
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4: ['ORGANIZATION', 'CREATE'],
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5: ['ORGANIZATION', 'CREATE'],
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6: ['ORGANIZATION', 'CREATE'],
  ACTIVITY_TYPE_CREATE_POLICY: ['POLICY', 'CREATE'],
  ACTIVITY_TYPE_CREATE_POLICY_V2: ['POLICY', 'CREATE'],
  ACTIVITY_TYPE_UPDATE_POLICY: ['POLICY', 'UPDATE'],
  ACTIVITY_TYPE_CREATE_API_KEYS: ['CREDENTIAL', 'CREATE'],
  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS: ['PRIVATE_KEY', 'CREATE'],
  ACTIVITY_TYPE_INIT_OTP_AUTH: ['AUTH', 'CREATE'],
  ACTIVITY_TYPE_INIT_OTP_AUTH_V2: ['AUTH', 'CREATE'],
};

/** Every activity type the policy engine can classify, i.e. every type the local service implements. */
export const CLASSIFIED_ACTIVITY_TYPES: readonly string[] = Object.keys(CLASSIFICATIONS);

/** Intent fields (camelCase) Turnkey exposes as `activity.params` (snake_case), per docs/service.md#policy-keywords. */
const PARAM_FIELDS: Readonly<Record<string, readonly string[]>> = {
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: ['hashFunction', 'encoding'],
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: ['hashFunction', 'encoding'],
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: ['type'],
  ACTIVITY_TYPE_DELETE_USERS: ['userIds'],
  ACTIVITY_TYPE_CREATE_API_KEYS_V2: ['userId'],
  ACTIVITY_TYPE_CREATE_API_KEYS: ['userId'],
  ACTIVITY_TYPE_DELETE_API_KEYS: ['userId', 'apiKeyIds'],
  ACTIVITY_TYPE_EXPORT_WALLET: ['targetPublicKey'],
  ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: ['targetPublicKey'],
  ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: ['targetPublicKey'],
  ACTIVITY_TYPE_UPDATE_WALLET: ['walletId'],
  ACTIVITY_TYPE_INIT_OTP_AUTH_V2: ['otpLength'],
  ACTIVITY_TYPE_INIT_OTP_AUTH_V3: ['otpLength'],
  ACTIVITY_TYPE_OTP_LOGIN_V2: ['sessionProfileId'],
  ACTIVITY_TYPE_STAMP_LOGIN: ['sessionProfileId'],
  ACTIVITY_TYPE_OAUTH_LOGIN: ['sessionProfileId'],
  ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT: ['endpointId'],
  ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT: ['endpointId'],
  ACTIVITY_TYPE_SPARK_SIGN_FROST: ['signWith', 'signatures'],
  ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER: ['signWith', 'transfer'],
  ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER: ['signWith', 'claim'],
  ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE: ['signWith', 'lightningReceive'],
};

/** `ACTIVITY_TYPE_SIGN_TRANSACTION_V2` → `SIGN_TRANSACTION`. */
export function activityKindOf(activityType: string): string {
  return activityType.replace(/^ACTIVITY_TYPE_/, '').replace(/_V\d+$/, '');
}

export function activityClassOf(activityType: string): ActivityClass {
  if (!Object.hasOwn(CLASSIFICATIONS, activityType)) {
    throw new QkError('REQUEST_INVALID', `activity type '${activityType}' is not one this service implements, so policies cannot classify it`, {
      activityType,
    });
  }
  const classification = CLASSIFICATIONS[activityType]!;
  return {
    type: activityType,
    kind: activityKindOf(activityType),
    resource: classification?.[0] ?? null,
    action: classification?.[1] ?? null,
  };
}

/**
 * `activity.params` for an intent: the fields Turnkey exposes for this type, snake_cased, with integers as bigints.
 * Optional fields the intent omits stay absent, so a policy reading them gets a MissingField error, as in Turnkey.
 */
export function activityParamsOf(activityType: string, intent: Readonly<Record<string, unknown>>): PolicyStruct {
  const params: Record<string, PolicyValue> = {};
  for (const field of PARAM_FIELDS[activityType] ?? []) {
    const value = intent[field];
    if (value !== undefined) params[snakeCase(field)] = toPolicyValue(value, field);
  }
  return params;
}

/** The whole `activity` keyword for a request. */
export function policyActivityOf(activityType: string, intent: Readonly<Record<string, unknown>>): PolicyActivity {
  const { type, kind, resource, action } = activityClassOf(activityType);
  const params = activityParamsOf(activityType, intent);
  return {
    type,
    kind,
    params,
    ...(resource === null ? {} : { resource }),
    ...(action === null ? {} : { action }),
  };
}

function snakeCase(camel: string): string {
  return camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Converts decoded JSON to a policy value; `path` names the intent field for error messages. */
function toPolicyValue(value: unknown, path: string): PolicyValue {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map((item, position) => toPolicyValue(item, `${path}[${position}]`));
  if (typeof value === 'object' && value !== null) {
    const struct: Record<string, PolicyValue> = {};
    for (const [key, member] of Object.entries(value)) {
      if (member !== undefined && member !== null) struct[snakeCase(key)] = toPolicyValue(member, `${path}.${key}`);
    }
    return struct;
  }
  throw new QkError(
    'REQUEST_INVALID',
    `intent field ${path} holds ${value === null ? 'null' : `a ${typeof value}${typeof value === 'number' ? ` (${value})` : ''}`}, which policies cannot represent; send a string, boolean, integer, list or object`,
    { field: path },
  );
}
