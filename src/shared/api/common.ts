/**
 * Sub-schemas shared by many operations, named after the swagger definitions they mirror
 * (`v1WalletAccountParams` → `walletAccountParams`). Field names, requiredness and enum values
 * follow turnkey-public-api.swagger.json exactly; test/unit/api checks them against it.
 *
 * Requests are strict (an unknown field is refused), responses are loose (a client tolerates
 * fields a newer hosted service adds).
 */
import { z } from 'zod';
import { MAX_EMAIL_LENGTH } from '../text';

/** A request object: unknown fields are an error. */
export const req = z.strictObject;
/** A response object: unknown fields are kept, not refused. */
export const res = z.looseObject;

// ─── request string limits ────────────────────────────────────────────────────────────────────

/**
 * The longest value each kind of request string may hold. Every request string has one, so an overlong string is
 * refused by its length alone, before any pattern, parser, signature check or database sees it.
 */
export const MAX_LENGTH = {
  /** Resource ids are UUIDs. */
  id: 36,
  /** Names, labels, tag names and similar short text chosen by a person. */
  name: 256,
  email: MAX_EMAIL_LENGTH,
  /** E.164 is '+' and at most 15 digits; the slack lets a near miss get the specific format error. */
  phoneNumber: 32,
  /** A uint64 or int64 in decimal: 20 characters at most (with the sign). */
  decimal: 20,
  /** Hex public keys: an uncompressed SEC1 point (65 bytes) is the longest. */
  publicKey: 130,
  /** A QOS key pair (encryption ‖ signing: two uncompressed points), as TVC quorum and enclave ephemeral keys are. */
  publicKeyPair: 260,
  /** Hex signatures: a DER ECDSA signature (at most 72 bytes) is the longest. */
  signature: 144,
  /** Chain addresses: the longest formats (Spark, Cosmos-style bech32, TON, Sui, Aptos) stay well under it. */
  address: 128,
  /** `signWith`: a wallet account address, a private key id or a public key (an uncompressed one is the longest). */
  signWith: 130,
  /** A payload to sign: a message, a digest or EIP-712 typed data, in its encoding. */
  payload: 256 * 1024,
  /** An unsigned transaction or PSBT in hex: 256 KiB of bytes, twice a node's largest relayed transaction. */
  transaction: 512 * 1024,
  /** BIP32 derivation paths. */
  path: 256,
  /** `sha256:<64 hex>` fingerprints, with room for the algorithm prefix. */
  fingerprint: 128,
  /** URLs and URL-like claims (OIDC issuer and audience). */
  url: 2048,
  /** Short free text inside a message the client signs (a token usage). */
  message: 4 * 1024,
  /** Notes on a policy, session profile or contract interface. */
  notes: 4 * 1024,
  /** Policy conditions, consensus expressions and session-profile scopes. */
  policyExpression: 64 * 1024,
  /** Policy time windows (a cron span). */
  policyTime: 1024,
  /** OIDC ID tokens, verification tokens and other JWTs. */
  token: 16 * 1024,
  /** Encrypted import / OTP bundles: a JSON envelope of hex fields around a key or mnemonic. */
  bundle: 64 * 1024,
  /** WebAuthn credential ids (at most 1023 bytes, base64url). */
  credentialId: 2048,
  /** WebAuthn challenges (base64url). */
  challenge: 1024,
  /** WebAuthn clientDataJSON and attestation objects (base64url), with room for an attestation certificate chain. */
  webauthnData: 64 * 1024,
  /** Ethereum ABIs and Solana IDLs: Turnkey accepts up to 400 kB. */
  contractInterface: 400 * 1024,
} as const;

/** A request string of at most `max` characters; longer ones are refused before any other check runs on them. */
export function boundedString(max: number): z.ZodString {
  return z.string().max(max, { error: (issue) => `must be at most ${max} characters, got ${String((issue.input as string).length)}`, abort: true });
}

/** One bounded string schema per kind of request field (see MAX_LENGTH). */
export const bounded = {
  id: boundedString(MAX_LENGTH.id),
  name: boundedString(MAX_LENGTH.name),
  email: boundedString(MAX_LENGTH.email),
  phoneNumber: boundedString(MAX_LENGTH.phoneNumber),
  publicKey: boundedString(MAX_LENGTH.publicKey),
  publicKeyPair: boundedString(MAX_LENGTH.publicKeyPair),
  signature: boundedString(MAX_LENGTH.signature),
  address: boundedString(MAX_LENGTH.address),
  signWith: boundedString(MAX_LENGTH.signWith),
  payload: boundedString(MAX_LENGTH.payload),
  transaction: boundedString(MAX_LENGTH.transaction),
  path: boundedString(MAX_LENGTH.path),
  fingerprint: boundedString(MAX_LENGTH.fingerprint),
  url: boundedString(MAX_LENGTH.url),
  message: boundedString(MAX_LENGTH.message),
  notes: boundedString(MAX_LENGTH.notes),
  policyExpression: boundedString(MAX_LENGTH.policyExpression),
  policyTime: boundedString(MAX_LENGTH.policyTime),
  token: boundedString(MAX_LENGTH.token),
  bundle: boundedString(MAX_LENGTH.bundle),
  credentialId: boundedString(MAX_LENGTH.credentialId),
  challenge: boundedString(MAX_LENGTH.challenge),
  webauthnData: boundedString(MAX_LENGTH.webauthnData),
  contractInterface: boundedString(MAX_LENGTH.contractInterface),
} as const;

// ─── wire primitives (docs/service.md#transport) ──────────────────────────────────────────────

/** An unsigned decimal integer carried as a string (uint64 / int64 counters, `timestampMs`). */
export const decimalString = boundedString(MAX_LENGTH.decimal).regex(/^\d+$/, { error: 'expected a string of decimal digits' });

/** A proto int32: a JSON number. */
export const int32 = z
  .number()
  .int()
  .min(-(2 ** 31))
  .max(2 ** 31 - 1);

/**
 * A proto int64 declared `type: integer` in the swagger. proto3 JSON writes int64 as a decimal
 * string and accepts a number too (the Turnkey SDK types declare it `number`), so both are read and
 * the value always comes out as a string: precision is never lost past 2^53.
 */
export const int64 = z
  .union([boundedString(MAX_LENGTH.decimal).regex(/^-?\d+$/, { error: 'expected a decimal integer' }), z.number().int().safe()])
  .transform(String);

/** `externaldatav1Timestamp`: seconds and nanos, both decimal strings. */
export const timestamp = res({ seconds: z.string(), nanos: z.string() });
export type Timestamp = z.infer<typeof timestamp>;

const createdUpdated = { createdAt: timestamp, updatedAt: timestamp };

// ─── enums ────────────────────────────────────────────────────────────────────────────────────

export const curve = z.enum(['CURVE_SECP256K1', 'CURVE_ED25519', 'CURVE_P256']);
export const pathFormat = z.enum(['PATH_FORMAT_BIP32']);
export const addressFormat = z.enum([
  'ADDRESS_FORMAT_UNCOMPRESSED',
  'ADDRESS_FORMAT_COMPRESSED',
  'ADDRESS_FORMAT_ETHEREUM',
  'ADDRESS_FORMAT_SOLANA',
  'ADDRESS_FORMAT_COSMOS',
  'ADDRESS_FORMAT_TRON',
  'ADDRESS_FORMAT_SUI',
  'ADDRESS_FORMAT_APTOS',
  'ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH',
  'ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH',
  'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH',
  'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH',
  'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR',
  'ADDRESS_FORMAT_BITCOIN_TESTNET_P2PKH',
  'ADDRESS_FORMAT_BITCOIN_TESTNET_P2SH',
  'ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH',
  'ADDRESS_FORMAT_BITCOIN_TESTNET_P2WSH',
  'ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR',
  'ADDRESS_FORMAT_BITCOIN_SIGNET_P2PKH',
  'ADDRESS_FORMAT_BITCOIN_SIGNET_P2SH',
  'ADDRESS_FORMAT_BITCOIN_SIGNET_P2WPKH',
  'ADDRESS_FORMAT_BITCOIN_SIGNET_P2WSH',
  'ADDRESS_FORMAT_BITCOIN_SIGNET_P2TR',
  'ADDRESS_FORMAT_BITCOIN_REGTEST_P2PKH',
  'ADDRESS_FORMAT_BITCOIN_REGTEST_P2SH',
  'ADDRESS_FORMAT_BITCOIN_REGTEST_P2WPKH',
  'ADDRESS_FORMAT_BITCOIN_REGTEST_P2WSH',
  'ADDRESS_FORMAT_BITCOIN_REGTEST_P2TR',
  'ADDRESS_FORMAT_SEI',
  'ADDRESS_FORMAT_XLM',
  'ADDRESS_FORMAT_DOGE_MAINNET',
  'ADDRESS_FORMAT_DOGE_TESTNET',
  'ADDRESS_FORMAT_TON_V3R2',
  'ADDRESS_FORMAT_TON_V4R2',
  'ADDRESS_FORMAT_TON_V5R1',
  'ADDRESS_FORMAT_XRP',
  'ADDRESS_FORMAT_SPARK_MAINNET',
  'ADDRESS_FORMAT_SPARK_REGTEST',
]);
export const apiKeyCurve = z.enum(['API_KEY_CURVE_P256', 'API_KEY_CURVE_SECP256K1', 'API_KEY_CURVE_ED25519']);
export const credentialType = z.enum([
  'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR',
  'CREDENTIAL_TYPE_API_KEY_P256',
  'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256',
  'CREDENTIAL_TYPE_API_KEY_SECP256K1',
  'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_API_KEY_ED25519',
  'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256',
  'CREDENTIAL_TYPE_OAUTH_KEY_P256',
  'CREDENTIAL_TYPE_LOGIN',
]);
export const effect = z.enum(['EFFECT_ALLOW', 'EFFECT_DENY']);
export type PolicyEffect = z.infer<typeof effect>;
export const mnemonicLanguage = z.enum([
  'MNEMONIC_LANGUAGE_ENGLISH',
  'MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE',
  'MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE',
  'MNEMONIC_LANGUAGE_CZECH',
  'MNEMONIC_LANGUAGE_FRENCH',
  'MNEMONIC_LANGUAGE_ITALIAN',
  'MNEMONIC_LANGUAGE_JAPANESE',
  'MNEMONIC_LANGUAGE_KOREAN',
  'MNEMONIC_LANGUAGE_SPANISH',
]);
export const activityStatus = z.enum([
  'ACTIVITY_STATUS_CREATED',
  'ACTIVITY_STATUS_PENDING',
  'ACTIVITY_STATUS_COMPLETED',
  'ACTIVITY_STATUS_FAILED',
  'ACTIVITY_STATUS_CONSENSUS_NEEDED',
  'ACTIVITY_STATUS_REJECTED',
  'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED',
]);
export type ActivityStatus = z.infer<typeof activityStatus>;
export const voteSelection = z.enum(['VOTE_SELECTION_APPROVED', 'VOTE_SELECTION_REJECTED']);
export const authenticatorTransport = z.enum([
  'AUTHENTICATOR_TRANSPORT_BLE',
  'AUTHENTICATOR_TRANSPORT_INTERNAL',
  'AUTHENTICATOR_TRANSPORT_NFC',
  'AUTHENTICATOR_TRANSPORT_USB',
  'AUTHENTICATOR_TRANSPORT_HYBRID',
]);
export const tagType = z.enum(['TAG_TYPE_USER', 'TAG_TYPE_PRIVATE_KEY']);
export const featureName = z.enum([
  'FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY',
  'FEATURE_NAME_WEBAUTHN_ORIGINS',
  'FEATURE_NAME_EMAIL_AUTH',
  'FEATURE_NAME_EMAIL_RECOVERY',
  'FEATURE_NAME_WEBHOOK',
  'FEATURE_NAME_SMS_AUTH',
  'FEATURE_NAME_OTP_EMAIL_AUTH',
  'FEATURE_NAME_AUTH_PROXY',
  'FEATURE_NAME_SOLANA_RENT_PREFUND_ENABLED',
  'FEATURE_NAME_SWAP_CONFIG',
  'FEATURE_NAME_EARN_CONFIG',
]);
export const accessType = z.enum(['ACCESS_TYPE_WEB', 'ACCESS_TYPE_API', 'ACCESS_TYPE_ALL']);
export const invitationStatus = z.enum([
  'INVITATION_STATUS_CREATED',
  'INVITATION_STATUS_ACCEPTED',
  'INVITATION_STATUS_REVOKED',
]);
export const smartContractInterfaceType = z.enum([
  'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
  'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
]);
export const payloadEncoding = z.enum([
  'PAYLOAD_ENCODING_HEXADECIMAL',
  'PAYLOAD_ENCODING_TEXT_UTF8',
  'PAYLOAD_ENCODING_EIP712',
  'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
]);
export const hashFunction = z.enum([
  'HASH_FUNCTION_NO_OP',
  'HASH_FUNCTION_SHA256',
  'HASH_FUNCTION_KECCAK256',
  'HASH_FUNCTION_NOT_APPLICABLE',
]);
export const transactionType = z.enum([
  'TRANSACTION_TYPE_ETHEREUM',
  'TRANSACTION_TYPE_SOLANA',
  'TRANSACTION_TYPE_TRON',
  'TRANSACTION_TYPE_BITCOIN',
  'TRANSACTION_TYPE_TEMPO',
]);
export const clientSignatureScheme = z.enum(['CLIENT_SIGNATURE_SCHEME_API_P256']);
/** `externaldatav1SignatureScheme`: the scheme of an enclave App Proof. */
export const appProofScheme = z.enum(['SIGNATURE_SCHEME_EPHEMERAL_KEY_P256']);
export const authenticationType = z.enum([
  'AUTHENTICATION_TYPE_EMAIL_OTP',
  'AUTHENTICATION_TYPE_SMS_OTP',
  'AUTHENTICATION_TYPE_PASSKEY',
  'AUTHENTICATION_TYPE_API_KEY',
  'AUTHENTICATION_TYPE_OAUTH',
  'AUTHENTICATION_TYPE_SESSION',
]);

// ─── request building blocks (strict) ─────────────────────────────────────────────────────────

/** `v1Pagination`: `limit` is a decimal string; `before`/`after` are cursors (resource ids). */
export const pagination = req({
  limit: decimalString.optional(),
  before: bounded.id.optional(),
  after: bounded.id.optional(),
});

export const walletAccountParams = req({
  curve,
  pathFormat,
  path: bounded.path,
  addressFormat,
  name: bounded.name.optional(),
});
export type WalletAccountParams = z.infer<typeof walletAccountParams>;

export const walletParams = req({
  walletName: bounded.name,
  accounts: z.array(walletAccountParams),
  mnemonicLength: int32.optional(),
});

export const privateKeyParams = req({
  privateKeyName: bounded.name,
  curve,
  privateKeyTags: z.array(bounded.id),
  addressFormats: z.array(addressFormat),
});

export const apiKeyParamsV2 = req({
  apiKeyName: bounded.name,
  publicKey: bounded.publicKey,
  curveType: apiKeyCurve,
  expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
});

export const attestation = req({
  credentialId: bounded.credentialId,
  clientDataJson: bounded.webauthnData,
  attestationObject: bounded.webauthnData,
  transports: z.array(authenticatorTransport),
});

export const authenticatorParamsV2 = req({
  authenticatorName: bounded.name,
  challenge: bounded.challenge,
  attestation,
});

export const oidcClaims = req({ iss: bounded.url, sub: bounded.name, aud: bounded.url });

export const oauthProviderParamsV2 = req({
  providerName: bounded.name,
  oidcToken: bounded.token.optional(),
  oidcClaims: oidcClaims.optional(),
});

export const clientSignature = req({
  publicKey: bounded.publicKey,
  scheme: clientSignatureScheme,
  message: bounded.message,
  signature: bounded.signature,
});

/** The credentials every new user may be created with (`v1UserParamsV4` / `v1RootUserParamsV5`). */
const newUserFields = {
  userName: bounded.name,
  userEmail: bounded.email.optional(),
  userPhoneNumber: bounded.phoneNumber.optional(),
  apiKeys: z.array(apiKeyParamsV2),
  authenticators: z.array(authenticatorParamsV2),
  oauthProviders: z.array(oauthProviderParamsV2),
};
export const userParamsV4 = req({ ...newUserFields, userTags: z.array(bounded.id) });
export const rootUserParamsV5 = req(newUserFields);

/** `v1CreatePolicyIntentV3`, also the element of `create_policies`. */
export const policyParams = req({
  policyName: bounded.name,
  effect,
  condition: bounded.policyExpression.optional(),
  consensus: bounded.policyExpression.optional(),
  notes: bounded.notes,
  time: bounded.policyTime.optional(),
});

export const tvcOperatorParams = req({ name: bounded.name, publicKey: bounded.publicKey });
export const tvcOperatorSetParams = req({
  name: bounded.name,
  newOperators: z.array(tvcOperatorParams).optional(),
  existingOperatorIds: z.array(bounded.id).optional(),
  threshold: int64,
});

export const sparkOperatorRecipient = req({ operatorId: bounded.id, encryptionPublicKey: bounded.publicKey });
export const sparkLightningReceivePackage = req({
  threshold: int64,
  operatorRecipients: z.array(sparkOperatorRecipient),
});

// ─── resources as the service answers them (loose) ────────────────────────────────────────────

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

// ─── errors (docs/service.md#errors) ──────────────────────────────────────────────────────────

export const TURNKEY_ERROR_DETAIL_TYPE = 'type.googleapis.com/errors.v1.TurnkeyErrorDetail';

/** `protobufAny`: a typed detail message with arbitrary extra fields. */
export const protobufAny = res({ '@type': z.string().optional() });

/** The detail carrying Turnkey's stable `turnkeyErrorCode`, on which clients should branch. */
export const turnkeyErrorDetail = res({
  '@type': z.literal(TURNKEY_ERROR_DETAIL_TYPE),
  turnkeyErrorCode: z.string(),
});
export type TurnkeyErrorDetail = z.infer<typeof turnkeyErrorDetail>;

/** The `turnkeyErrorCode` of the TurnkeyErrorDetail among an error's details, if one is there. */
export function turnkeyErrorCodeOf(details: readonly Record<string, unknown>[] | undefined): string | undefined {
  const parsed = turnkeyErrorDetail.safeParse(details?.find((entry) => entry['@type'] === TURNKEY_ERROR_DETAIL_TYPE));
  return parsed.success ? parsed.data.turnkeyErrorCode : undefined;
}

/** `rpcStatus` as it appears inside a FAILED activity: every member optional. */
export const rpcStatus = res({
  code: int32.optional(),
  message: z.string().optional(),
  details: z.array(protobufAny).optional(),
});

/** The body of every non-2xx answer: `rpcStatus` with all members present (what the SDKs read). */
export const errorBodySchema = res({
  code: int32,
  message: z.string(),
  details: z.array(protobufAny),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
