import { QkError } from '../../shared/errors';
import { type AsyncStampVerifier, type StampVerifier, curveForScheme, parseApiKeyStamp, stampSignatureInvalid } from '../../shared/crypto/stamp';
import type { Repositories } from '../store';
import type { OrganizationRecord } from '../store/organizations';
import type { UserRecord } from '../store/users';
import { type Credential, type StampProof, curveOfCredentialType } from './credentials';
import { AuthLookups } from './lookups';

/** The authenticated caller of one request. */
export interface Actor {
  user: UserRecord;
  credential: Credential;
  stamp: StampProof;
}

export interface Authentication {
  actor: Actor;
  /** The organization the body names (`organizationId`). */
  organization: OrganizationRecord;
  /** True when the actor belongs to the parent of `organization` rather than to it. */
  fromParentOrganization: boolean;
}

/** Header values as Fastify gives them (lower-cased names). */
export type RequestHeaders = Record<string, string | string[] | undefined>;

export interface StampContext {
  organization: OrganizationRecord;
  repositories: Repositories;
  /** Cached reads of the rows authentication needs; prefer these over `repositories` for those rows. */
  lookups: AuthLookups;
  now: number;
  /** The request body as received, for formats whose signature can only be checked with the stored key (WebAuthn). */
  body: Uint8Array;
}

/**
 * One stamp format: `X-Stamp` resolves public key → API key, `X-Stamp-WebAuthn` credential id → authenticator
 * (whose key checks the signature, and whose sign count is recorded, in `resolve`).
 */
export interface StampFormat {
  /** Lower-case header name. */
  header: string;
  /** Checks the stamp's signature over the body bytes; throws (or rejects with) STAMP_MALFORMED / SIGNATURE_INVALID. */
  verify(headerValue: string, body: Uint8Array): StampProof | Promise<StampProof>;
  /** Finds the credential that holds the verified key, in the organization or its parent. */
  resolve(stamp: StampProof, context: StampContext): Credential | Promise<Credential>;
}

export function apiKeyStampFormat(verifier: StampVerifier | AsyncStampVerifier): StampFormat {
  return {
    header: 'x-stamp',
    async verify(headerValue, body) {
      const stamp = parseApiKeyStamp(headerValue);
      if (!(await verifier.verify(stamp.curve, stamp.publicKey, stamp.signature, body))) throw stampSignatureInvalid(stamp);
      return { scheme: stamp.scheme, publicKey: stamp.publicKey, signature: stamp.signature };
    },
    resolve(stamp, { organization, lookups, now }) {
      const curve = curveForScheme(stamp.scheme);
      const candidates = lookups
        .apiKeysByPublicKey(stamp.publicKey)
        .filter((key) => key.organizationId === organization.id || key.organizationId === organization.parentId)
        .filter((key) => curveOfCredentialType(key.credentialType) === curve);
      // The target organization's own key wins over the same key held in its parent.
      const key = candidates.find((k) => k.organizationId === organization.id) ?? candidates[0];
      if (key === undefined) {
        throw new QkError(
          'PUBLIC_KEY_NOT_FOUND',
          `could not find public key in organization or its parent organization: ${stamp.publicKey} is not an API key of organization ${organization.id}${organization.parentId === undefined ? '' : ` or of its parent ${organization.parentId}`}`,
          { publicKey: stamp.publicKey, organizationId: organization.id },
        );
      }
      if (key.expirationSeconds !== undefined && now >= key.createdAt + key.expirationSeconds * 1000) {
        throw new QkError(
          'API_KEY_EXPIRED',
          `expired api key: API key ${key.id} expired at ${new Date(key.createdAt + key.expirationSeconds * 1000).toISOString()}; create a new one`,
          { apiKeyId: key.id },
        );
      }
      return {
        id: key.id,
        type: key.credentialType,
        publicKey: key.publicKey,
        userId: key.userId,
        organizationId: key.organizationId,
      };
    },
  };
}

const KNOWN_STAMP_HEADERS = ['x-stamp', 'x-stamp-webauthn'] as const;

/**
 * Stamp header → verified signature over the raw body → credential → user, in the body's organization or
 * its parent (docs/service.md#how-a-stamp-is-checked). Rejects with the documented 401/404 errors. The rows are read
 * after the signature check has settled, so they are the database's state at that moment.
 */
export async function authenticate(
  headers: RequestHeaders,
  body: Uint8Array,
  organizationId: string,
  formats: readonly StampFormat[],
  repositories: Repositories,
  now: number,
): Promise<Authentication> {
  const present = KNOWN_STAMP_HEADERS.filter((name) => headers[name] !== undefined);
  if (present.length === 0) {
    throw new QkError('SIGNATURE_MISSING', 'cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)');
  }
  if (present.length > 1) {
    throw new QkError('REQUEST_INVALID', `send exactly one stamp header; this request carries ${present.join(' and ')}`, {
      headers: present,
    });
  }
  const headerName = present[0]!;
  const headerValue = headers[headerName];
  if (typeof headerValue !== 'string') {
    throw new QkError('REQUEST_INVALID', `the ${headerName} header must appear exactly once`, { header: headerName });
  }
  const format = formats.find((candidate) => candidate.header === headerName);
  if (format === undefined) {
    throw new QkError(
      'SIGNATURE_INVALID',
      `${headerName} stamps are not accepted by this service yet: no passkey authenticators are stored; stamp with an API key (X-Stamp)`,
      { header: headerName },
    );
  }
  const stamp = await format.verify(headerValue, body);
  const lookups = AuthLookups.current(repositories);
  const organization = lookups.organization(organizationId);
  if (organization === undefined) {
    throw new QkError('ORGANIZATION_NOT_FOUND', `no organization found with the given ID: ${organizationId}`, {
      organizationId,
    });
  }
  const credential = await format.resolve(stamp, { organization, repositories, lookups, now, body });
  const user = lookups.user(credential.userId);
  if (user === undefined) {
    throw new QkError('PUBLIC_KEY_NOT_FOUND', `the credential ${credential.id} belongs to no user`, {
      credentialId: credential.id,
    });
  }
  return {
    actor: { user, credential, stamp },
    organization,
    fromParentOrganization: credential.organizationId !== organization.id,
  };
}
