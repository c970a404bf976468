/**
 * Sessions (docs/service.md#sessions-and-otp, docs/formats.md#session-tokens): a login stores the client's P-256 key as
 * a CREDENTIAL_TYPE_LOGIN credential with an expiry (and the session profile it was issued under) and answers a
 * session JWT signed by the service's session key. Requests stamped with that key are ordinary X-Stamp requests;
 * a profile's `scope` limits what they may do (see `checkSessionScope`).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { QkError } from '../../shared/errors';
import { bytesToHex, utf8Encode } from '../../shared/crypto/encoding';
import { compressP256, generateEncryptionKeyPair, uncompressP256 } from '../../shared/crypto/keys';
import { digestSignerFromPrivateKey, encodeSessionJwt, type DigestSigner } from '../../shared/crypto/tokens';
import { checkPolicyExpression, evaluate } from '../../shared/policy';
import type { ActivityContext, Family, QueryScopeRequest, ReadScope } from '../activities/context';
import { toTimestamp } from '../../shared/api/timestamps';
import type { Credential } from '../auth/credentials';
import { conditionContext, type ConditionRequest } from '../authorize';
import type { OidcVerifier } from '../auth/oidc';
import type { Repositories, Store } from '../store';
import type { SessionProfileRecord } from '../store/sessions';
import type { UserRecord } from '../store/users';
import { appendOutboxMessage } from '../proxy/outbox';
import { addApiKeys } from './identity/api-keys';
import { requireUser } from './identity/common';

export const LOGIN_CREDENTIAL_TYPE = 'CREDENTIAL_TYPE_LOGIN';
export const READ_WRITE_SESSION_CREDENTIAL_TYPE = 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256';
export const DEFAULT_SESSION_SECONDS = 900;
/** Longest session the service issues (Turnkey's dashboard caps sessions at one year). */
export const MAX_SESSION_SECONDS = 365 * 24 * 60 * 60;
export const READ_WRITE_SESSION = 'SESSION_TYPE_READ_WRITE';
/** How long a read-only session lasts (our choice: one hour). */
export const READ_ONLY_SESSION = 'SESSION_TYPE_READ_ONLY';
export const READ_ONLY_SESSION_SECONDS = 60 * 60;

export const SESSION_SIGNING_KEY = 'session-signing';
export const OTP_TOKEN_SIGNING_KEY = 'otp-token-signing';

/** The service's own P-256 keys for session JWTs and OTP verification tokens (uncompressed public, 130 hex). */
export interface LoginSigningKeys {
  sessionSignerPublicKey: string;
  otpTokenSignerPublicKey: string;
}

/** Creates the session and OTP-token signing keys on first start; later starts reuse them. */
export async function ensureLoginSigningKeys(store: Store, now: number): Promise<LoginSigningKeys> {
  return store.transaction((tx) => {
    const keyFor = (purpose: string): string => {
      const existing = tx.serviceKeys.get(purpose);
      if (existing !== undefined) return existing.publicKey;
      const pair = generateEncryptionKeyPair();
      tx.serviceKeys.insert({ purpose, curve: 'p256', ...pair, createdAt: now });
      return pair.publicKey;
    };
    return { sessionSignerPublicKey: keyFor(SESSION_SIGNING_KEY), otpTokenSignerPublicKey: keyFor(OTP_TOKEN_SIGNING_KEY) };
  });
}

/** The digest signer of one of the service's keys; INTERNAL when the database lacks it (not started through startService). */
export function serviceSigner(store: Repositories, purpose: string): DigestSigner {
  const key = store.serviceKeys.get(purpose);
  if (key === undefined) throw new QkError('INTERNAL', `the service key "${purpose}" is missing; start the service with startService`);
  return digestSignerFromPrivateKey(key.privateKey);
}

/** Parses a positive whole number of seconds given as a decimal string. */
export function parseSeconds(value: string | undefined, field: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(seconds) || seconds < 1 || seconds > max) {
    throw new QkError('REQUEST_INVALID', `${field} must be a whole number of seconds between 1 and ${max}, got "${value}"`, {
      issues: [{ path: field, message: `1…${max} seconds` }],
    });
  }
  return seconds;
}

/** A session key as sent: compressed or uncompressed P-256 hex; stored compressed, as stamps carry it. */
export function sessionPublicKeyOf(publicKey: string, field: string): string {
  try {
    return compressP256(publicKey);
  } catch (error) {
    throw new QkError(
      'REQUEST_INVALID',
      `${field} must be a P-256 public key in hex (compressed 66 or uncompressed 130): ${(error as QkError).message}`,
      {
        issues: [{ path: field, message: 'not a P-256 public key' }],
      },
    );
  }
}

/** A session profile usable in `organizationId`: its own, or one of its parent's (docs/service.md#sessions-and-otp). */
function sessionProfileFor(store: Repositories, organizationId: string, profileId: string): SessionProfileRecord {
  const profile = store.sessionProfiles.get(profileId);
  const organization = store.organizations.get(organizationId);
  if (profile === undefined || (profile.organizationId !== organizationId && profile.organizationId !== organization?.parentId)) {
    throw new QkError('NOT_FOUND', `no session profile ${profileId} in organization ${organizationId} or its parent`, {
      sessionProfileId: profileId,
    });
  }
  return profile;
}

export interface SessionRequest {
  organizationId: string;
  userId: string;
  /** P-256 hex as the client sent it. */
  publicKey: string;
  // Optional settings as a login request parses them: absent and undefined alike mean the default.
  expirationSeconds?: string | undefined;
  invalidateExisting?: boolean | undefined;
  sessionProfileId?: string | undefined;
  now: number;
  newId(): string;
}

/**
 * Stores the session key as a login credential of the user and returns the signed session JWT. The lifetime is the
 * requested one (default 15 minutes), capped by the profile's.
 */
export async function issueSession(store: Repositories, request: SessionRequest): Promise<string> {
  const publicKey = sessionPublicKeyOf(request.publicKey, 'publicKey');
  const requested = parseSeconds(request.expirationSeconds, 'expirationSeconds', MAX_SESSION_SECONDS) ?? DEFAULT_SESSION_SECONDS;
  const profile = request.sessionProfileId === undefined ? undefined : sessionProfileFor(store, request.organizationId, request.sessionProfileId);
  const lifetime = Math.min(requested, profile?.expirationSeconds ?? requested);
  if (request.invalidateExisting === true) store.apiKeys.deleteByUserAndType(request.userId, LOGIN_CREDENTIAL_TYPE);
  const holder = store.apiKeys.findByPublicKey(publicKey).find((key) => key.organizationId === request.organizationId);
  if (holder !== undefined) {
    throw new QkError(
      'ALREADY_EXISTS',
      `publicKey ${publicKey} is already credential ${holder.id} of organization ${request.organizationId}; generate a fresh key pair for each session`,
      {
        publicKey,
      },
    );
  }
  store.apiKeys.insert({
    id: request.newId(),
    organizationId: request.organizationId,
    userId: request.userId,
    name: `session ${new Date(request.now).toISOString()}`,
    publicKey,
    credentialType: LOGIN_CREDENTIAL_TYPE,
    expirationSeconds: lifetime,
    sessionProfileId: profile?.id,
    now: request.now,
  });
  return encodeSessionJwt(
    {
      exp: Math.floor(request.now / 1000) + lifetime,
      public_key: publicKey,
      session_type: profile?.name ?? READ_WRITE_SESSION,
      user_id: request.userId,
      organization_id: request.organizationId,
      ...(profile === undefined ? {} : { session_profile_id: profile.id, scope: profile.scope }),
    },
    serviceSigner(store, SESSION_SIGNING_KEY),
  );
}

/** What a login activity's parameters say of the session it asks for. */
export type LoginSessionSettings = Pick<SessionRequest, 'publicKey' | 'expirationSeconds' | 'invalidateExisting' | 'sessionProfileId'>;

/** The result of a login activity (stamp, OAuth or OTP login): a session for `userId` as its parameters ask. */
export async function loginSession(ctx: ActivityContext, userId: string, settings: LoginSessionSettings): Promise<{ session: string }> {
  const session = await issueSession(ctx.store, {
    organizationId: ctx.organizationId,
    userId,
    publicKey: settings.publicKey,
    expirationSeconds: settings.expirationSeconds,
    invalidateExisting: settings.invalidateExisting,
    sessionProfileId: settings.sessionProfileId,
    now: ctx.now,
    newId: ctx.newId,
  });
  return { session };
}

/** A client's HPKE target key: P-256, compressed or uncompressed hex; sealed to in its uncompressed form. */
function targetKeyOf(publicKey: string, field: string): string {
  try {
    return uncompressP256(publicKey);
  } catch (error) {
    throw new QkError('REQUEST_INVALID', `${field} must be a P-256 public key in hex: ${(error as QkError).message}`, {
      issues: [{ path: field, message: 'not a P-256 public key' }],
    });
  }
}

export interface CredentialKeyRequest {
  userId: string;
  targetPublicKey: string;
  credentialType: string;
  name: string;
  expirationSeconds?: string | undefined;
  invalidateExisting?: boolean | undefined;
}

/** What issueCredentialKey checks before the activity is recorded. */
export function checkCredentialKeyRequest(request: Pick<CredentialKeyRequest, 'targetPublicKey' | 'expirationSeconds'>): void {
  targetKeyOf(request.targetPublicKey, 'parameters.targetPublicKey');
  parseSeconds(request.expirationSeconds, 'parameters.expirationSeconds', MAX_SESSION_SECONDS);
}

/**
 * An API key the enclave generates for a user and hands to the client only as a credential bundle sealed to its
 * target key (read-write sessions, email logins). It expires like a session (15 minutes unless asked otherwise);
 * `invalidateExisting` first removes the user's earlier keys of the same credential type.
 */
export async function issueCredentialKey(
  ctx: ActivityContext,
  request: CredentialKeyRequest,
): Promise<{ apiKeyId: string; credentialBundle: string }> {
  const target = targetKeyOf(request.targetPublicKey, 'parameters.targetPublicKey');
  const lifetime = parseSeconds(request.expirationSeconds, 'parameters.expirationSeconds', MAX_SESSION_SECONDS) ?? DEFAULT_SESSION_SECONDS;
  if (request.invalidateExisting === true) ctx.store.apiKeys.deleteByUserAndType(request.userId, request.credentialType);
  const issued = await ctx.enclave.issueApiKeyCredential(target);
  const owner = { store: ctx.store, organizationId: ctx.organizationId, userId: request.userId, now: ctx.now, newId: ctx.newId };
  const [apiKeyId] = addApiKeys(owner, [
    { name: request.name, publicKey: issued.publicKey, credentialType: request.credentialType, expirationSeconds: lifetime },
  ]);
  return { apiKeyId: apiKeyId!, credentialBundle: issued.credentialBundle };
}

/**
 * Refuses an activity outside the scope of the session profile the stamping credential was issued under
 * (docs/service.md#sessions-and-otp: "scope is evaluated on every request made with a session issued under the
 * profile"); a vote is judged as the activity it votes on.
 */
function checkSessionScope(
  credential: Credential,
  /** The activity as policies' conditions see it: scope is a condition over the same keywords (conditionContext). */
  request: ConditionRequest,
): void {
  const profile = sessionProfileOf(credential, request.store);
  if (profile === undefined) return;
  const checked = checkPolicyExpression(profile.scope, 'condition');
  const outcome = checked.ok ? evaluate(checked.ast, conditionContext(request)) : checked;
  if (!outcome.ok || outcome.value !== true) throw outsideScope(profile, request.activityType);
}

/**
 * Refuses a read of a resource (a wallet, a private key) that the session's scope, evaluated over that resource,
 * rules out. A read has no activity: a scope that cannot be evaluated without one (`activity.action == 'SIGN'`) says
 * nothing about reads and does not restrict them; one that is false for the resource does.
 */
function checkSessionQueryScope(credential: Credential, request: QueryScopeRequest): void {
  const profile = sessionProfileOf(credential, request.store);
  if (profile !== undefined && !readScopeOf(profile)(request.resources)) throw outsideScope(profile, request.query);
}

/** What a session may read, for a query that lists resources: only those its scope does not rule out (as above). */
function sessionReadScope(credential: Credential, store: Repositories): ReadScope | undefined {
  const profile = sessionProfileOf(credential, store);
  return profile === undefined ? undefined : readScopeOf(profile);
}

function readScopeOf(profile: SessionProfileRecord): ReadScope {
  const checked = checkPolicyExpression(profile.scope, 'condition');
  return (resources) => {
    const outcome = checked.ok ? evaluate(checked.ast, resources) : checked;
    return !outcome.ok || outcome.value;
  };
}

/** The profile a session credential was issued under; undefined for any other credential or an unscoped session. */
function sessionProfileOf(credential: Credential, store: Repositories): SessionProfileRecord | undefined {
  if (credential.type !== LOGIN_CREDENTIAL_TYPE) return undefined;
  const profileId = store.apiKeys.get(credential.id)?.sessionProfileId;
  if (profileId === undefined) return undefined;
  const profile = store.sessionProfiles.get(profileId);
  if (profile === undefined) {
    throw new QkError('REQUEST_NOT_AUTHORIZED', `request not authorized: the session's profile ${profileId} no longer exists; log in again`);
  }
  return profile;
}

function outsideScope(profile: SessionProfileRecord, what: string): QkError {
  return new QkError(
    'REQUEST_NOT_AUTHORIZED',
    `request not authorized: ${what} is outside the scope "${profile.scope}" of session profile ${profile.name} (${profile.id})`,
    { sessionProfileId: profile.id },
  );
}

function sessionProfileView(profile: SessionProfileRecord) {
  return {
    sessionProfileId: profile.id,
    sessionProfileName: profile.name,
    scope: profile.scope,
    ...(profile.expirationSeconds === undefined ? {} : { expirationSeconds: String(profile.expirationSeconds) }),
    ...(profile.notes === undefined ? {} : { notes: profile.notes }),
    createdAt: toTimestamp(profile.createdAt),
    updatedAt: toTimestamp(profile.updatedAt),
  };
}

function checkScope(scope: string): void {
  const checked = checkPolicyExpression(scope, 'condition');
  if (!checked.ok) {
    throw new QkError('POLICY_PARSE_ERROR', `invalid session profile scope: parameters.scope: ${checked.error.message}`, {
      ...checked.error.details,
      field: 'parameters.scope',
    });
  }
}

function requireUniqueProfileName(store: Repositories, organizationId: string, name: string): void {
  const existing = store.sessionProfiles.findByName(organizationId, name);
  if (existing !== undefined) {
    throw new QkError(
      'ALREADY_EXISTS',
      `a session profile named "${name}" already exists (${existing.id}); profiles are immutable, pick another name`,
      {
        sessionProfileId: existing.id,
      },
    );
  }
}

/**
 * The user of `organizationId` whose OAuth provider matches the verified token's issuer, audience and subject. The
 * token's nonce must commit to the session key (hex SHA-256 of the key's hex text, as Turnkey's SDKs set it), so a
 * token cannot be replayed to open a session for another key.
 */
async function oauthUserOf(
  target: { store: Repositories; organizationId: string },
  verifier: OidcVerifier,
  oidcToken: string,
  publicKey: string,
): Promise<string> {
  const { store, organizationId } = target;
  const token = await verifier.verify(oidcToken, { nonce: bytesToHex(sha256(utf8Encode(publicKey))) });
  const provider = store.oauthProviders.find(organizationId, { issuer: token.iss, audience: token.aud, subject: token.sub });
  if (provider === undefined) {
    throw new QkError(
      'CREDENTIAL_NOT_FOUND',
      `no user of organization ${organizationId} has an OAuth provider for issuer ${token.iss}, audience ${token.aud}, subject ${token.sub}`,
      { issuer: token.iss, audience: token.aud },
    );
  }
  return provider.userId;
}

/** The session members of a login activity, before the login runs. */
function checkLoginRequest(
  store: Repositories,
  organizationId: string,
  params: { publicKey: string; expirationSeconds?: string | undefined; sessionProfileId?: string | undefined },
): void {
  sessionPublicKeyOf(params.publicKey, 'parameters.publicKey');
  parseSeconds(params.expirationSeconds, 'parameters.expirationSeconds', MAX_SESSION_SECONDS);
  if (params.sessionProfileId !== undefined) sessionProfileFor(store, organizationId, params.sessionProfileId);
}

export const EMAIL_AUTH_CREDENTIAL_TYPE = 'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256';

/** The user of the organization with this email address (compared case-insensitively, as contacts are). */
function userWithEmail(store: Repositories, organizationId: string, email: string): UserRecord {
  const wanted = email.toLowerCase();
  const user = store.users.listByOrganization(organizationId).find((candidate) => candidate.email?.toLowerCase() === wanted);
  if (user === undefined) throw new QkError('NOT_FOUND', `no user of organization ${organizationId} has the email address ${email}`, { email });
  return user;
}

/** A sub-organization created with `disableEmailAuth` / `disableEmailRecovery` lacks the feature and refuses the flow. */
export function requireSubOrganizationFeature(store: Repositories, organizationId: string, feature: string, flow: string): void {
  const organization = store.organizations.get(organizationId);
  if (organization?.parentId === undefined) return;
  if (!store.organizations.features(organizationId).some((candidate) => candidate.name === feature)) {
    throw new QkError('FAILED_PRECONDITION', `${flow} is disabled for sub-organization ${organizationId} (it lacks ${feature})`, { feature });
  }
}

export const RECOVER_USER_CREDENTIAL_TYPE = 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256';
const OAUTH_CREDENTIAL_TYPE = 'CREDENTIAL_TYPE_OAUTH_KEY_P256';

/**
 * Email auth and email recovery run one flow: find the user by email, issue a credential key sealed to the client's
 * target key, and queue the email that carries the bundle. What sets them apart is here and at their handlers.
 */
interface EmailCredentialFlow {
  /** The sub-organization feature the flow needs (`disableEmailAuth` / `disableEmailRecovery` drop it). */
  feature: string;
  /** The flow as errors name it. */
  title: string;
  credentialType: string;
  /** Which email the auth proxy sends with the bundle. */
  purpose: 'EMAIL_AUTH' | 'EMAIL_RECOVERY';
}

const EMAIL_AUTH_FLOW: EmailCredentialFlow = {
  feature: 'FEATURE_NAME_EMAIL_AUTH',
  title: 'email auth',
  credentialType: EMAIL_AUTH_CREDENTIAL_TYPE,
  purpose: 'EMAIL_AUTH',
};

const EMAIL_RECOVERY_FLOW: EmailCredentialFlow = {
  feature: 'FEATURE_NAME_EMAIL_RECOVERY',
  title: 'email recovery',
  credentialType: RECOVER_USER_CREDENTIAL_TYPE,
  purpose: 'EMAIL_RECOVERY',
};

interface EmailCredentialRequest {
  email: string;
  targetPublicKey: string;
  expirationSeconds?: string | undefined;
}

/** The user an email flow is for, once the organization allows the flow and the key request is sound. */
function checkEmailFlow(flow: EmailCredentialFlow, store: Repositories, organizationId: string, params: EmailCredentialRequest): UserRecord {
  requireSubOrganizationFeature(store, organizationId, flow.feature, flow.title);
  checkCredentialKeyRequest(params);
  return userWithEmail(store, organizationId, params.email);
}

/** Issues the flow's credential key to the user with the email and queues the email that carries its bundle. */
async function emailCredentialKey(
  ctx: ActivityContext,
  outboxFile: string,
  flow: EmailCredentialFlow,
  request: EmailCredentialRequest & { name: string; invalidateExisting: boolean | undefined },
): Promise<{ userId: string; apiKeyId: string }> {
  const user = checkEmailFlow(flow, ctx.store, ctx.organizationId, request);
  const issued = await issueCredentialKey(ctx, {
    userId: user.id,
    targetPublicKey: request.targetPublicKey,
    credentialType: flow.credentialType,
    name: request.name,
    expirationSeconds: request.expirationSeconds,
    invalidateExisting: request.invalidateExisting,
  });
  appendOutboxMessage(outboxFile, {
    contact: request.email.toLowerCase(),
    channel: 'email',
    purpose: flow.purpose,
    credentialBundle: issued.credentialBundle,
    organizationId: ctx.organizationId,
    userId: user.id,
    createdAt: new Date(ctx.now).toISOString(),
  });
  return { userId: user.id, apiKeyId: issued.apiKeyId };
}

export function sessionsFamily(options: { oidc: OidcVerifier; outboxFile: string }): Family {
  return {
    hooks: { checkRequest: checkSessionScope, checkQuery: checkSessionQueryScope, readScope: sessionReadScope },
    queries: {
      get_session_profiles(ctx) {
        const own = ctx.store.sessionProfiles.listByOrganization(ctx.organizationId);
        const inherited = ctx.organization.parentId === undefined ? [] : ctx.store.sessionProfiles.listByOrganization(ctx.organization.parentId);
        return { sessionProfiles: [...inherited, ...own].map(sessionProfileView) };
      },
      get_session_profile: (ctx, request) => ({
        sessionProfile: sessionProfileView(sessionProfileFor(ctx.store, ctx.organizationId, request.sessionProfileId)),
      }),
    },
    activities: {
      create_session_profile: {
        validate(store, organizationId, params) {
          checkScope(params.scope);
          parseSeconds(params.expirationSeconds, 'parameters.expirationSeconds', MAX_SESSION_SECONDS);
          requireUniqueProfileName(store, organizationId, params.sessionProfileName);
        },
        execute(ctx, params) {
          checkScope(params.scope);
          requireUniqueProfileName(ctx.store, ctx.organizationId, params.sessionProfileName);
          const id = ctx.newId();
          ctx.store.sessionProfiles.insert({
            id,
            organizationId: ctx.organizationId,
            name: params.sessionProfileName,
            scope: params.scope,
            expirationSeconds: parseSeconds(params.expirationSeconds, 'parameters.expirationSeconds', MAX_SESSION_SECONDS),
            notes: params.notes,
            now: ctx.now,
          });
          return { sessionProfileId: id };
        },
      },
      stamp_login: {
        // The stamp is the proof: the session is the stamping user's, for the key they name.
        validate: checkLoginRequest,
        async execute(ctx, params) {
          return loginSession(ctx, ctx.actor.userId, params);
        },
      },
      create_read_only_session: {
        async execute(ctx) {
          const user = requireUser(ctx.store, ctx.organizationId, ctx.actor.userId);
          const exp = Math.floor(ctx.now / 1000) + READ_ONLY_SESSION_SECONDS;
          const session = await encodeSessionJwt(
            {
              exp,
              public_key: ctx.actor.credential.publicKey,
              session_type: READ_ONLY_SESSION,
              user_id: user.id,
              organization_id: ctx.organizationId,
            },
            serviceSigner(ctx.store, SESSION_SIGNING_KEY),
          );
          return {
            organizationId: ctx.organizationId,
            organizationName: ctx.organization.name,
            userId: user.id,
            username: user.name,
            session,
            sessionExpiry: String(exp),
          };
        },
      },
      create_read_write_session: {
        validate(store, organizationId, params) {
          checkCredentialKeyRequest(params);
          if (params.userId !== undefined) requireUser(store, organizationId, params.userId);
        },
        async execute(ctx, params) {
          const user = requireUser(ctx.store, ctx.organizationId, params.userId ?? ctx.actor.userId);
          const issued = await issueCredentialKey(ctx, {
            userId: user.id,
            targetPublicKey: params.targetPublicKey,
            credentialType: READ_WRITE_SESSION_CREDENTIAL_TYPE,
            name: params.apiKeyName ?? `Read Write Session - ${new Date(ctx.now).toISOString()}`,
            expirationSeconds: params.expirationSeconds,
            invalidateExisting: params.invalidateExisting,
          });
          return { organizationId: ctx.organizationId, organizationName: ctx.organization.name, userId: user.id, username: user.name, ...issued };
        },
      },
      email_auth: {
        // A parent organization sends the login email for a user of its sub-organization (Turnkey's email auth): the
        // key reaches only whoever reads that user's email, so a user with that email is the proof.
        async parentProposalProof(store, organizationId, params) {
          checkEmailFlow(EMAIL_AUTH_FLOW, store, organizationId, params);
        },
        validate: (store, organizationId, params) => void checkEmailFlow(EMAIL_AUTH_FLOW, store, organizationId, params),
        execute: (ctx, params) =>
          emailCredentialKey(ctx, options.outboxFile, EMAIL_AUTH_FLOW, {
            email: params.email,
            targetPublicKey: params.targetPublicKey,
            expirationSeconds: params.expirationSeconds,
            name: params.apiKeyName ?? `Email Auth - ${new Date(ctx.now).toISOString()}`,
            invalidateExisting: params.invalidateExisting,
          }),
      },
      init_user_email_recovery: {
        // As email_auth: the recovery key reaches only the user's mailbox, and serves only recover_user.
        async parentProposalProof(store, organizationId, params) {
          checkEmailFlow(EMAIL_RECOVERY_FLOW, store, organizationId, params);
        },
        validate: (store, organizationId, params) => void checkEmailFlow(EMAIL_RECOVERY_FLOW, store, organizationId, params),
        async execute(ctx, params) {
          // Only the newest recovery email works (earlier recovery keys are dropped); Turnkey's result names only the user.
          const { userId } = await emailCredentialKey(ctx, options.outboxFile, EMAIL_RECOVERY_FLOW, {
            email: params.email,
            targetPublicKey: params.targetPublicKey,
            expirationSeconds: params.expirationSeconds,
            name: `Email Recovery - ${new Date(ctx.now).toISOString()}`,
            invalidateExisting: true,
          });
          return { userId };
        },
      },
      oauth: {
        // As oauth_login, with a credential key sealed to the target key (whose hash the token's nonce must be) in
        // place of a session.
        async parentProposalProof(store, organizationId, params) {
          await oauthUserOf({ store, organizationId }, options.oidc, params.oidcToken, params.targetPublicKey);
        },
        validate: (_store, _organizationId, params) => checkCredentialKeyRequest(params),
        async execute(ctx, params) {
          const userId = await oauthUserOf(ctx, options.oidc, params.oidcToken, params.targetPublicKey);
          const issued = await issueCredentialKey(ctx, {
            userId,
            targetPublicKey: params.targetPublicKey,
            credentialType: OAUTH_CREDENTIAL_TYPE,
            name: params.apiKeyName ?? `OAuth - ${new Date(ctx.now).toISOString()}`,
            expirationSeconds: params.expirationSeconds,
            invalidateExisting: params.invalidateExisting,
          });
          return { userId, ...issued };
        },
      },
      oauth_login: {
        // The auth proxy submits logins with its key of the parent organization (docs/service.md#auth-proxy); the
        // verified token matched to a user of the target organization is the proof.
        async parentProposalProof(store, organizationId, params) {
          await oauthUserOf({ store, organizationId }, options.oidc, params.oidcToken, params.publicKey);
        },
        validate: checkLoginRequest,
        async execute(ctx, params) {
          const userId = await oauthUserOf(ctx, options.oidc, params.oidcToken, params.publicKey);
          return loginSession(ctx, userId, params);
        },
      },
    },
  };
}
