/**
 * A user's login credentials besides API keys: passkey authenticators and OAuth (OIDC) providers
 * (docs/service.md#users-credentials-and-tags). The `check*` / `add*` steps are shared with the activities that create
 * users (create_users, create_sub_organization, and signup_v2 through it).
 */
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { authenticatorView, oauthProviderView } from '../activities/views';
import type { OidcVerifier } from '../auth/oidc';
import type { Credential } from '../auth/credentials';
import { parseWebAuthnRegistration, type ParsedRegistration, type WebAuthnRegistration } from '../auth/webauthn-attestation';
import type { Repositories } from '../store';
import { requireUser, type Owner } from './identity/common';
import { RECOVER_USER_CREDENTIAL_TYPE } from './sessions';

/** Per-user limits (docs/service.md#limits). */
export const MAX_AUTHENTICATORS_PER_USER = 10;
export const MAX_OAUTH_PROVIDERS_PER_USER = 10;

export interface NewOauthProvider {
  providerName: string;
  oidcToken?: string | undefined;
  oidcClaims?: { iss: string; sub: string; aud: string } | undefined;
}

/** A registration checked against the request and the organization, ready to store. */
export interface PlannedAuthenticator {
  name: string;
  registration: ParsedRegistration;
}

type NewAuthenticator = WebAuthnRegistration & { authenticatorName: string };

/**
 * Parses and checks passkey registrations for one user without writing: attestation, the per-user limit, and
 * credential ids unique in the request and in the organization (`organizationId` undefined: one the same
 * activity is about to create; `userId` undefined: a user it is about to create).
 */
export function checkAuthenticators(
  store: Repositories,
  organizationId: string | undefined,
  userId: string | undefined,
  registrations: readonly NewAuthenticator[],
  fieldPrefix: string,
): PlannedAuthenticator[] {
  const held = userId === undefined ? 0 : store.authenticators.listByUser(userId).length;
  if (held + registrations.length > MAX_AUTHENTICATORS_PER_USER) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `user has exceeded maximum authenticators: a user holds at most ${MAX_AUTHENTICATORS_PER_USER} (has ${held}, adding ${registrations.length})`,
      { limit: MAX_AUTHENTICATORS_PER_USER },
    );
  }
  const planned = registrations.map((registration, index) => ({
    name: registration.authenticatorName,
    registration: parseWebAuthnRegistration(registration, { fieldPrefix: `${fieldPrefix}[${index}].` }),
  }));
  planned.forEach(({ registration }, index) => {
    const field = `${fieldPrefix}[${index}].attestation.credentialId`;
    if (planned.findIndex((other) => other.registration.credentialId === registration.credentialId) !== index) {
      throw new QkError('ALREADY_EXISTS', `${field}: credential ${registration.credentialId} appears twice in this request`, {
        credentialId: registration.credentialId,
      });
    }
    const holder =
      organizationId === undefined
        ? undefined
        : store.authenticators.findByCredentialId(registration.credentialId).find((existing) => existing.organizationId === organizationId);
    if (holder !== undefined) {
      throw new QkError(
        'ALREADY_EXISTS',
        `${field}: credential ${registration.credentialId} is already authenticator ${holder.id} in organization ${organizationId}`,
        {
          credentialId: registration.credentialId,
          authenticatorId: holder.id,
        },
      );
    }
  });
  return planned;
}

/** Stores checked registrations as authenticators of `owner.userId`; returns the new ids in request order. */
export function addAuthenticators(owner: Owner, planned: readonly PlannedAuthenticator[]): string[] {
  return planned.map(({ name, registration }) => {
    const id = owner.newId();
    owner.store.authenticators.insert({
      id,
      organizationId: owner.organizationId,
      userId: owner.userId,
      name,
      credentialId: registration.credentialId,
      publicKey: registration.publicKey,
      aaguid: registration.aaguid,
      attestationType: registration.attestationType,
      transports: registration.transports,
      signCount: registration.signCount,
      now: owner.now,
    });
    return id;
  });
}

/**
 * Checks what can be checked of new OAuth providers before their tokens are verified: exactly one of oidcToken and
 * oidcClaims, non-empty claims, and room under the per-user limit.
 */
export function checkOauthProviders(
  store: Repositories,
  userId: string | undefined,
  providers: readonly NewOauthProvider[],
  fieldPrefix: string,
): void {
  const held = userId === undefined ? 0 : store.oauthProviders.listByUser(userId).length;
  if (held + providers.length > MAX_OAUTH_PROVIDERS_PER_USER) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `user has exceeded maximum OAuth providers: a user holds at most ${MAX_OAUTH_PROVIDERS_PER_USER} (has ${held}, adding ${providers.length})`,
      { limit: MAX_OAUTH_PROVIDERS_PER_USER },
    );
  }
  providers.forEach((provider, index) => {
    const field = `${fieldPrefix}[${index}]`;
    if ((provider.oidcToken === undefined) === (provider.oidcClaims === undefined)) {
      throw new QkError('REQUEST_INVALID', `${field}: give exactly one of oidcToken and oidcClaims`, {
        issues: [{ path: field, message: 'exactly one of oidcToken, oidcClaims' }],
      });
    }
    for (const [name, value] of Object.entries(provider.oidcClaims ?? {})) {
      if (value.trim() === '') {
        throw new QkError('REQUEST_INVALID', `${field}.oidcClaims.${name} must not be empty`, {
          issues: [{ path: `${field}.oidcClaims.${name}`, message: 'must not be empty' }],
        });
      }
    }
  });
}

/** The (issuer, audience, subject) of a checked provider: from its verified OIDC token, or its claims as given. */
async function providerIdentity(verifier: OidcVerifier, provider: NewOauthProvider) {
  if (provider.oidcClaims !== undefined) {
    const { iss, aud, sub } = provider.oidcClaims;
    return { issuer: iss, audience: aud, subject: sub };
  }
  const token = await verifier.verify(provider.oidcToken!);
  return { issuer: token.iss, audience: token.aud, subject: token.sub };
}

/**
 * Verifies and stores providers checked with checkOauthProviders for `owner.userId`; a (issuer, audience, subject)
 * already in the organization is refused. Returns the new ids in request order.
 */
export async function addOauthProviders(
  owner: Owner,
  verifier: OidcVerifier,
  providers: readonly NewOauthProvider[],
  fieldPrefix: string,
): Promise<string[]> {
  const { store, organizationId, userId } = owner;
  const ids: string[] = [];
  for (const [index, provider] of providers.entries()) {
    const identity = await providerIdentity(verifier, provider);
    const existing = store.oauthProviders.find(organizationId, identity);
    if (existing !== undefined) {
      throw new QkError(
        'OAUTH_PROVIDER_ALREADY_EXISTS',
        `${fieldPrefix}[${index}]: an OAuth provider for issuer ${identity.issuer}, audience ${identity.audience}, subject ${identity.subject} already exists in organization ${organizationId} (${existing.id})`,
        { providerId: existing.id },
      );
    }
    const id = owner.newId();
    store.oauthProviders.insert({ id, organizationId, userId, name: provider.providerName, ...identity, now: owner.now });
    ids.push(id);
  }
  return ids;
}

/** Checks that every id names a distinct record of the user, before anything is deleted. */
function requireOwned<T extends { userId: string }>(
  ids: readonly string[],
  lookup: (id: string) => T | undefined,
  userId: string,
  what: string,
): void {
  if (ids.length === 0) throw new QkError('REQUEST_INVALID', `${what} ids: give at least one`);
  if (new Set(ids).size !== ids.length) throw new QkError('REQUEST_INVALID', `${what} ids: an id appears twice`);
  for (const id of ids) {
    if (lookup(id)?.userId !== userId) throw new QkError('NOT_FOUND', `no ${what} ${id} belongs to user ${userId}`, { id, userId });
  }
}

function checkNewAuthenticators(store: Repositories, organizationId: string, params: { userId: string; authenticators: NewAuthenticator[] }) {
  requireUser(store, organizationId, params.userId);
  return checkAuthenticators(store, organizationId, params.userId, params.authenticators, 'parameters.authenticators');
}

function checkNewOauthProviders(store: Repositories, organizationId: string, params: { userId: string; oauthProviders: NewOauthProvider[] }): void {
  requireUser(store, organizationId, params.userId);
  checkOauthProviders(store, params.userId, params.oauthProviders, 'parameters.oauthProviders');
}

const RECOVER_USER = 'ACTIVITY_TYPE_RECOVER_USER';

/** A recovery key (init_user_email_recovery) serves only to register a new authenticator for its own user. */
function checkCredentialPurpose(credential: Credential, activityType: string, params: Record<string, unknown>): void {
  if (credential.type !== RECOVER_USER_CREDENTIAL_TYPE) return;
  if (activityType !== RECOVER_USER) {
    throw new QkError('REQUEST_NOT_AUTHORIZED', `request not authorized: a recovery credential may only submit ${RECOVER_USER}, not ${activityType}`);
  }
  if (params.userId !== credential.userId) {
    throw new QkError(
      'REQUEST_NOT_AUTHORIZED',
      `request not authorized: this recovery credential recovers user ${credential.userId}, not ${String(params.userId)}`,
    );
  }
}

export function credentialsFamily(options: { oidc: OidcVerifier }): Family {
  return {
    hooks: { checkCredential: checkCredentialPurpose },
    queries: {
      get_authenticators(ctx, request) {
        requireUser(ctx.store, ctx.organizationId, request.userId);
        return { authenticators: ctx.store.authenticators.listByUser(request.userId).map(authenticatorView) };
      },
      get_authenticator(ctx, request) {
        const authenticator = ctx.store.authenticators.get(ctx.organizationId, request.authenticatorId);
        if (authenticator === undefined) {
          throw new QkError('NOT_FOUND', `webauthn authenticator not found in organization: ${request.authenticatorId}`, {
            authenticatorId: request.authenticatorId,
          });
        }
        return { authenticator: authenticatorView(authenticator) };
      },
      get_oauth_providers(ctx, request) {
        if (request.userId !== undefined) requireUser(ctx.store, ctx.organizationId, request.userId);
        const providers =
          request.userId === undefined
            ? ctx.store.oauthProviders.listByOrganization(ctx.organizationId)
            : ctx.store.oauthProviders.listByUser(request.userId);
        return { oauthProviders: providers.map(oauthProviderView) };
      },
    },
    activities: {
      create_authenticators: {
        validate: checkNewAuthenticators,
        execute(ctx, params) {
          const planned = checkNewAuthenticators(ctx.store, ctx.organizationId, params);
          return { authenticatorIds: addAuthenticators({ ...ctx, userId: params.userId }, planned) };
        },
      },
      recover_user: {
        validate: (store, organizationId, params) =>
          void checkNewAuthenticators(store, organizationId, { userId: params.userId, authenticators: [params.authenticator] }),
        execute(ctx, params) {
          const planned = checkNewAuthenticators(ctx.store, ctx.organizationId, { userId: params.userId, authenticators: [params.authenticator] });
          const authenticatorId = addAuthenticators({ ...ctx, userId: params.userId }, planned);
          // A recovery key is spent once it has registered the new authenticator.
          if (ctx.actor.credential.type === RECOVER_USER_CREDENTIAL_TYPE) ctx.store.apiKeys.delete(ctx.actor.credential.id);
          return { authenticatorId };
        },
      },
      delete_authenticators: {
        validate(store, organizationId, params) {
          requireUser(store, organizationId, params.userId);
          requireOwned(params.authenticatorIds, (id) => store.authenticators.get(organizationId, id), params.userId, 'authenticator');
        },
        execute(ctx, params) {
          requireOwned(params.authenticatorIds, (id) => ctx.store.authenticators.get(ctx.organizationId, id), params.userId, 'authenticator');
          params.authenticatorIds.forEach((id) => ctx.store.authenticators.delete(id));
          return { authenticatorIds: params.authenticatorIds };
        },
      },
      create_oauth_providers: {
        validate: checkNewOauthProviders,
        async execute(ctx, params) {
          checkNewOauthProviders(ctx.store, ctx.organizationId, params);
          return {
            providerIds: await addOauthProviders({ ...ctx, userId: params.userId }, options.oidc, params.oauthProviders, 'parameters.oauthProviders'),
          };
        },
      },
      delete_oauth_providers: {
        validate(store, organizationId, params) {
          requireUser(store, organizationId, params.userId);
          requireOwned(params.providerIds, (id) => store.oauthProviders.get(organizationId, id), params.userId, 'OAuth provider');
        },
        execute(ctx, params) {
          requireOwned(params.providerIds, (id) => ctx.store.oauthProviders.get(ctx.organizationId, id), params.userId, 'OAuth provider');
          params.providerIds.forEach((id) => ctx.store.oauthProviders.delete(id));
          return { providerIds: params.providerIds };
        },
      },
    },
  };
}
