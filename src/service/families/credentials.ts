/**
 * A user's login credentials besides API keys: passkey authenticators and OAuth (OIDC) providers
 * (api-notes §5.5). The `add*` helpers are shared with the flows that create users (signup_v2, sub-organizations).
 */
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { toTimestamp } from '../activities/timestamps';
import type { OidcVerifier } from '../auth/oidc';
import { parseWebAuthnRegistration, type WebAuthnRegistration } from '../auth/webauthn-attestation';
import type { Repositories } from '../store';
import type { AuthenticatorRecord, OauthProviderRecord } from '../store/auth-records';
import type { UserRecord } from '../store/users';

/** Per-user limits (api-notes §10). */
export const MAX_AUTHENTICATORS_PER_USER = 10;
export const MAX_OAUTH_PROVIDERS_PER_USER = 10;
export const WEBAUTHN_CREDENTIAL_TYPE = 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' as const;

export interface NewOauthProvider {
  providerName: string;
  oidcToken?: string;
  oidcClaims?: { iss: string; sub: string; aud: string };
}

export function authenticatorView(authenticator: AuthenticatorRecord) {
  return {
    transports: authenticator.transports,
    attestationType: authenticator.attestationType,
    aaguid: authenticator.aaguid,
    credentialId: authenticator.credentialId,
    model: '',
    credential: { publicKey: authenticator.publicKey, type: WEBAUTHN_CREDENTIAL_TYPE },
    authenticatorId: authenticator.id,
    authenticatorName: authenticator.name,
    createdAt: toTimestamp(authenticator.createdAt),
    updatedAt: toTimestamp(authenticator.updatedAt),
  };
}

export function oauthProviderView(provider: OauthProviderRecord) {
  return {
    providerId: provider.id,
    providerName: provider.name,
    issuer: provider.issuer,
    audience: provider.audience,
    subject: provider.subject,
    createdAt: toTimestamp(provider.createdAt),
    updatedAt: toTimestamp(provider.updatedAt),
  };
}

interface Owner {
  store: Repositories;
  organizationId: string;
  userId: string;
  now: number;
  newId(): string;
}

/** Verifies each registration and stores it as an authenticator of the user; returns the new ids. */
export function addAuthenticators(owner: Owner, registrations: readonly (WebAuthnRegistration & { authenticatorName: string })[], fieldPrefix: string): string[] {
  const { store, organizationId, userId } = owner;
  if (store.authenticators.listByUser(userId).length + registrations.length > MAX_AUTHENTICATORS_PER_USER) {
    throw new QkError('LIMIT_EXCEEDED', `user has exceeded maximum authenticators: a user holds at most ${MAX_AUTHENTICATORS_PER_USER}`, { userId });
  }
  return registrations.map((registration, index) => {
    const prefix = `${fieldPrefix}[${index}].`;
    const parsed = parseWebAuthnRegistration(registration, { fieldPrefix: prefix });
    if (store.authenticators.findByCredentialId(parsed.credentialId).some((existing) => existing.organizationId === organizationId)) {
      throw new QkError('ALREADY_EXISTS', `${prefix}attestation.credentialId ${parsed.credentialId} is already registered in organization ${organizationId}`, {
        credentialId: parsed.credentialId,
      });
    }
    const id = owner.newId();
    store.authenticators.insert({
      id,
      organizationId,
      userId,
      name: registration.authenticatorName,
      credentialId: parsed.credentialId,
      publicKey: parsed.publicKey,
      aaguid: parsed.aaguid,
      attestationType: parsed.attestationType,
      transports: parsed.transports,
      signCount: parsed.signCount,
      now: owner.now,
    });
    return id;
  });
}

/** The (issuer, audience, subject) of a new provider: from a verified OIDC token, or the claims as given. */
async function providerIdentity(verifier: OidcVerifier, provider: NewOauthProvider, field: string) {
  if ((provider.oidcToken === undefined) === (provider.oidcClaims === undefined)) {
    throw new QkError('REQUEST_INVALID', `${field}: give exactly one of oidcToken and oidcClaims`, {
      issues: [{ path: field, message: 'exactly one of oidcToken, oidcClaims' }],
    });
  }
  if (provider.oidcClaims !== undefined) {
    const { iss, aud, sub } = provider.oidcClaims;
    for (const [name, value] of Object.entries({ iss, aud, sub })) {
      if (value.trim() === '') throw new QkError('REQUEST_INVALID', `${field}.oidcClaims.${name} must not be empty`);
    }
    return { issuer: iss, audience: aud, subject: sub };
  }
  const token = await verifier.verify(provider.oidcToken!);
  return { issuer: token.iss, audience: token.aud, subject: token.sub };
}

/** Stores each provider for the user; a (issuer, audience, subject) already in the organization is refused. */
export async function addOauthProviders(owner: Owner, verifier: OidcVerifier, providers: readonly NewOauthProvider[], fieldPrefix: string): Promise<string[]> {
  const { store, organizationId, userId } = owner;
  if (store.oauthProviders.listByUser(userId).length + providers.length > MAX_OAUTH_PROVIDERS_PER_USER) {
    throw new QkError('LIMIT_EXCEEDED', `user has exceeded maximum OAuth providers: a user holds at most ${MAX_OAUTH_PROVIDERS_PER_USER}`, { userId });
  }
  const ids: string[] = [];
  for (const [index, provider] of providers.entries()) {
    const identity = await providerIdentity(verifier, provider, `${fieldPrefix}[${index}]`);
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

function requireUser(store: Repositories, organizationId: string, userId: string): UserRecord {
  const user = store.users.get(userId);
  if (user === undefined || user.organizationId !== organizationId) {
    throw new QkError('NOT_FOUND', `no user ${userId} in organization ${organizationId}`, { userId });
  }
  return user;
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

export function credentialsFamily(options: { oidc: OidcVerifier }): Family {
  return {
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
        validate: (store, organizationId, params) => void requireUser(store, organizationId, params.userId),
        execute(ctx, params) {
          requireUser(ctx.store, ctx.organizationId, params.userId);
          const owner = { store: ctx.store, organizationId: ctx.organizationId, userId: params.userId, now: ctx.now, newId: ctx.newId };
          return { authenticatorIds: addAuthenticators(owner, params.authenticators, 'parameters.authenticators') };
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
        validate: (store, organizationId, params) => void requireUser(store, organizationId, params.userId),
        async execute(ctx, params) {
          requireUser(ctx.store, ctx.organizationId, params.userId);
          const owner = { store: ctx.store, organizationId: ctx.organizationId, userId: params.userId, now: ctx.now, newId: ctx.newId };
          return { providerIds: await addOauthProviders(owner, options.oidc, params.oauthProviders, 'parameters.oauthProviders') };
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
