/**
 * Read-only sessions (docs/service.md#sessions-and-otp): create_read_only_session answers a session token that
 * Turnkey's browser SDK sends as `X-Session` instead of a stamp. It authenticates queries only, as the user who created
 * it, for as long as it is unexpired and the credential that created it is still held.
 */
import { verifySessionJwt } from '../../shared/crypto/tokens';
import { QkError } from '../../shared/errors';
import { READ_ONLY_SESSION, SESSION_SIGNING_KEY } from '../families/sessions';
import type { Repositories } from '../store';
import type { OrganizationRecord } from '../store/organizations';
import type { UserRecord } from '../store/users';
import type { RequestHeaders } from './authenticate';
import { WEBAUTHN_CREDENTIAL_TYPE, type Credential } from './credentials';

const READ_ONLY_SESSION_HEADER = 'x-session';

/** The `X-Session` token of a request that carries no stamp (a stamp, when present, is what authenticates). */
export function readOnlySessionOf(headers: RequestHeaders): string | undefined {
  if (headers['x-stamp'] !== undefined || headers['x-stamp-webauthn'] !== undefined) return undefined;
  const token = headers[READ_ONLY_SESSION_HEADER];
  if (token === undefined) return undefined;
  if (typeof token !== 'string') throw new QkError('REQUEST_INVALID', 'the X-Session header must appear exactly once');
  return token;
}

/** The user and credential a read-only session speaks for, reading `organizationId` (theirs or a sub-organization of it). */
export function authenticateReadOnlySession(
  token: string,
  organizationId: string,
  store: Repositories,
  now: number,
): { actor: { user: UserRecord; credential: Credential }; organization: OrganizationRecord } {
  const signer = store.serviceKeys.get(SESSION_SIGNING_KEY);
  if (signer === undefined) throw new QkError('INTERNAL', 'the session signing key is missing; start the service with startService');
  const claims = verifySessionJwt(token, signer.publicKey, now);
  if (claims.session_type !== READ_ONLY_SESSION) {
    throw new QkError(
      'UNAUTHENTICATED',
      `X-Session carries a ${claims.session_type} session; only read-only sessions go there, stamp other requests`,
    );
  }
  const organization = store.organizations.get(organizationId);
  if (organization === undefined)
    throw new QkError('ORGANIZATION_NOT_FOUND', `no organization found with the given ID: ${organizationId}`, { organizationId });
  if (organization.id !== claims.organization_id && organization.parentId !== claims.organization_id) {
    throw new QkError('ORGANIZATION_MISMATCH', `this read-only session is for organization ${claims.organization_id}, not ${organization.id}`);
  }
  const user = store.users.get(claims.user_id);
  const apiKey = store.apiKeys.listByUser(claims.user_id).find((key) => key.publicKey === claims.public_key);
  const authenticator = store.authenticators.listByUser(claims.user_id).find((held) => held.publicKey === claims.public_key);
  const credential: Credential | undefined =
    apiKey !== undefined
      ? { id: apiKey.id, type: apiKey.credentialType, publicKey: apiKey.publicKey, userId: apiKey.userId, organizationId: apiKey.organizationId }
      : authenticator !== undefined
        ? {
            id: authenticator.id,
            type: WEBAUTHN_CREDENTIAL_TYPE,
            publicKey: authenticator.publicKey,
            userId: authenticator.userId,
            organizationId: authenticator.organizationId,
            credentialId: authenticator.credentialId,
          }
        : undefined;
  const keyExpired = apiKey?.expirationSeconds !== undefined && now >= apiKey.createdAt + apiKey.expirationSeconds * 1000;
  if (user === undefined || credential === undefined || keyExpired) {
    throw new QkError('SESSION_EXPIRED', 'the credential that created this read-only session no longer exists or has expired; create a new session');
  }
  return { actor: { user, credential }, organization };
}
