/**
 * Every activity (`POST /public/v1/submit/<name>`), grouped by resource family. Each entry gives the
 * current `ACTIVITY_TYPE_*` version of its path, the `v1Intent` / `v1Result` member names
 * (docs/service.md#activity-types), the parameters (= the intent, strict) and the result (loose).
 */
import { z } from 'zod';
import { activity, type ActivityOperation } from './operation';
import { int32, int64, bounded, boundedList, boundedString, decimalString, MAX_LENGTH, MAX_RAW_PAYLOADS, req, res } from './primitives';
import {
  accessType,
  addressFormat,
  curve,
  effect,
  featureName,
  fiatOnRampProvider,
  hashFunction,
  mnemonicLanguage,
  oauth2Provider,
  payloadEncoding,
  smartContractInterfaceType,
  transactionType,
  transportEncryptionSuite,
} from './enums';
import {
  apiKeyParamsV1,
  apiKeyParamsV2,
  authenticatorParamsV2,
  clientSignature,
  oauthProviderParamsV2,
  policyParams,
  privateKeyParams,
  requiredAuthenticationMethodParams,
  rootUserParamsV5,
  sparkLightningReceivePackage,
  tvcOperatorSetParams,
  userParamsV4,
  walletAccountParams,
  walletParams,
} from './params';
import { feature, privateKeyResult, address, signRawPayloadResult, sparkEncryptedOperatorPackage, walletResult, webhookEndpoint } from './resources';

interface ActivitySpec {
  readonly activityType: string;
  readonly intentKey: string;
  readonly resultKey: string | null;
  readonly parameters: z.ZodType;
  readonly result: z.ZodType;
  /** False where the swagger request has no `generateAppProofs` member. */
  readonly acceptsAppProofs?: boolean;
}

/** Each operation keeps its activity type as a literal, so a table keyed by activity type can require every one. */
type ActivityTable<T extends Record<string, ActivitySpec>> = {
  readonly [K in keyof T & string]: ActivityOperation<T[K]['parameters'], T[K]['result'], K> & { readonly activityType: T[K]['activityType'] };
};

function defineActivities<const T extends Record<string, ActivitySpec>>(table: T): ActivityTable<T> {
  const entries = Object.entries(table).map(([name, spec]) => [name, activity({ name, ...spec })]);
  return Object.fromEntries(entries) as ActivityTable<T>;
}

const ids = z.array(z.string());
/** A list of resource ids in a request. */
const idList = z.array(bounded.id);

const consensus = defineActivities({
  approve_activity: {
    activityType: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
    intentKey: 'approveActivityIntent',
    resultKey: null,
    parameters: req({ fingerprint: bounded.fingerprint }),
    result: z.null(),
  },
  reject_activity: {
    activityType: 'ACTIVITY_TYPE_REJECT_ACTIVITY',
    intentKey: 'rejectActivityIntent',
    resultKey: null,
    parameters: req({ fingerprint: bounded.fingerprint }),
    result: z.null(),
  },
});

const policies = defineActivities({
  create_policy: {
    activityType: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
    intentKey: 'createPolicyIntentV3',
    resultKey: 'createPolicyResult',
    parameters: policyParams,
    result: res({ policyId: z.string() }),
  },
  create_policies: {
    activityType: 'ACTIVITY_TYPE_CREATE_POLICIES',
    intentKey: 'createPoliciesIntent',
    resultKey: 'createPoliciesResult',
    parameters: req({ policies: z.array(policyParams) }),
    result: res({ policyIds: ids }),
  },
  update_policy: {
    activityType: 'ACTIVITY_TYPE_UPDATE_POLICY_V2',
    intentKey: 'updatePolicyIntentV2',
    resultKey: 'updatePolicyResultV2',
    parameters: req({
      policyId: bounded.id,
      policyName: bounded.name.optional(),
      policyEffect: effect.optional(),
      policyCondition: bounded.policyExpression.optional(),
      policyConsensus: bounded.policyExpression.optional(),
      policyNotes: bounded.notes.optional(),
      time: bounded.policyTime.optional(),
    }),
    result: res({ policyId: z.string() }),
  },
  delete_policy: {
    activityType: 'ACTIVITY_TYPE_DELETE_POLICY',
    intentKey: 'deletePolicyIntent',
    resultKey: 'deletePolicyResult',
    parameters: req({ policyId: bounded.id }),
    result: res({ policyId: z.string() }),
  },
});

/** MFA policies: per user, the authenticators an activity whose condition matches waits for (docs/service.md#mfa-policies). */
const mfaPolicies = defineActivities({
  create_mfa_policy: {
    activityType: 'ACTIVITY_TYPE_CREATE_MFA_POLICY',
    intentKey: 'createMfaPolicyIntent',
    resultKey: 'createMfaPolicyResult',
    parameters: req({
      userId: bounded.id,
      mfaPolicyName: bounded.name,
      condition: bounded.policyExpression,
      requiredAuthenticationMethods: z.array(requiredAuthenticationMethodParams),
      order: int64,
      notes: bounded.notes.optional(),
    }),
    result: res({ mfaPolicyId: z.string() }),
    acceptsAppProofs: false,
  },
  update_mfa_policy: {
    activityType: 'ACTIVITY_TYPE_UPDATE_MFA_POLICY',
    intentKey: 'updateMfaPolicyIntent',
    resultKey: 'updateMfaPolicyResult',
    parameters: req({
      userId: bounded.id,
      mfaPolicyId: bounded.id,
      mfaPolicyName: bounded.name.optional(),
      condition: bounded.policyExpression.optional(),
      requiredAuthenticationMethods: z.array(requiredAuthenticationMethodParams).optional(),
      order: int64.optional(),
      notes: bounded.notes.optional(),
    }),
    result: res({ mfaPolicyId: z.string() }),
    acceptsAppProofs: false,
  },
  delete_mfa_policy: {
    activityType: 'ACTIVITY_TYPE_DELETE_MFA_POLICY',
    intentKey: 'deleteMfaPolicyIntent',
    resultKey: 'deleteMfaPolicyResult',
    parameters: req({ userId: bounded.id, mfaPolicyId: bounded.id }),
    result: res({ mfaPolicyId: z.string() }),
    acceptsAppProofs: false,
  },
});

const wallets = defineActivities({
  create_wallet: {
    activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
    intentKey: 'createWalletIntent',
    resultKey: 'createWalletResult',
    parameters: walletParams,
    result: walletResult,
  },
  create_wallet_accounts: {
    activityType: 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS',
    intentKey: 'createWalletAccountsIntent',
    resultKey: 'createWalletAccountsResult',
    parameters: req({
      walletId: bounded.id,
      accounts: z.array(walletAccountParams),
      persist: z.boolean().optional(),
    }),
    result: res({ addresses: ids }),
  },
  delete_wallets: {
    activityType: 'ACTIVITY_TYPE_DELETE_WALLETS',
    intentKey: 'deleteWalletsIntent',
    resultKey: 'deleteWalletsResult',
    parameters: req({ walletIds: idList, deleteWithoutExport: z.boolean().optional() }),
    result: res({ walletIds: ids }),
  },
  export_wallet: {
    activityType: 'ACTIVITY_TYPE_EXPORT_WALLET',
    intentKey: 'exportWalletIntent',
    resultKey: 'exportWalletResult',
    parameters: req({
      walletId: bounded.id,
      targetPublicKey: bounded.publicKey,
      language: mnemonicLanguage.optional(),
    }),
    result: res({ walletId: z.string(), exportBundle: z.string() }),
  },
  export_wallet_account: {
    activityType: 'ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT',
    intentKey: 'exportWalletAccountIntent',
    resultKey: 'exportWalletAccountResult',
    parameters: req({ address: bounded.address, targetPublicKey: bounded.publicKey }),
    result: res({ address: z.string(), exportBundle: z.string() }),
  },
  init_import_wallet: {
    activityType: 'ACTIVITY_TYPE_INIT_IMPORT_WALLET',
    intentKey: 'initImportWalletIntent',
    resultKey: 'initImportWalletResult',
    parameters: req({ userId: bounded.id }),
    result: res({ importBundle: z.string() }),
  },
  import_wallet: {
    activityType: 'ACTIVITY_TYPE_IMPORT_WALLET',
    intentKey: 'importWalletIntent',
    resultKey: 'importWalletResult',
    parameters: req({
      userId: bounded.id,
      walletName: bounded.name,
      encryptedBundle: bounded.bundle,
      accounts: z.array(walletAccountParams),
    }),
    result: walletResult,
  },
});

const privateKeys = defineActivities({
  create_private_keys: {
    activityType: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
    intentKey: 'createPrivateKeysIntentV2',
    resultKey: 'createPrivateKeysResultV2',
    parameters: req({ privateKeys: z.array(privateKeyParams) }),
    result: res({ privateKeys: z.array(privateKeyResult) }),
  },
  delete_private_keys: {
    activityType: 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS',
    intentKey: 'deletePrivateKeysIntent',
    resultKey: 'deletePrivateKeysResult',
    parameters: req({ privateKeyIds: idList, deleteWithoutExport: z.boolean().optional() }),
    result: res({ privateKeyIds: ids }),
  },
  export_private_key: {
    activityType: 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY',
    intentKey: 'exportPrivateKeyIntent',
    resultKey: 'exportPrivateKeyResult',
    parameters: req({ privateKeyId: bounded.id, targetPublicKey: bounded.publicKey }),
    result: res({ privateKeyId: z.string(), exportBundle: z.string() }),
  },
  init_import_private_key: {
    activityType: 'ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY',
    intentKey: 'initImportPrivateKeyIntent',
    resultKey: 'initImportPrivateKeyResult',
    parameters: req({ userId: bounded.id }),
    result: res({ importBundle: z.string() }),
  },
  import_private_key: {
    activityType: 'ACTIVITY_TYPE_IMPORT_PRIVATE_KEY',
    intentKey: 'importPrivateKeyIntent',
    resultKey: 'importPrivateKeyResult',
    parameters: req({
      userId: bounded.id,
      privateKeyName: bounded.name,
      encryptedBundle: bounded.bundle,
      curve,
      addressFormats: z.array(addressFormat),
    }),
    result: res({ privateKeyId: z.string(), addresses: z.array(address) }),
  },
});

const users = defineActivities({
  create_users: {
    activityType: 'ACTIVITY_TYPE_CREATE_USERS_V4',
    intentKey: 'createUsersIntentV4',
    resultKey: 'createUsersResult',
    parameters: req({ users: z.array(userParamsV4) }),
    result: res({ userIds: ids }),
  },
  update_user: {
    activityType: 'ACTIVITY_TYPE_UPDATE_USER',
    intentKey: 'updateUserIntent',
    resultKey: 'updateUserResult',
    parameters: req({
      userId: bounded.id,
      userName: bounded.name.optional(),
      userEmail: bounded.email.optional(),
      userTagIds: idList.optional(),
      userPhoneNumber: bounded.phoneNumber.optional(),
    }),
    result: res({ userId: z.string() }),
  },
  update_user_name: {
    activityType: 'ACTIVITY_TYPE_UPDATE_USER_NAME',
    intentKey: 'updateUserNameIntent',
    resultKey: 'updateUserNameResult',
    parameters: req({ userId: bounded.id, userName: bounded.name }),
    result: res({ userId: z.string() }),
  },
  delete_users: {
    activityType: 'ACTIVITY_TYPE_DELETE_USERS',
    intentKey: 'deleteUsersIntent',
    resultKey: 'deleteUsersResult',
    parameters: req({ userIds: idList }),
    result: res({ userIds: ids }),
  },
  create_user_tag: {
    activityType: 'ACTIVITY_TYPE_CREATE_USER_TAG',
    intentKey: 'createUserTagIntent',
    resultKey: 'createUserTagResult',
    parameters: req({ userTagName: bounded.name, userIds: idList }),
    result: res({ userTagId: z.string(), userIds: ids }),
  },
  delete_user_tags: {
    activityType: 'ACTIVITY_TYPE_DELETE_USER_TAGS',
    intentKey: 'deleteUserTagsIntent',
    resultKey: 'deleteUserTagsResult',
    parameters: req({ userTagIds: idList }),
    result: res({ userTagIds: ids, userIds: ids }),
  },
});

const credentials = defineActivities({
  create_api_keys: {
    activityType: 'ACTIVITY_TYPE_CREATE_API_KEYS_V2',
    intentKey: 'createApiKeysIntentV2',
    resultKey: 'createApiKeysResult',
    parameters: req({ apiKeys: z.array(apiKeyParamsV2), userId: bounded.id }),
    result: res({ apiKeyIds: ids }),
  },
  delete_api_keys: {
    activityType: 'ACTIVITY_TYPE_DELETE_API_KEYS',
    intentKey: 'deleteApiKeysIntent',
    resultKey: 'deleteApiKeysResult',
    parameters: req({ userId: bounded.id, apiKeyIds: idList }),
    result: res({ apiKeyIds: ids }),
  },
  create_authenticators: {
    activityType: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
    intentKey: 'createAuthenticatorsIntentV2',
    resultKey: 'createAuthenticatorsResult',
    parameters: req({ authenticators: z.array(authenticatorParamsV2), userId: bounded.id }),
    result: res({ authenticatorIds: ids }),
  },
  delete_authenticators: {
    activityType: 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS',
    intentKey: 'deleteAuthenticatorsIntent',
    resultKey: 'deleteAuthenticatorsResult',
    parameters: req({ userId: bounded.id, authenticatorIds: idList }),
    result: res({ authenticatorIds: ids }),
  },
  create_oauth_providers: {
    activityType: 'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2',
    intentKey: 'createOauthProvidersIntentV2',
    resultKey: 'createOauthProvidersResultV2',
    parameters: req({ userId: bounded.id, oauthProviders: z.array(oauthProviderParamsV2) }),
    result: res({ providerIds: ids }),
  },
  delete_oauth_providers: {
    activityType: 'ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS',
    intentKey: 'deleteOauthProvidersIntent',
    resultKey: 'deleteOauthProvidersResult',
    parameters: req({ userId: bounded.id, providerIds: idList }),
    result: res({ providerIds: ids }),
  },
});

const organizations = defineActivities({
  update_root_quorum: {
    activityType: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
    intentKey: 'updateRootQuorumIntent',
    resultKey: 'updateRootQuorumResult',
    parameters: req({ threshold: int32, userIds: idList }),
    result: res({}),
  },
  create_sub_organization: {
    activityType: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8',
    intentKey: 'createSubOrganizationIntentV8',
    resultKey: 'createSubOrganizationResultV8',
    parameters: req({
      subOrganizationName: bounded.name,
      rootUsers: z.array(rootUserParamsV5),
      rootQuorumThreshold: int32,
      wallet: walletParams.optional(),
      disableEmailRecovery: z.boolean().optional(),
      disableEmailAuth: z.boolean().optional(),
      disableSmsAuth: z.boolean().optional(),
      disableOtpEmailAuth: z.boolean().optional(),
      verificationToken: bounded.token.optional(),
      clientSignature: clientSignature.optional(),
    }),
    result: res({
      subOrganizationId: z.string(),
      wallet: walletResult.optional(),
      rootUserIds: ids.optional(),
    }),
  },
  delete_sub_organization: {
    activityType: 'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION',
    intentKey: 'deleteSubOrganizationIntent',
    resultKey: 'deleteSubOrganizationResult',
    parameters: req({ deleteWithoutExport: z.boolean().optional() }),
    result: res({ subOrganizationUuid: z.string() }),
  },
  set_ip_allowlist: {
    activityType: 'ACTIVITY_TYPE_SET_IP_ALLOWLIST',
    intentKey: 'setIpAllowlistIntent',
    resultKey: 'setIpAllowlistResult',
    parameters: req({
      publicKey: bounded.publicKey.optional(),
      enabled: z.boolean().optional(),
      rules: z.array(req({ cidr: bounded.name, label: bounded.name.optional() })).optional(),
      // A string on the wire (Turnkey lists the values in prose only), so it is checked by pattern.
      onEvaluationError: bounded.name.regex(/^(?:ALLOW|DENY)$/, 'must be ALLOW or DENY').optional(),
    }),
    result: res({}),
  },
  remove_ip_allowlist: {
    activityType: 'ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST',
    intentKey: 'removeIpAllowlistIntent',
    resultKey: 'removeIpAllowlistResult',
    parameters: req({ publicKey: bounded.publicKey.optional() }),
    result: res({}),
  },
  set_organization_feature: {
    activityType: 'ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE',
    intentKey: 'setOrganizationFeatureIntent',
    resultKey: 'setOrganizationFeatureResult',
    parameters: req({ name: featureName, value: bounded.message }),
    result: res({ features: z.array(feature) }),
  },
  remove_organization_feature: {
    activityType: 'ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE',
    intentKey: 'removeOrganizationFeatureIntent',
    resultKey: 'removeOrganizationFeatureResult',
    parameters: req({ name: featureName }),
    result: res({ features: z.array(feature) }),
  },
});

const sessions = defineActivities({
  oauth_login: {
    activityType: 'ACTIVITY_TYPE_OAUTH_LOGIN',
    intentKey: 'oauthLoginIntent',
    resultKey: 'oauthLoginResult',
    parameters: req({
      oidcToken: bounded.token,
      publicKey: bounded.publicKey,
      expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
      invalidateExisting: z.boolean().optional(),
      sessionProfileId: bounded.id.optional(),
    }),
    result: res({ session: z.string() }),
  },
  create_session_profile: {
    activityType: 'ACTIVITY_TYPE_CREATE_SESSION_PROFILE',
    intentKey: 'createSessionProfileIntent',
    resultKey: 'createSessionProfileResult',
    parameters: req({
      sessionProfileName: bounded.name,
      scope: bounded.policyExpression,
      expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
      notes: bounded.notes.optional(),
    }),
    result: res({ sessionProfileId: z.string() }),
    acceptsAppProofs: false,
  },
});

const smartContractInterfaces = defineActivities({
  create_smart_contract_interface: {
    activityType: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
    intentKey: 'createSmartContractInterfaceIntent',
    resultKey: 'createSmartContractInterfaceResult',
    parameters: req({
      smartContractAddress: bounded.address,
      smartContractInterface: bounded.contractInterface,
      type: smartContractInterfaceType,
      label: bounded.name,
      notes: bounded.notes.optional(),
    }),
    result: res({ smartContractInterfaceId: z.string() }),
  },
  delete_smart_contract_interface: {
    activityType: 'ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE',
    intentKey: 'deleteSmartContractInterfaceIntent',
    resultKey: 'deleteSmartContractInterfaceResult',
    parameters: req({ smartContractInterfaceId: bounded.id }),
    result: res({ smartContractInterfaceId: z.string() }),
  },
});

const tvcApps = defineActivities({
  create_tvc_app: {
    activityType: 'ACTIVITY_TYPE_CREATE_TVC_APP',
    intentKey: 'createTvcAppIntent',
    resultKey: 'createTvcAppResult',
    parameters: req({
      name: bounded.name,
      quorumPublicKey: bounded.publicKeyPair,
      manifestSetId: bounded.id.optional(),
      manifestSetParams: tvcOperatorSetParams.optional(),
      shareSetId: bounded.id.optional(),
      shareSetParams: tvcOperatorSetParams.optional(),
      enableEgress: z.boolean().optional(),
      enableDebugModeDeployments: z.boolean().optional(),
    }),
    result: res({
      appId: z.string(),
      manifestSetId: z.string(),
      manifestSetOperatorIds: ids,
      manifestSetThreshold: int64,
      shareSetId: z.string(),
      shareSetOperatorIds: ids,
      shareSetThreshold: int64,
    }),
    acceptsAppProofs: false,
  },
  delete_tvc_app_and_deployments: {
    activityType: 'ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS',
    intentKey: 'deleteTvcAppAndDeploymentsIntent',
    resultKey: 'deleteTvcAppAndDeploymentsResult',
    parameters: req({ appId: bounded.id }),
    result: res({ appId: z.string() }),
  },
});

const spark = defineActivities({
  spark_prepare_lightning_receive: {
    activityType: 'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE',
    intentKey: 'sparkPrepareLightningReceiveIntent',
    resultKey: 'sparkPrepareLightningReceiveResult',
    parameters: req({ signWith: bounded.signWith, lightningReceive: sparkLightningReceivePackage }),
    result: res({ operatorPackages: z.array(sparkEncryptedOperatorPackage), paymentHash: z.string() }),
    acceptsAppProofs: false,
  },
});

const signing = defineActivities({
  sign_raw_payload: {
    activityType: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    intentKey: 'signRawPayloadIntentV2',
    resultKey: 'signRawPayloadResult',
    parameters: req({ signWith: bounded.signWith, payload: bounded.payload, encoding: payloadEncoding, hashFunction }),
    result: signRawPayloadResult,
  },
  sign_raw_payloads: {
    activityType: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS',
    intentKey: 'signRawPayloadsIntent',
    resultKey: 'signRawPayloadsResult',
    parameters: req({
      signWith: bounded.signWith,
      payloads: boundedList(bounded.payload, MAX_RAW_PAYLOADS, 'payloads'),
      encoding: payloadEncoding,
      hashFunction,
    }),
    result: res({ signatures: z.array(signRawPayloadResult).optional() }),
  },
  sign_transaction: {
    activityType: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
    intentKey: 'signTransactionIntentV2',
    resultKey: 'signTransactionResult',
    parameters: req({ signWith: bounded.signWith, unsignedTransaction: bounded.transaction, type: transactionType }),
    result: res({ signedTransaction: z.string() }),
  },
  eth_send_transaction: {
    activityType: 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2',
    intentKey: 'ethSendTransactionIntentV2',
    resultKey: 'ethSendTransactionResultV2',
    parameters: req({
      from: bounded.address,
      // Any eip155 chain: the Sandbox serves the chains its --rpc flags name (swagger lists hosted ones only).
      caip2: bounded.name,
      sponsor: z.boolean().optional(),
      nonce: decimalString.optional(),
      gasLimit: bounded.uint256.optional(),
      maxFeePerGas: bounded.uint256.optional(),
      maxPriorityFeePerGas: bounded.uint256.optional(),
      deadline: decimalString.optional(),
      gasStationNonce: decimalString.optional(),
      calls: z.array(req({ to: bounded.address, value: bounded.uint256.optional(), data: bounded.transaction.optional() })),
    }),
    result: res({ sendTransactionStatusId: z.string() }),
  },
  sol_send_transaction: {
    activityType: 'ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2',
    intentKey: 'solSendTransactionIntentV2',
    resultKey: 'solSendTransactionResultV2',
    parameters: req({
      unsignedTransaction: bounded.transaction,
      signWiths: z.array(bounded.signWith),
      sponsor: z.boolean().optional(),
      caip2: bounded.name,
      recentBlockhash: bounded.address.optional(),
    }),
    result: res({ sendTransactionStatusId: z.string() }),
  },
  eth_send_raw_transaction: {
    activityType: 'ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION',
    intentKey: 'ethSendRawTransactionIntent',
    resultKey: 'ethSendRawTransactionResult',
    parameters: req({ signedTransaction: bounded.transaction, caip2: bounded.name }),
    result: res({ transactionHash: z.string() }),
  },
  eth_undelegate_7702: {
    activityType: 'ACTIVITY_TYPE_ETH_UNDELEGATE_7702',
    intentKey: 'ethUndelegate7702Intent',
    resultKey: 'ethUndelegate7702Result',
    parameters: req({
      from: bounded.address,
      caip2: bounded.name,
      nonce: decimalString.optional(),
      gasLimit: bounded.uint256.optional(),
      maxFeePerGas: bounded.uint256.optional(),
      maxPriorityFeePerGas: bounded.uint256.optional(),
    }),
    result: res({ sendTransactionStatusId: z.string() }),
  },
});

// ─── everyday edits: renames, contact changes, bulk deletions, API-only users, stamp login ──────────

/** `v1EmailAuthCustomizationParams`: how the email looks; the local outbox keeps only the bundle it carries. */
const emailAuthCustomizationParams = req({
  appName: bounded.name,
  logoUrl: bounded.url.optional(),
  magicLinkTemplate: bounded.url.optional(),
  templateVariables: bounded.message.optional(),
  templateId: bounded.name.optional(),
});

/** `v1EmailCustomizationParamsV2` and `v1SmsCustomizationParams` of the OTP activities. */
export const emailCustomizationParamsV2 = req({
  logoUrl: bounded.url.optional(),
  magicLinkTemplate: bounded.url.optional(),
  templateVariables: bounded.message.optional(),
  templateId: bounded.name.optional(),
});
export const smsCustomizationParams = req({ template: bounded.message.optional() });

/** How a request for a credential key sealed to the client's target key describes that key. */
const credentialKeyRequest = {
  targetPublicKey: bounded.publicKey,
  apiKeyName: bounded.name.optional(),
  expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
  invalidateExisting: z.boolean().optional(),
};
/** What otp_auth and oauth answer: a credential key of the user, sealed to the client's target key. */
const credentialKeyResult = res({ userId: z.string(), apiKeyId: z.string(), credentialBundle: z.string() });
/** otp_auth's result as Turnkey declares it: only the user is promised (the service always gives all three). */
const otpAuthResult = res({ userId: z.string(), apiKeyId: z.string().optional(), credentialBundle: z.string().optional() });

const everydayEdits = defineActivities({
  update_wallet: {
    activityType: 'ACTIVITY_TYPE_UPDATE_WALLET',
    intentKey: 'updateWalletIntent',
    resultKey: 'updateWalletResult',
    parameters: req({ walletId: bounded.id, walletName: bounded.name.optional() }),
    result: res({ walletId: z.string() }),
  },
  delete_wallet_accounts: {
    activityType: 'ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS',
    intentKey: 'deleteWalletAccountsIntent',
    resultKey: 'deleteWalletAccountsResult',
    parameters: req({ walletAccountIds: idList, deleteWithoutExport: z.boolean().optional() }),
    result: res({ walletAccountIds: ids }),
  },
  delete_policies: {
    activityType: 'ACTIVITY_TYPE_DELETE_POLICIES',
    intentKey: 'deletePoliciesIntent',
    resultKey: 'deletePoliciesResult',
    parameters: req({ policyIds: idList }),
    result: res({ policyIds: ids }),
  },
  update_user_tag: {
    activityType: 'ACTIVITY_TYPE_UPDATE_USER_TAG',
    intentKey: 'updateUserTagIntent',
    resultKey: 'updateUserTagResult',
    parameters: req({ userTagId: bounded.id, newUserTagName: bounded.name.optional(), addUserIds: idList, removeUserIds: idList }),
    result: res({ userTagId: z.string() }),
  },
  update_user_email: {
    activityType: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
    intentKey: 'updateUserEmailIntent',
    resultKey: 'updateUserEmailResult',
    parameters: req({ userId: bounded.id, userEmail: bounded.email, verificationToken: bounded.token.optional() }),
    result: res({ userId: z.string() }),
  },
  update_user_phone_number: {
    activityType: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER',
    intentKey: 'updateUserPhoneNumberIntent',
    resultKey: 'updateUserPhoneNumberResult',
    parameters: req({ userId: bounded.id, userPhoneNumber: bounded.phoneNumber, verificationToken: bounded.token.optional() }),
    result: res({ userId: z.string() }),
  },
  update_organization_name: {
    activityType: 'ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME',
    intentKey: 'updateOrganizationNameIntent',
    resultKey: 'updateOrganizationNameResult',
    parameters: req({ organizationName: bounded.name }),
    result: res({ organizationId: z.string(), organizationName: z.string() }),
  },
  create_api_only_users: {
    activityType: 'ACTIVITY_TYPE_CREATE_API_ONLY_USERS',
    intentKey: 'createApiOnlyUsersIntent',
    resultKey: 'createApiOnlyUsersResult',
    parameters: req({
      apiOnlyUsers: z.array(req({ userName: bounded.name, userEmail: bounded.email.optional(), userTags: idList, apiKeys: z.array(apiKeyParamsV1) })),
    }),
    result: res({ userIds: ids }),
  },
  stamp_login: {
    activityType: 'ACTIVITY_TYPE_STAMP_LOGIN',
    intentKey: 'stampLoginIntent',
    resultKey: 'stampLoginResult',
    parameters: req({
      publicKey: bounded.publicKey,
      expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
      invalidateExisting: z.boolean().optional(),
      sessionProfileId: bounded.id.optional(),
    }),
    result: res({ session: z.string() }),
  },
  create_read_write_session: {
    activityType: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
    intentKey: 'createReadWriteSessionIntentV2',
    resultKey: 'createReadWriteSessionResultV2',
    parameters: req({
      ...credentialKeyRequest,
      userId: bounded.id.optional(),
    }),
    result: res({
      organizationId: z.string(),
      organizationName: z.string(),
      userId: z.string(),
      username: z.string(),
      apiKeyId: z.string(),
      credentialBundle: z.string(),
    }),
  },
  create_read_only_session: {
    activityType: 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION',
    intentKey: 'createReadOnlySessionIntent',
    resultKey: 'createReadOnlySessionResult',
    parameters: req({}),
    result: res({
      organizationId: z.string(),
      organizationName: z.string(),
      userId: z.string(),
      username: z.string(),
      session: z.string(),
      sessionExpiry: z.string(),
    }),
  },
  email_auth: {
    activityType: 'ACTIVITY_TYPE_EMAIL_AUTH_V3',
    intentKey: 'emailAuthIntentV3',
    resultKey: 'emailAuthResult',
    parameters: req({
      email: bounded.email,
      ...credentialKeyRequest,
      emailCustomization: emailAuthCustomizationParams,
      sendFromEmailAddress: bounded.email.optional(),
      sendFromEmailSenderName: bounded.name.optional(),
      replyToEmailAddress: bounded.email.optional(),
    }),
    result: res({ userId: z.string(), apiKeyId: z.string() }),
  },
  init_user_email_recovery: {
    activityType: 'ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2',
    intentKey: 'initUserEmailRecoveryIntentV2',
    resultKey: 'initUserEmailRecoveryResult',
    parameters: req({
      email: bounded.email,
      targetPublicKey: bounded.publicKey,
      expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
      emailCustomization: emailAuthCustomizationParams,
      sendFromEmailAddress: bounded.email.optional(),
      sendFromEmailSenderName: bounded.name.optional(),
      replyToEmailAddress: bounded.email.optional(),
    }),
    result: res({ userId: z.string() }),
  },
  recover_user: {
    activityType: 'ACTIVITY_TYPE_RECOVER_USER',
    intentKey: 'recoverUserIntent',
    resultKey: 'recoverUserResult',
    parameters: req({ authenticator: authenticatorParamsV2, userId: bounded.id }),
    result: res({ authenticatorId: ids }),
  },
  init_otp: {
    activityType: 'ACTIVITY_TYPE_INIT_OTP_V3',
    intentKey: 'initOtpIntentV3',
    resultKey: 'initOtpResultV2',
    parameters: req({
      otpType: bounded.name,
      contact: bounded.email,
      appName: bounded.name,
      otpLength: int32.optional(),
      emailCustomization: emailCustomizationParamsV2.optional(),
      smsCustomization: smsCustomizationParams.optional(),
      userIdentifier: bounded.name.optional(),
      sendFromEmailAddress: bounded.email.optional(),
      alphanumeric: z.boolean().optional(),
      sendFromEmailSenderName: bounded.name.optional(),
      expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
      replyToEmailAddress: bounded.email.optional(),
    }),
    result: res({ otpId: z.string(), otpEncryptionTargetBundle: z.string() }),
  },
  verify_otp: {
    activityType: 'ACTIVITY_TYPE_VERIFY_OTP_V2',
    intentKey: 'verifyOtpIntentV2',
    resultKey: 'verifyOtpResult',
    parameters: req({ otpId: bounded.id, encryptedOtpBundle: bounded.bundle, expirationSeconds: boundedString(MAX_LENGTH.decimal).optional() }),
    result: res({ verificationToken: z.string() }),
  },
  otp_login: {
    activityType: 'ACTIVITY_TYPE_OTP_LOGIN_V2',
    intentKey: 'otpLoginIntentV2',
    resultKey: 'otpLoginResult',
    parameters: req({
      verificationToken: bounded.token,
      publicKey: bounded.publicKey,
      clientSignature,
      expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
      invalidateExisting: z.boolean().optional(),
      sessionProfileId: bounded.id.optional(),
    }),
    result: res({ session: z.string() }),
  },
  init_otp_auth: {
    activityType: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
    intentKey: 'initOtpAuthIntentV3',
    resultKey: 'initOtpAuthResultV2',
    parameters: req({
      otpType: bounded.name,
      contact: bounded.email,
      otpLength: int32.optional(),
      appName: bounded.name,
      emailCustomization: emailCustomizationParamsV2.optional(),
      smsCustomization: smsCustomizationParams.optional(),
      userIdentifier: bounded.name.optional(),
      sendFromEmailAddress: bounded.email.optional(),
      alphanumeric: z.boolean().optional(),
      sendFromEmailSenderName: bounded.name.optional(),
      expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
      replyToEmailAddress: bounded.email.optional(),
    }),
    result: res({ otpId: z.string() }),
  },
  otp_auth: {
    activityType: 'ACTIVITY_TYPE_OTP_AUTH',
    intentKey: 'otpAuthIntent',
    resultKey: 'otpAuthResult',
    parameters: req({
      otpId: bounded.id,
      otpCode: bounded.name,
      ...credentialKeyRequest,
    }),
    result: otpAuthResult,
  },
  oauth: {
    activityType: 'ACTIVITY_TYPE_OAUTH',
    intentKey: 'oauthIntent',
    resultKey: 'oauthResult',
    parameters: req({
      oidcToken: bounded.token,
      ...credentialKeyRequest,
    }),
    result: credentialKeyResult,
  },
  create_private_key_tag: {
    activityType: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG',
    intentKey: 'createPrivateKeyTagIntent',
    resultKey: 'createPrivateKeyTagResult',
    parameters: req({ privateKeyTagName: bounded.name, privateKeyIds: idList }),
    result: res({ privateKeyTagId: z.string(), privateKeyIds: ids }),
  },
  update_private_key_tag: {
    activityType: 'ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG',
    intentKey: 'updatePrivateKeyTagIntent',
    resultKey: 'updatePrivateKeyTagResult',
    parameters: req({
      privateKeyTagId: bounded.id,
      newPrivateKeyTagName: bounded.name.optional(),
      addPrivateKeyIds: idList,
      removePrivateKeyIds: idList,
    }),
    result: res({ privateKeyTagId: z.string() }),
  },
  delete_private_key_tags: {
    activityType: 'ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS',
    intentKey: 'deletePrivateKeyTagsIntent',
    resultKey: 'deletePrivateKeyTagsResult',
    parameters: req({ privateKeyTagIds: idList }),
    result: res({ privateKeyTagIds: ids, privateKeyIds: ids }),
  },
});

const invitations = defineActivities({
  create_invitations: {
    activityType: 'ACTIVITY_TYPE_CREATE_INVITATIONS',
    intentKey: 'createInvitationsIntent',
    resultKey: 'createInvitationsResult',
    parameters: req({
      invitations: z.array(
        req({ receiverUserName: bounded.name, receiverUserEmail: bounded.email, receiverUserTags: idList, accessType, senderUserId: bounded.id }),
      ),
    }),
    result: res({ invitationIds: ids }),
  },
  delete_invitation: {
    activityType: 'ACTIVITY_TYPE_DELETE_INVITATION',
    intentKey: 'deleteInvitationIntent',
    resultKey: 'deleteInvitationResult',
    parameters: req({ invitationId: bounded.id }),
    result: res({ invitationId: z.string() }),
  },
});

/** An endpoint subscribes to each event type at most once, and there are few of them. */
const MAX_WEBHOOK_SUBSCRIPTIONS = 16;
/** `v1WebhookSubscriptionParams` in a request: the event type is checked by the family, which names the ones served. */
const webhookSubscriptionParams = req({ eventType: bounded.name, filtersJson: bounded.message.optional(), isActive: z.boolean().optional() });

const webhooks = defineActivities({
  create_webhook_endpoint: {
    activityType: 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT',
    intentKey: 'createWebhookEndpointIntent',
    resultKey: 'createWebhookEndpointResult',
    parameters: req({
      url: bounded.url,
      name: bounded.name,
      subscriptions: boundedList(webhookSubscriptionParams, MAX_WEBHOOK_SUBSCRIPTIONS, 'subscriptions').optional(),
    }),
    result: res({ endpointId: z.string(), webhookEndpoint }),
  },
  update_webhook_endpoint: {
    activityType: 'ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT',
    intentKey: 'updateWebhookEndpointIntent',
    resultKey: 'updateWebhookEndpointResult',
    parameters: req({ endpointId: bounded.id, url: bounded.url.optional(), name: bounded.name.optional(), isActive: z.boolean().optional() }),
    result: res({ endpointId: z.string(), webhookEndpoint }),
  },
  delete_webhook_endpoint: {
    activityType: 'ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT',
    intentKey: 'deleteWebhookEndpointIntent',
    resultKey: 'deleteWebhookEndpointResult',
    parameters: req({ endpointId: bounded.id }),
    result: res({ endpointId: z.string() }),
  },
});

/**
 * Secrets one request may import, export or prepare targets for (**our choice**: Turnkey documents no bound); a
 * client with more sends several requests.
 */
export const MAX_SECRETS_PER_REQUEST = 100;
/** Static properties one secret may carry (**our choice**, as above). */
export const MAX_SECRET_PROPERTIES = 32;

const keyValueParams = req({ key: bounded.name.optional(), value: bounded.message.optional() });

/** Secrets (docs/service.md#secrets): opaque bytes the enclave imports, keeps sealed and exports, as it does keys. */
const secrets = defineActivities({
  init_import_secrets: {
    activityType: 'ACTIVITY_TYPE_INIT_IMPORT_SECRETS',
    intentKey: 'initImportSecretsIntent',
    resultKey: 'initImportSecretsResult',
    parameters: req({
      encryptionSuite: transportEncryptionSuite,
      numSecrets: int32.min(1, { error: 'must be at least 1' }).max(MAX_SECRETS_PER_REQUEST, {
        error: `must be at most ${MAX_SECRETS_PER_REQUEST}; ask for more targets in further requests`,
      }),
    }),
    result: res({ enclaveTargetMessages: ids }),
    acceptsAppProofs: false,
  },
  import_secrets: {
    activityType: 'ACTIVITY_TYPE_IMPORT_SECRETS',
    intentKey: 'importSecretsIntent',
    resultKey: 'importSecretsResult',
    parameters: req({
      secrets: boundedList(
        req({
          name: bounded.name.optional(),
          secretPayload: bounded.bundle,
          targetPublicKey: bounded.publicKey,
          encryptionSuite: transportEncryptionSuite,
          staticProperties: boundedList(keyValueParams, MAX_SECRET_PROPERTIES, 'static properties').optional(),
        }),
        MAX_SECRETS_PER_REQUEST,
        'secrets',
      ),
    }),
    result: res({ secretIds: ids }),
    acceptsAppProofs: false,
  },
  export_secrets: {
    activityType: 'ACTIVITY_TYPE_EXPORT_SECRETS',
    intentKey: 'exportSecretsIntent',
    resultKey: 'exportSecretsResult',
    parameters: req({
      secrets: boundedList(
        req({ secretId: bounded.id, targetPublicKey: bounded.publicKey, encryptionSuite: transportEncryptionSuite }),
        MAX_SECRETS_PER_REQUEST,
        'secrets',
      ),
    }),
    result: res({ secretPayloads: ids }),
    acceptsAppProofs: false,
  },
});

const oauth2CredentialFields = {
  provider: oauth2Provider,
  clientId: bounded.name,
  /** Sealed by the client to Turnkey's TLS fetcher (docs/formats.md#stored-credentials). */
  encryptedClientSecret: bounded.bundle,
};
const fiatOnRampCredentialFields = {
  onrampProvider: fiatOnRampProvider,
  projectId: bounded.name.optional(),
  publishableApiKey: bounded.message,
  /** Sealed by the client to Turnkey's on-ramp key (docs/formats.md#stored-credentials). */
  encryptedSecretApiKey: bounded.bundle,
  encryptedPrivateApiKey: bounded.bundle.optional(),
};

/** Credentials an organization stores for its apps (docs/service.md#stored-credentials): OAuth 2.0 clients, on-ramps. */
const storedCredentials = defineActivities({
  create_oauth2_credential: {
    activityType: 'ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL',
    intentKey: 'createOauth2CredentialIntent',
    resultKey: 'createOauth2CredentialResult',
    parameters: req(oauth2CredentialFields),
    result: res({ oauth2CredentialId: z.string() }),
  },
  update_oauth2_credential: {
    activityType: 'ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL',
    intentKey: 'updateOauth2CredentialIntent',
    resultKey: 'updateOauth2CredentialResult',
    parameters: req({ oauth2CredentialId: bounded.id, ...oauth2CredentialFields }),
    result: res({ oauth2CredentialId: z.string() }),
  },
  delete_oauth2_credential: {
    activityType: 'ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL',
    intentKey: 'deleteOauth2CredentialIntent',
    resultKey: 'deleteOauth2CredentialResult',
    parameters: req({ oauth2CredentialId: bounded.id }),
    result: res({ oauth2CredentialId: z.string() }),
  },
  create_fiat_on_ramp_credential: {
    activityType: 'ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL',
    intentKey: 'createFiatOnRampCredentialIntent',
    resultKey: 'createFiatOnRampCredentialResult',
    parameters: req({ ...fiatOnRampCredentialFields, sandboxMode: z.boolean().optional() }),
    result: res({ fiatOnRampCredentialId: z.string() }),
  },
  update_fiat_on_ramp_credential: {
    activityType: 'ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL',
    intentKey: 'updateFiatOnRampCredentialIntent',
    resultKey: 'updateFiatOnRampCredentialResult',
    parameters: req({ fiatOnrampCredentialId: bounded.id, ...fiatOnRampCredentialFields }),
    result: res({ fiatOnRampCredentialId: z.string() }),
  },
  delete_fiat_on_ramp_credential: {
    activityType: 'ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL',
    intentKey: 'deleteFiatOnRampCredentialIntent',
    resultKey: 'deleteFiatOnRampCredentialResult',
    parameters: req({ fiatOnrampCredentialId: bounded.id }),
    result: res({ fiatOnRampCredentialId: z.string() }),
  },
});

export const activityOperations = {
  ...consensus,
  ...policies,
  ...mfaPolicies,
  ...wallets,
  ...privateKeys,
  ...users,
  ...credentials,
  ...organizations,
  ...sessions,
  ...smartContractInterfaces,
  ...tvcApps,
  ...spark,
  ...signing,
  ...everydayEdits,
  ...invitations,
  ...secrets,
  ...storedCredentials,
  ...webhooks,
};
