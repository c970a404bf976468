/**
 * Request parameter objects shared by several operations, named after the swagger definitions they mirror
 * (`v1WalletAccountParams` → `walletAccountParams`). Requests are strict: an unknown field is refused.
 */
import { z } from 'zod';
import { bounded, boundedString, decimalString, int32, int64, MAX_LENGTH, req } from './primitives';
import { addressFormat, apiKeyCurve, authenticationType, authenticatorTransport, clientSignatureScheme, curve, effect, pathFormat } from './enums';

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

/** `apiApiKeyParams`: API keys before they named their curve; every such key is a P-256 key. */
export const apiKeyParamsV1 = req({
  apiKeyName: bounded.name,
  publicKey: bounded.publicKey,
  expirationSeconds: boundedString(MAX_LENGTH.decimal).optional(),
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

/** `v1RequiredAuthenticationMethodParams`: one MFA step, met by any one of its methods (an `id` names one credential). */
export const requiredAuthenticationMethodParams = req({
  any: z.array(req({ type: authenticationType, id: bounded.id.optional() })),
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
