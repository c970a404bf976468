/**
 * Resources as the service answers them (`v1Wallet` → `wallet`). Responses are loose: a client keeps fields a newer
 * hosted service adds instead of refusing them.
 */
import { z } from 'zod';
import { decimalString, int32, int64, res, timestamp } from './primitives';
import {
  accessType,
  addressFormat,
  appProofScheme,
  authenticationType,
  authenticatorTransport,
  credentialType,
  curve,
  effect,
  featureName,
  fiatOnRampProvider,
  invitationStatus,
  oauth2Provider,
  pathFormat,
  tagType,
} from './enums';

const createdUpdated = { createdAt: timestamp, updatedAt: timestamp };

export const credential = res({
  publicKey: z.string(),
  type: credentialType,
  sessionProfileId: z.string().optional(),
});

export const apiKey = res({
  credential,
  apiKeyId: z.string(),
  apiKeyName: z.string(),
  ...createdUpdated,
  expirationSeconds: decimalString.optional(),
});
export type ApiKey = z.infer<typeof apiKey>;

export const authenticator = res({
  transports: z.array(authenticatorTransport),
  attestationType: z.string(),
  aaguid: z.string(),
  credentialId: z.string(),
  model: z.string(),
  credential,
  authenticatorId: z.string(),
  authenticatorName: z.string(),
  ...createdUpdated,
});
export type Authenticator = z.infer<typeof authenticator>;

export const oauthProvider = res({
  providerId: z.string(),
  providerName: z.string(),
  issuer: z.string(),
  audience: z.string(),
  subject: z.string(),
  ...createdUpdated,
});
export type OauthProvider = z.infer<typeof oauthProvider>;

export const authenticationMethod = res({ type: authenticationType, id: z.string().optional() });
export const requiredAuthenticationMethod = res({ any: z.array(authenticationMethod) });
export const mfaPolicy = res({
  mfaPolicyId: z.string(),
  mfaPolicyName: z.string(),
  condition: z.string(),
  requiredAuthenticationMethods: z.array(requiredAuthenticationMethod),
  order: int64,
  notes: z.string().optional(),
  ...createdUpdated,
});

/** `v1MfaStatus`: where one user's MFA policy stands on one activity. */
export const mfaStatus = res({
  mfaPolicyId: z.string(),
  userId: z.string(),
  satisfied: z.boolean(),
  satisfiedMethods: z.array(authenticationMethod),
  requiredMethods: z.array(requiredAuthenticationMethod),
});
export type MfaStatus = z.infer<typeof mfaStatus>;
export type AuthenticationMethod = z.infer<typeof authenticationMethod>;

export const user = res({
  userId: z.string(),
  userName: z.string(),
  userEmail: z.string().optional(),
  userPhoneNumber: z.string().optional(),
  authenticators: z.array(authenticator),
  apiKeys: z.array(apiKey),
  userTags: z.array(z.string()),
  oauthProviders: z.array(oauthProvider),
  ...createdUpdated,
  mfaPolicies: z.array(mfaPolicy),
});
export type User = z.infer<typeof user>;

export const wallet = res({
  walletId: z.string(),
  walletName: z.string(),
  ...createdUpdated,
  exported: z.boolean(),
  imported: z.boolean(),
});
export type Wallet = z.infer<typeof wallet>;

export const walletAccount = res({
  walletAccountId: z.string(),
  organizationId: z.string(),
  walletId: z.string(),
  curve,
  pathFormat,
  path: z.string(),
  addressFormat,
  address: z.string(),
  ...createdUpdated,
  publicKey: z.string().optional(),
  walletDetails: wallet.optional(),
  name: z.string().optional(),
  caip2Prefix: z.string().optional(),
});
export type WalletAccount = z.infer<typeof walletAccount>;

/** `externaldatav1Address` and `immutableactivityv1Address` (same shape). */
export const address = res({ format: addressFormat.optional(), address: z.string().optional() });

/** `v1SignRawPayloadResult`: ECDSA r, s and the recovery id as v ("00"/"01"); Ed25519 R and S with v "00". */
export const signRawPayloadResult = res({ r: z.string(), s: z.string(), v: z.string() });

export const privateKey = res({
  privateKeyId: z.string(),
  publicKey: z.string(),
  privateKeyName: z.string(),
  curve,
  addresses: z.array(address),
  privateKeyTags: z.array(z.string()),
  ...createdUpdated,
  exported: z.boolean(),
  imported: z.boolean(),
});
export type PrivateKey = z.infer<typeof privateKey>;

export const policy = res({
  policyId: z.string(),
  policyName: z.string(),
  effect,
  ...createdUpdated,
  notes: z.string(),
  consensus: z.string(),
  condition: z.string(),
  time: z.string().optional(),
});
export type Policy = z.infer<typeof policy>;

/** `datav1Tag`. */
export const tag = res({ tagId: z.string(), tagName: z.string(), tagType, ...createdUpdated });
export type Tag = z.infer<typeof tag>;

export const outcome = z.enum([
  'OUTCOME_ALLOW',
  'OUTCOME_DENY_EXPLICIT',
  'OUTCOME_DENY_IMPLICIT',
  'OUTCOME_REQUIRES_CONSENSUS',
  'OUTCOME_REJECTED',
  'OUTCOME_ERROR',
  'OUTCOME_REQUIRES_AUTHENTICATORS',
  'OUTCOME_TIME_INACTIVE',
]);

/** `externalactivityv1PolicyEvaluation`: the policy engine's outcome per policy when one vote asked it. */
export const policyEvaluation = res({
  id: z.string(),
  activityId: z.string(),
  organizationId: z.string(),
  voteId: z.string(),
  policyEvaluations: z.array(res({ policyId: z.string().optional(), outcome: outcome.optional() })),
  createdAt: timestamp,
});

export const sessionProfile = res({
  sessionProfileId: z.string(),
  sessionProfileName: z.string(),
  scope: z.string(),
  expirationSeconds: z.string().optional(),
  notes: z.string().optional(),
  ...createdUpdated,
});
export type SessionProfile = z.infer<typeof sessionProfile>;

/** `externaldatav1SmartContractInterface`. */
export const smartContractInterface = res({
  organizationId: z.string(),
  smartContractInterfaceId: z.string(),
  smartContractAddress: z.string(),
  smartContractInterface: z.string(),
  type: z.string(),
  label: z.string(),
  notes: z.string(),
  ...createdUpdated,
});
export type SmartContractInterface = z.infer<typeof smartContractInterface>;

/** `externaldatav1Quorum`: the root quorum. */
export const quorum = res({ threshold: int32, userIds: z.array(z.string()) });
export const feature = res({ name: featureName.optional(), value: z.string().optional() });
/** `v1Config`: what `get_organization_configs` answers. */
export const organizationConfigs = res({ features: z.array(feature).optional(), quorum: quorum.optional() });
export type OrganizationConfigs = z.infer<typeof organizationConfigs>;

/** `v1IpAllowlist`: `publicKey` for an API key's own list, `enabled` only on the organization's. */
export const ipAllowlist = res({
  organizationId: z.string(),
  rules: z.array(res({ cidr: z.string(), label: z.string().optional(), createdAt: z.string().optional() })),
  publicKey: z.string().optional(),
  enabled: z.boolean().optional(),
  onEvaluationError: z.string().optional(),
});

/** `v1WebhookSubscriptionParams`: one event type an endpoint receives; `filtersJson` is kept as sent. */
export const webhookSubscription = res({ eventType: z.string(), filtersJson: z.string().optional(), isActive: z.boolean().optional() });
/** `v1WebhookEndpointData`. */
export const webhookEndpoint = res({
  endpointId: z.string(),
  organizationId: z.string(),
  url: z.string(),
  name: z.string(),
  isActive: z.boolean(),
  subscriptions: z.array(webhookSubscription).optional(),
});

export const invitation = res({
  invitationId: z.string(),
  receiverUserName: z.string(),
  receiverEmail: z.string(),
  receiverUserTags: z.array(z.string()),
  accessType,
  status: invitationStatus,
  ...createdUpdated,
  senderUserId: z.string(),
});
export const smartContractInterfaceReference = res({
  smartContractInterfaceId: z.string().optional(),
  smartContractAddress: z.string().optional(),
  digest: z.string().optional(),
});
/** `v1OrganizationData` (legacy `get_organization`). */
export const organizationData = res({
  organizationId: z.string().optional(),
  name: z.string().optional(),
  users: z.array(user).optional(),
  policies: z.array(policy).optional(),
  privateKeys: z.array(privateKey).optional(),
  invitations: z.array(invitation).optional(),
  tags: z.array(tag).optional(),
  rootQuorum: quorum.optional(),
  features: z.array(feature).optional(),
  wallets: z.array(wallet).optional(),
  smartContractInterfaceReferences: z.array(smartContractInterfaceReference).optional(),
});

export const tvcOperator = res({ id: z.string(), name: z.string(), publicKey: z.string(), ...createdUpdated });
export const tvcOperatorSet = res({
  id: z.string(),
  name: z.string(),
  organizationId: z.string(),
  operators: z.array(tvcOperator),
  threshold: int64,
  ...createdUpdated,
});
export const tvcApp = res({
  id: z.string(),
  organizationId: z.string(),
  name: z.string(),
  quorumPublicKey: z.string(),
  manifestSet: tvcOperatorSet,
  shareSet: tvcOperatorSet,
  enableEgress: z.boolean(),
  ...createdUpdated,
  liveDeploymentId: z.string().optional(),
  publicDomain: z.string(),
  enableDebugModeDeployments: z.boolean(),
});
export type TvcApp = z.infer<typeof tvcApp>;

export const appProof = res({
  scheme: appProofScheme,
  publicKey: z.string(),
  proofPayload: z.string(),
  signature: z.string(),
});
export type AppProof = z.infer<typeof appProof>;

export const bootProof = res({
  ephemeralPublicKeyHex: z.string(),
  awsAttestationDocB64: z.string(),
  qosManifestB64: z.string(),
  qosManifestEnvelopeB64: z.string(),
  deploymentLabel: z.string(),
  enclaveApp: z.string(),
  owner: z.string(),
  createdAt: timestamp,
  qosManifestVersion: z.string().optional(),
});

export const walletResult = res({ walletId: z.string(), addresses: z.array(z.string()) });
export const privateKeyResult = res({
  privateKeyId: z.string().optional(),
  addresses: z.array(address).optional(),
});
export const sparkEncryptedOperatorPackage = res({ operatorId: z.string(), encryptedPackage: z.string() });

/** `v1KeyValue`: a static property bound to a secret, which policies can read. */
export const keyValue = res({ key: z.string().optional(), value: z.string().optional() });
/** `v1SecretMetadata`: what list_secrets tells of a secret (never the secret). */
export const secretMetadata = res({
  secretId: z.string(),
  name: z.string().optional(),
  staticProperties: z.array(keyValue),
  createdAtUnixMs: z.string(),
});
export const oauth2Credential = res({
  oauth2CredentialId: z.string(),
  organizationId: z.string(),
  provider: oauth2Provider,
  clientId: z.string(),
  encryptedClientSecret: z.string(),
  ...createdUpdated,
});
export const fiatOnRampCredential = res({
  fiatOnrampCredentialId: z.string(),
  organizationId: z.string(),
  onrampProvider: fiatOnRampProvider,
  projectId: z.string().optional(),
  publishableApiKey: z.string(),
  encryptedSecretApiKey: z.string(),
  encryptedPrivateApiKey: z.string().optional(),
  sandboxMode: z.boolean().optional(),
  ...createdUpdated,
});
