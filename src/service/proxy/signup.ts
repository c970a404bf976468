/**
 * signup_v2 (docs/service.md#auth-proxy, docs/service.md#otp-flow): what Turnkey's proxy does by submitting
 * create_sub_organization for the auth proxy configuration's organization — a new sub-organization whose single root
 * user holds the given API keys, passkeys and OAuth providers, optionally with a wallet. With a verification token the
 * root user's contact is verified; the token's key must then sign the signup parameters (clientSignature).
 */
import type { z } from 'zod';
import type { proxyOperations } from '../../shared/api';
import { QkError } from '../../shared/errors';
import type { OidcVerifier } from '../auth/oidc';
import type { Enclave } from '../enclave';
import { checkSubOrganization, createSubOrganization, type SubOrganizationParams } from '../families/identity/organizations';
import type { Store } from '../store';
import { normalizeContact } from './otp';

export type SignupRequest = z.output<(typeof proxyOperations)['signup_v2']['request']>;
export type SignupResponse = z.input<(typeof proxyOperations)['signup_v2']['response']>;

export interface SignupDeps {
  store: Store;
  oidc: OidcVerifier;
  enclave: Enclave;
  now: () => number;
  newId: () => string;
}

/** The create_sub_organization parameters a signup stands for: one root user, threshold 1. */
function subOrganizationOf(request: SignupRequest): SubOrganizationParams {
  // Contacts are stored as verification tokens carry them: emails lower-cased.
  const email = request.userEmail === undefined ? undefined : normalizeContact('OTP_TYPE_EMAIL', request.userEmail);
  const phoneNumber = request.userPhoneNumber === undefined ? undefined : normalizeContact('OTP_TYPE_SMS', request.userPhoneNumber);
  const userName = request.userName ?? email ?? phoneNumber ?? 'Root user';
  return {
    subOrganizationName: request.organizationName ?? `${userName}'s organization`,
    rootUsers: [
      {
        userName,
        ...(email === undefined ? {} : { userEmail: email }),
        ...(phoneNumber === undefined ? {} : { userPhoneNumber: phoneNumber }),
        apiKeys: request.apiKeys,
        authenticators: request.authenticators,
        oauthProviders: request.oauthProviders,
      },
    ],
    rootQuorumThreshold: 1,
    wallet: request.wallet,
    verificationToken: request.verificationToken,
    clientSignature: request.clientSignature,
  };
}

export async function signup(deps: SignupDeps, parentId: string, request: SignupRequest): Promise<SignupResponse> {
  if (request.apiKeys.length + request.authenticators.length + request.oauthProviders.length === 0 && request.verificationToken === undefined) {
    throw new QkError(
      'REQUEST_INVALID',
      'apiKeys: the root user needs a credential: give an API key, an authenticator, an OAuth provider or a verification token',
      {
        issues: [{ path: 'apiKeys', message: 'no credential' }],
      },
    );
  }
  const params = subOrganizationOf(request);
  const now = deps.now();
  return deps.store.transaction(async (tx) => {
    const target = { store: tx, organizationId: parentId, now, newId: deps.newId, enclave: deps.enclave };
    const created = await createSubOrganization(target, deps.oidc, checkSubOrganization(tx, parentId, params, now, ''));
    const userId = created.rootUserIds[0]!;
    if (request.userTag !== undefined) {
      const tagId = deps.newId();
      tx.userTags.insert({ id: tagId, organizationId: created.subOrganizationId, name: request.userTag, now });
      tx.userTags.addMember(tagId, userId);
    }
    return { organizationId: created.subOrganizationId, userId, ...(created.wallet === undefined ? {} : { wallet: created.wallet }) };
  });
}
