/**
 * Older `ACTIVITY_TYPE_*` versions that released SDKs still submit (e.g. `@turnkey/sdk-server` 1.x sends
 * CREATE_USERS_V2 and UPDATE_POLICY), served at the current operation's path. Each version keeps its own type,
 * intent and result member names (as recorded and answered) and says how its parameters read as the current
 * operation's parameters and how the current result reads as its own: one implementation, many request shapes.
 */
import { z } from 'zod';
import { QkError } from '../errors';
import { activityOperations, emailCustomizationParamsV2, smsCustomizationParams } from './activities';
import { supersededActivityTypes } from './activity-record';
import { bounded, int32, req } from './primitives';
import { effect } from './enums';
import { apiKeyParamsV1, apiKeyParamsV2, authenticatorParamsV2, policyParams, clientSignature, privateKeyParams, walletParams } from './params';

type Operations = typeof activityOperations;
type OperationName = keyof Operations;

export interface ActivityVersion {
  readonly activityType: string;
  readonly intentKey: string;
  readonly resultKey: string;
  /** The current operation whose path, handler and authorization serve this version. */
  readonly operation: OperationName;
  /** This version's `parameters` (= its intent), strict like every request. */
  readonly parameters: z.ZodType;
  /** The same request as the current operation's parameters; throws a QkError for what cannot be expressed. */
  toCurrent(params: unknown): Record<string, unknown>;
  /** This version's result member from the current operation's result. */
  resultFromCurrent(result: unknown): unknown;
}

function version<const N extends OperationName, P extends z.ZodType>(spec: {
  activityType: keyof typeof supersededActivityTypes;
  operation: N;
  parameters: P;
  toCurrent: (params: z.output<P>) => z.input<Operations[N]['parameters']>;
  resultFromCurrent?: (result: z.output<Operations[N]['result']>) => unknown;
}): ActivityVersion {
  const { intentKey, resultKey } = supersededActivityTypes[spec.activityType];
  return {
    activityType: spec.activityType,
    intentKey,
    resultKey,
    operation: spec.operation,
    parameters: spec.parameters,
    toCurrent: (params) => spec.toCurrent(params as z.output<P>),
    resultFromCurrent: (result) =>
      spec.resultFromCurrent === undefined ? result : spec.resultFromCurrent(result as z.output<Operations[N]['result']>),
  };
}

const ids = z.array(bounded.id);

type ApiKeyParamsV1 = z.output<typeof apiKeyParamsV1>;
/** A key of the versions before curve types, as the current shape states it. */
export const apiKeyWithCurve = (key: ApiKeyParamsV1): z.input<typeof apiKeyParamsV2> => ({ ...key, curveType: 'API_KEY_CURVE_P256' });

/** `v1OauthProviderParams`: a provider named by its OIDC token (the later claims form is optional). */
const oauthProviderParamsV1 = req({ providerName: bounded.name, oidcToken: bounded.token });

const userName = { userName: bounded.name, userEmail: bounded.email.optional() };
const userParamsV2 = req({
  ...userName,
  apiKeys: z.array(apiKeyParamsV1),
  authenticators: z.array(authenticatorParamsV2),
  userTags: ids,
});
const userParamsV3 = req({
  ...userName,
  userPhoneNumber: bounded.phoneNumber.optional(),
  apiKeys: z.array(apiKeyParamsV2),
  authenticators: z.array(authenticatorParamsV2),
  oauthProviders: z.array(oauthProviderParamsV1),
  userTags: ids,
});

const rootUserParamsV1 = req({ ...userName, apiKeys: z.array(apiKeyParamsV1), authenticators: z.array(authenticatorParamsV2) });
const rootUserParamsV2 = req({
  ...userName,
  apiKeys: z.array(apiKeyParamsV1),
  authenticators: z.array(authenticatorParamsV2),
  oauthProviders: z.array(oauthProviderParamsV1),
});
const rootUserParamsV3 = req({
  ...userName,
  apiKeys: z.array(apiKeyParamsV2),
  authenticators: z.array(authenticatorParamsV2),
  oauthProviders: z.array(oauthProviderParamsV1),
});
const rootUserParamsV4 = req({ ...rootUserParamsV3.shape, userPhoneNumber: bounded.phoneNumber.optional() });

/** The members every sub-organization version up to V6 has; V7 adds the sign-up verification members. */
const subOrganizationV4To6 = {
  subOrganizationName: bounded.name,
  rootQuorumThreshold: int32,
  wallet: walletParams.optional(),
  disableEmailRecovery: z.boolean().optional(),
  disableEmailAuth: z.boolean().optional(),
};
const subOrganizationParamsV7 = req({
  ...subOrganizationV4To6,
  rootUsers: z.array(rootUserParamsV4),
  disableSmsAuth: z.boolean().optional(),
  disableOtpEmailAuth: z.boolean().optional(),
  verificationToken: bounded.token.optional(),
  clientSignature: clientSignature.optional(),
});

/** `v1Selector` / `v1SelectorV2`: the policy form that preceded condition expressions. */
const operator = z.enum([
  'OPERATOR_EQUAL',
  'OPERATOR_MORE_THAN',
  'OPERATOR_MORE_THAN_OR_EQUAL',
  'OPERATOR_LESS_THAN',
  'OPERATOR_LESS_THAN_OR_EQUAL',
  'OPERATOR_CONTAINS',
  'OPERATOR_NOT_EQUAL',
  'OPERATOR_IN',
  'OPERATOR_NOT_IN',
  'OPERATOR_CONTAINS_ONE',
  'OPERATOR_CONTAINS_ALL',
]);
const selectorV1 = req({ subject: bounded.message.optional(), operator: operator.optional(), target: bounded.message.optional() });
const selectorV2 = req({ subject: bounded.message.optional(), operator: operator.optional(), targets: z.array(bounded.message).optional() });

/**
 * CREATE_POLICY and CREATE_POLICY_V2 take either their selectors form or the condition form of V3 (which some
 * integrations send under the older type). Neither the swagger nor Turnkey's documentation says which condition a
 * selector's subject strings mean, so a policy with selectors is refused rather than guessed; an empty selector
 * list constrains nothing and reads as a policy without a condition.
 */
function olderPolicy<S extends z.ZodType>(selector: S, activityType: string) {
  const selectorForm = req({ policyName: bounded.name, selectors: z.array(selector), effect, notes: bounded.notes.optional() });
  return {
    parameters: z.union([selectorForm, policyParams]),
    toCurrent: (params: z.output<typeof selectorForm> | z.output<typeof policyParams>): z.input<typeof policyParams> => {
      if (!('selectors' in params)) return params;
      if (params.selectors.length > 0) {
        throw new QkError(
          'REQUEST_INVALID',
          `${activityType}: policies with selectors are not supported, because no documented rule turns a selector into a condition; send ACTIVITY_TYPE_CREATE_POLICY_V3 with a condition expression instead`,
          { issues: [{ path: 'parameters.selectors', message: 'not supported' }] },
        );
      }
      return { policyName: params.policyName, effect: params.effect, notes: params.notes ?? '' };
    },
  };
}

/**
 * `v1InitOtpAuthIntent`: the app's name travels in the email customization (V3 made it a member of its own), and code
 * length, alphabet and lifetime are the defaults.
 */
const initOtpAuthV1 = req({
  otpType: bounded.name,
  contact: bounded.email,
  emailCustomization: req({ ...emailCustomizationParamsV2.shape, appName: bounded.name.optional() }).optional(),
  smsCustomization: smsCustomizationParams.optional(),
  userIdentifier: bounded.name.optional(),
  sendFromEmailAddress: bounded.email.optional(),
  sendFromEmailSenderName: bounded.name.optional(),
  replyToEmailAddress: bounded.email.optional(),
});
/** `v1InitOtpAuthIntentV2` adds the code's length and alphabet. */
const initOtpAuthV2 = req({ ...initOtpAuthV1.shape, otpLength: int32.optional(), alphanumeric: z.boolean().optional() });

function initOtpAuthToCurrent({ emailCustomization, ...rest }: z.output<typeof initOtpAuthV2>) {
  const { appName, ...customization } = emailCustomization ?? {};
  // An older request may name no app; the code's message (the outbox line) carries none in any case.
  return { ...rest, appName: appName ?? '', ...(emailCustomization === undefined ? {} : { emailCustomization: customization }) };
}

export const olderActivityVersions: readonly ActivityVersion[] = [
  version({
    activityType: 'ACTIVITY_TYPE_INIT_OTP_AUTH',
    operation: 'init_otp_auth',
    parameters: initOtpAuthV1,
    toCurrent: initOtpAuthToCurrent,
  }),
  version({
    activityType: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V2',
    operation: 'init_otp_auth',
    parameters: initOtpAuthV2,
    toCurrent: initOtpAuthToCurrent,
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_USERS_V2',
    operation: 'create_users',
    parameters: req({ users: z.array(userParamsV2) }),
    toCurrent: ({ users }) => ({ users: users.map((user) => ({ ...user, apiKeys: user.apiKeys.map(apiKeyWithCurve), oauthProviders: [] })) }),
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_USERS_V3',
    operation: 'create_users',
    parameters: req({ users: z.array(userParamsV3) }),
    toCurrent: (params) => params,
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4',
    operation: 'create_sub_organization',
    parameters: req({ ...subOrganizationV4To6, rootUsers: z.array(rootUserParamsV1) }),
    toCurrent: ({ rootUsers, ...rest }) => ({
      ...rest,
      rootUsers: rootUsers.map((user) => ({ ...user, apiKeys: user.apiKeys.map(apiKeyWithCurve), oauthProviders: [] })),
    }),
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5',
    operation: 'create_sub_organization',
    parameters: req({ ...subOrganizationV4To6, rootUsers: z.array(rootUserParamsV2) }),
    toCurrent: ({ rootUsers, ...rest }) => ({
      ...rest,
      rootUsers: rootUsers.map((user) => ({ ...user, apiKeys: user.apiKeys.map(apiKeyWithCurve) })),
    }),
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6',
    operation: 'create_sub_organization',
    parameters: req({ ...subOrganizationV4To6, rootUsers: z.array(rootUserParamsV3) }),
    toCurrent: (params) => params,
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7',
    operation: 'create_sub_organization',
    parameters: subOrganizationParamsV7,
    toCurrent: (params) => params,
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_POLICY',
    operation: 'create_policy',
    ...olderPolicy(selectorV1, 'ACTIVITY_TYPE_CREATE_POLICY'),
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_POLICY_V2',
    operation: 'create_policy',
    ...olderPolicy(selectorV2, 'ACTIVITY_TYPE_CREATE_POLICY_V2'),
  }),
  version({
    activityType: 'ACTIVITY_TYPE_UPDATE_POLICY',
    operation: 'update_policy',
    parameters: activityOperations.update_policy.parameters.omit({ time: true }),
    toCurrent: (params) => params,
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_API_KEYS',
    operation: 'create_api_keys',
    parameters: req({ apiKeys: z.array(apiKeyParamsV1), userId: bounded.id }),
    toCurrent: ({ apiKeys, userId }) => ({ apiKeys: apiKeys.map(apiKeyWithCurve), userId }),
  }),
  version({
    activityType: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS',
    operation: 'create_private_keys',
    parameters: req({ privateKeys: z.array(privateKeyParams) }),
    toCurrent: (params) => params,
    // `v1CreatePrivateKeysResult` lists only the ids.
    resultFromCurrent: ({ privateKeys }) => ({ privateKeyIds: privateKeys.map((key) => key.privateKeyId) }),
  }),
];
