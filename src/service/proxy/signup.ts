/**
 * signup_v2 (spec §4.1, api-notes §6.2–6.3): a new sub-organization of the auth proxy configuration's organization
 * whose single root user holds the given API keys, passkeys and OAuth providers. With a verification token the
 * root user's contact is verified; the token's key must then sign the signup parameters (clientSignature).
 */
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import type { proxyOperations } from '../../shared/api';
import { QkError } from '../../shared/errors';
import type { VerificationTokenClaims } from '../../shared/crypto/tokens';
import { apiKeyCredentialTypeByCurve } from '../auth/credentials';
import type { OidcVerifier } from '../auth/oidc';
import { stampPublicKeyOf } from '../bootstrap';
import { addAuthenticators, addOauthProviders } from '../families/credentials';
import { parseSeconds } from '../families/sessions';
import type { Repositories, Store } from '../store';
import { verifyClientSignature } from './client-signature';
import { checkVerificationToken, normalizeContact } from './otp';

export type SignupRequest = z.output<(typeof proxyOperations)['signup_v2']['request']>;

/** Longest API key lifetime accepted at signup (ten years). */
const MAX_API_KEY_SECONDS = 10 * 365 * 24 * 60 * 60;
const curveByApiKeyCurve = { API_KEY_CURVE_P256: 'p256', API_KEY_CURVE_SECP256K1: 'secp256k1', API_KEY_CURVE_ED25519: 'ed25519' } as const;

export interface SignupDeps {
  store: Store;
  oidc: OidcVerifier;
  now: () => number;
  newId: () => string;
}

function invalid(field: string, problem: string): QkError {
  return new QkError('REQUEST_INVALID', `${field} ${problem}`, { issues: [{ path: field, message: problem }] });
}

/** A `signupV2` usage member must restate each request member it names (empty arrays count as absent). */
function checkSignupUsage(usage: Record<string, unknown>, request: SignupRequest): void {
  const signed = (usage.signupV2 ?? {}) as Record<string, unknown>;
  const expected: Record<string, unknown> = {
    email: request.userEmail,
    phoneNumber: request.userPhoneNumber,
    apiKeys: request.apiKeys.length === 0 ? undefined : request.apiKeys,
    authenticators: request.authenticators.length === 0 ? undefined : request.authenticators,
    oauthProviders: request.oauthProviders.length === 0 ? undefined : request.oauthProviders,
  };
  for (const [member, value] of Object.entries(expected)) {
    const given = Array.isArray(signed[member]) && (signed[member] as unknown[]).length === 0 ? undefined : signed[member];
    if (!isDeepStrictEqual(given, value)) {
      throw new QkError('SIGNATURE_INVALID', `clientSignature.message signupV2.${member} does not match the request's ${member}; sign the parameters you send`);
    }
  }
}

/** The contact the token verified must be the root user's email or phone number. */
function checkTokenContact(token: VerificationTokenClaims, request: SignupRequest): void {
  const field = token.verification_type === 'OTP_TYPE_EMAIL' ? 'userEmail' : 'userPhoneNumber';
  const given = request[field];
  if (given === undefined || normalizeContact(token.verification_type, given) !== token.contact) {
    throw invalid(field, `must be the contact the verification token verified (${token.contact})`);
  }
}

function addApiKeys(tx: Repositories, request: SignupRequest, organizationId: string, userId: string, now: number, newId: () => string): void {
  const seen = new Set<string>();
  request.apiKeys.forEach((apiKey, index) => {
    const field = `apiKeys[${index}]`;
    const curve = curveByApiKeyCurve[apiKey.curveType];
    const publicKey = stampPublicKeyOf({ publicKey: apiKey.publicKey, curve });
    if (seen.has(publicKey)) throw invalid(`${field}.publicKey`, 'appears twice');
    seen.add(publicKey);
    tx.apiKeys.insert({
      id: newId(),
      organizationId,
      userId,
      name: apiKey.apiKeyName,
      publicKey,
      credentialType: apiKeyCredentialTypeByCurve[curve],
      expirationSeconds: parseSeconds(apiKey.expirationSeconds, `${field}.expirationSeconds`, MAX_API_KEY_SECONDS),
      sessionProfileId: undefined,
      now,
    });
  });
}

export async function signup(deps: SignupDeps, parentId: string, request: SignupRequest): Promise<{ organizationId: string; userId: string }> {
  const now = deps.now();
  if (request.wallet !== undefined) {
    throw invalid('wallet', 'is not supported by this service yet (no wallet family); sign up without it and create the wallet with create_wallet');
  }
  if (request.apiKeys.length + request.authenticators.length + request.oauthProviders.length === 0 && request.verificationToken === undefined) {
    throw invalid('apiKeys', 'the root user needs a credential: give an API key, an authenticator, an OAuth provider or a verification token');
  }
  const email = request.userEmail === undefined ? undefined : normalizeContact('OTP_TYPE_EMAIL', request.userEmail);
  const phoneNumber = request.userPhoneNumber === undefined ? undefined : normalizeContact('OTP_TYPE_SMS', request.userPhoneNumber);

  let token: VerificationTokenClaims | undefined;
  if (request.verificationToken !== undefined) {
    token = checkVerificationToken(deps.store.read, request.verificationToken, parentId, now);
    checkTokenContact(token, request);
    if (request.clientSignature === undefined) {
      throw invalid('clientSignature', 'is required with a verification token: sign the signup parameters with the key bound in the token');
    }
    checkSignupUsage(verifyClientSignature(request.clientSignature, token, 'USAGE_TYPE_SIGNUP'), request);
  }

  return deps.store.transaction(async (tx) => {
    if (token !== undefined && !tx.verifications.consumeToken(token.id, 'USAGE_TYPE_SIGNUP', now)) {
      throw new QkError('TOKEN_INVALID', `verification token ${token.id} was already used; verify the contact again`);
    }
    const organizationId = deps.newId();
    const userId = deps.newId();
    const userName = request.userName ?? email ?? phoneNumber ?? 'Root user';
    tx.organizations.insert({ id: organizationId, parentId, name: request.organizationName ?? `${userName}'s organization`, rootQuorumThreshold: 1, now });
    tx.users.insert({ id: userId, organizationId, name: userName, ...(email === undefined ? {} : { email }), ...(phoneNumber === undefined ? {} : { phoneNumber }), now });
    tx.organizations.setRootQuorum(organizationId, { threshold: 1, userIds: [userId] }, now);
    if (request.userTag !== undefined) {
      const tagId = deps.newId();
      tx.userTags.insert({ id: tagId, organizationId, name: request.userTag, now });
      tx.userTags.addMember(tagId, userId);
    }
    addApiKeys(tx, request, organizationId, userId, now, deps.newId);
    const owner = { store: tx, organizationId, userId, now, newId: deps.newId };
    addAuthenticators(owner, request.authenticators, 'authenticators');
    await addOauthProviders(owner, deps.oidc, request.oauthProviders, 'oauthProviders');
    if (token !== undefined) {
      tx.verifications.markContactVerified({ userId, organizationId, otpType: token.verification_type, contact: token.contact, now });
    }
    return { organizationId, userId };
  });
}
