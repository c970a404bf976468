/**
 * Every read query (`POST /public/v1/query/<name>`): a strict request that always names the
 * organization, and a loose response.
 */
import { z } from 'zod';
import { query, type QueryOperation } from './operation';
import { activityResponseSchema, activitySchema } from './activity-record';
import { activityType } from './activity-types';
import { bounded, req, res } from './primitives';
import { activityStatus } from './enums';
import { pagination } from './params';
import {
  apiKey,
  appProof,
  ipAllowlist,
  authenticator,
  mfaPolicy,
  mfaStatus,
  bootProof,
  oauthProvider,
  organizationConfigs,
  organizationData,
  policy,
  privateKey,
  policyEvaluation,
  fiatOnRampCredential,
  oauth2Credential,
  secretMetadata,
  sessionProfile,
  smartContractInterface,
  tag,
  tvcApp,
  user,
  wallet,
  walletAccount,
  webhookEndpoint,
} from './resources';

interface QuerySpec {
  readonly request: z.ZodType;
  readonly response: z.ZodType;
}

type QueryTable<T extends Record<string, QuerySpec>> = {
  readonly [K in keyof T & string]: QueryOperation<T[K]['request'], T[K]['response'], K>;
};

function defineQueries<const T extends Record<string, QuerySpec>>(table: T): QueryTable<T> {
  const entries = Object.entries(table).map(([name, spec]) => [name, query(name, spec.request, spec.response)]);
  return Object.fromEntries(entries) as QueryTable<T>;
}

/** A query request: the organization plus the operation's own fields. */
function inOrganization<const Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return req({ organizationId: bounded.id, ...shape });
}

/** `filterType` / `filterValue` / `paginationOptions` of the sub-organization listings. */
const subOrgFilter = {
  filterType: bounded.name.optional(),
  filterValue: bounded.name.optional(),
  paginationOptions: pagination.optional(),
};
/** `v1TxError`: what went wrong with a sent transaction; the Sandbox gives the node's message only. */
const txError = res({ message: z.string().optional() });
const organizationIds = res({ organizationIds: z.array(z.string()) });

/** `v1AssetMetadata`: an asset the Sandbox reports balances and transfers in. */
const assetMetadata = res({
  caip19: z.string().optional(),
  symbol: z.string().optional(),
  decimals: z.number().optional(),
  logoUrl: z.string().optional(),
  name: z.string().optional(),
  stable: z.boolean().optional(),
});
/** `v1TransactionHistoryTransfer`: one movement of an asset to or from the queried address. */
const historyTransfer = res({
  direction: z.enum(['IN', 'OUT']),
  asset: res({ caip19: z.string(), symbol: z.string(), name: z.string(), decimals: z.number() }).optional(),
  amount: z.string(),
  counterparty: z.string(),
  display: res({ crypto: z.string().optional(), usd: z.string().optional() }).optional(),
});
/** The members both chains' history items share (`v1EthTransactionHistoryItem`, `v1SolTransactionHistoryItem`). */
const historyItemBase = {
  block: res({ number: z.string(), hash: z.string(), timestamp: z.string() }),
  status: z.enum(['CONFIRMED', 'FINALIZED']),
  origin: z.string(),
  fee: res({ amount: z.string(), caip19: z.string() }),
  transfers: z.array(historyTransfer),
  turnkey: res({ sponsored: z.boolean(), activityFingerprint: z.string().optional(), submittedAt: z.string().optional() }).optional(),
};
const ethTransactionHistoryItem = res({ transactionHash: z.string(), from: z.string(), to: z.string().optional(), ...historyItemBase });
const solTransactionHistoryItem = res({
  signature: z.string(),
  feePayer: z.string(),
  signers: z.array(res({ address: z.string(), writable: z.boolean() })),
  ...historyItemBase,
});
/** `v1PageInfo`. */
const pageInfo = res({
  hasNextPage: z.boolean().optional(),
  hasPreviousPage: z.boolean().optional(),
  startCursor: z.string().optional(),
  endCursor: z.string().optional(),
});

export const queryOperations = defineQueries({
  // activities
  get_activity: { request: inOrganization({ activityId: bounded.id }), response: activityResponseSchema },
  list_activities: {
    request: inOrganization({
      filterByStatus: z.array(activityStatus).optional(),
      paginationOptions: pagination.optional(),
      filterByType: z.array(activityType).optional(),
    }),
    response: res({ activities: z.array(activitySchema) }),
  },
  get_policy_evaluations: {
    request: inOrganization({ activityId: bounded.id }),
    response: res({ policyEvaluations: z.array(policyEvaluation) }),
  },
  list_app_proofs: {
    request: inOrganization({ activityId: bounded.id }),
    response: res({ appProofs: z.array(appProof) }),
  },
  get_boot_proof: {
    request: inOrganization({ ephemeralKey: bounded.publicKeyPair }),
    response: res({ bootProof }),
  },
  get_latest_boot_proof: {
    request: inOrganization({ appName: bounded.name }),
    response: res({ bootProof }),
  },

  // organization
  whoami: {
    request: inOrganization({}),
    response: res({
      organizationId: z.string(),
      organizationName: z.string(),
      userId: z.string(),
      username: z.string(),
    }),
  },
  get_organization: { request: inOrganization({}), response: res({ organizationData }) },
  get_organization_configs: { request: inOrganization({}), response: res({ configs: organizationConfigs }) },
  list_webhook_endpoints: { request: inOrganization({}), response: res({ webhookEndpoints: z.array(webhookEndpoint) }) },
  get_ip_allowlist: { request: inOrganization({ publicKey: bounded.publicKey.optional() }), response: res({ allowlist: ipAllowlist }) },
  list_suborgs: { request: inOrganization(subOrgFilter), response: organizationIds },
  list_verified_suborgs: { request: inOrganization(subOrgFilter), response: organizationIds },

  // users and credentials
  list_users: { request: inOrganization({}), response: res({ users: z.array(user) }) },
  get_user: { request: inOrganization({ userId: bounded.id }), response: res({ user }) },
  list_user_tags: { request: inOrganization({}), response: res({ userTags: z.array(tag) }) },
  get_api_key: { request: inOrganization({ apiKeyId: bounded.id }), response: res({ apiKey }) },
  get_api_keys: {
    request: inOrganization({ userId: bounded.id.optional() }),
    response: res({ apiKeys: z.array(apiKey) }),
  },
  get_authenticator: {
    request: inOrganization({ authenticatorId: bounded.id }),
    response: res({ authenticator }),
  },
  get_authenticators: {
    request: inOrganization({ userId: bounded.id }),
    response: res({ authenticators: z.array(authenticator) }),
  },
  get_oauth_providers: {
    request: inOrganization({ userId: bounded.id.optional() }),
    response: res({ oauthProviders: z.array(oauthProvider) }),
  },
  get_session_profiles: {
    request: inOrganization({}),
    response: res({ sessionProfiles: z.array(sessionProfile) }),
  },
  get_session_profile: {
    request: inOrganization({ sessionProfileId: bounded.id }),
    response: res({ sessionProfile }),
  },

  // policies
  get_policy: { request: inOrganization({ policyId: bounded.id }), response: res({ policy }) },
  list_policies: { request: inOrganization({}), response: res({ policies: z.array(policy) }) },
  // Newer than the reference swagger: the shape of @turnkey/http's v1GetActivePoliciesRequest / Response.
  get_active_policies: {
    request: inOrganization({}),
    response: res({
      statuses: z.array(
        res({ organizationId: z.string(), policyId: z.string(), active: z.boolean(), timeExpr: z.string().optional(), error: z.string().optional() }),
      ),
      evaluatedAtMs: z.string(),
    }),
  },

  // MFA policies
  get_mfa_policies: { request: inOrganization({ userId: bounded.id }), response: res({ mfaPolicies: z.array(mfaPolicy) }) },
  get_mfa_policy: { request: inOrganization({ userId: bounded.id, mfaPolicyId: bounded.id }), response: res({ mfaPolicy }) },
  get_mfa_status: {
    request: inOrganization({ activityId: bounded.id, userId: bounded.id.optional() }),
    response: res({ mfaStatuses: z.array(mfaStatus) }),
  },

  // wallets and private keys
  list_wallets: { request: inOrganization({}), response: res({ wallets: z.array(wallet) }) },
  get_wallet: { request: inOrganization({ walletId: bounded.id }), response: res({ wallet }) },
  list_wallet_accounts: {
    request: inOrganization({
      walletId: bounded.id.optional(),
      includeWalletDetails: z.boolean().optional(),
      paginationOptions: pagination.optional(),
    }),
    response: res({ accounts: z.array(walletAccount) }),
  },
  get_send_transaction_status: {
    request: inOrganization({ sendTransactionStatusId: bounded.id }),
    response: res({
      txStatus: z.string(),
      eth: res({ txHash: z.string().optional() }).optional(),
      solana: res({ signature: z.string().optional() }).optional(),
      txError: z.string().optional(),
      error: txError.optional(),
    }),
  },
  get_nonces: {
    request: inOrganization({
      address: bounded.address,
      caip2: bounded.name,
      nonce: z.boolean().optional(),
      gasStationNonce: z.boolean().optional(),
    }),
    response: res({ nonce: z.string().optional(), gasStationNonce: z.string().optional() }),
  },
  get_gas_usage: {
    request: inOrganization({}),
    response: res({ windowDurationMinutes: z.number(), windowLimitUsd: z.string(), usageUsd: z.string() }),
  },

  // wallet data read from the chain's node
  get_wallet_address_balances: {
    request: inOrganization({ address: bounded.address, caip2: bounded.name }),
    response: res({
      balances: z
        .array(
          res({
            caip19: z.string().optional(),
            symbol: z.string().optional(),
            balance: z.string().optional(),
            decimals: z.number().optional(),
            display: res({ usd: z.string().optional(), crypto: z.string().optional() }).optional(),
            name: z.string().optional(),
          }),
        )
        .optional(),
    }),
  },
  list_supported_assets: {
    request: inOrganization({ caip2: bounded.name }),
    response: res({ assets: z.array(assetMetadata).optional() }),
  },
  list_eth_transaction_history: {
    request: inOrganization({ address: bounded.address, caip2: bounded.name, paginationOptions: pagination.optional() }),
    response: res({ transactions: z.array(ethTransactionHistoryItem), pageInfo: pageInfo.optional() }),
  },
  list_sol_transaction_history: {
    request: inOrganization({ address: bounded.address, caip2: bounded.name, paginationOptions: pagination.optional() }),
    response: res({ transactions: z.array(solTransactionHistoryItem), pageInfo: pageInfo.optional() }),
  },
  get_wallet_account: {
    request: inOrganization({
      walletId: bounded.id,
      address: bounded.address.optional(),
      path: bounded.path.optional(),
    }),
    response: res({ account: walletAccount }),
  },
  list_private_keys: { request: inOrganization({}), response: res({ privateKeys: z.array(privateKey) }) },
  list_private_key_tags: { request: inOrganization({}), response: res({ privateKeyTags: z.array(tag) }) },
  get_private_key: {
    request: inOrganization({ privateKeyId: bounded.id }),
    response: res({ privateKey }),
  },

  // smart-contract interfaces
  list_smart_contract_interfaces: {
    request: inOrganization({}),
    response: res({ smartContractInterfaces: z.array(smartContractInterface) }),
  },
  get_smart_contract_interface: {
    request: inOrganization({ smartContractInterfaceId: bounded.id }),
    response: res({ smartContractInterface }),
  },

  // secrets
  list_secrets: {
    request: inOrganization({ paginationOptions: pagination.optional() }),
    response: res({ secrets: z.array(secretMetadata) }),
  },

  // stored credentials
  get_oauth2_credential: {
    request: inOrganization({ oauth2CredentialId: bounded.id }),
    response: res({ oauth2Credential }),
  },
  list_oauth2_credentials: { request: inOrganization({}), response: res({ oauth2Credentials: z.array(oauth2Credential) }) },
  list_fiat_on_ramp_credentials: {
    request: inOrganization({}),
    response: res({ fiatOnRampCredentials: z.array(fiatOnRampCredential) }),
  },

  // TVC
  list_tvc_apps: { request: inOrganization({}), response: res({ tvcApps: z.array(tvcApp) }) },
  get_tvc_app: { request: inOrganization({ tvcAppId: bounded.id }), response: res({ tvcApp }) },
});
