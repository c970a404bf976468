/**
 * A passkey or security key a profile votes with (docs/architecture.md#passkeys-and-security-keys): a WebAuthn
 * credential this app registered for the profile's user through `create_authenticators`. It holds no secret: the
 * private key stays on the authenticator, and each vote asks it for an assertion on main's own page.
 */
import { z } from 'zod';
import { QkError } from '../../shared/errors';

export interface PasskeyCredential {
  /** The raw credential id as base64url without padding, as the service lists the authenticator. */
  credentialId: string;
  /** Compressed P-256 point (66 hex) the authenticator answered at registration. */
  publicKey: string;
  /** The authenticator's id on the service. */
  authenticatorId: string;
  /** Its name on the service, as the person gave it. */
  name: string;
}

/** The relying-party id every passkey of this app is registered under: main's loopback page is served as localhost. */
export const PASSKEY_RP_ID = 'localhost';

const BASE64URL_PATTERN = /^[A-Za-z0-9_-]{16,1366}$/;
const COMPRESSED_P256_PATTERN = /^0[23][0-9a-f]{64}$/;
const NAME_PATTERN = /^\P{Cc}{1,64}$/u;

export const passkeyCredentialSchema = z.strictObject({
  credentialId: z.string().regex(BASE64URL_PATTERN),
  publicKey: z.string().regex(COMPRESSED_P256_PATTERN),
  authenticatorId: z.string().min(1).max(128),
  name: z.string().regex(NAME_PATTERN),
});

/** `name` as a passkey's name (1-64 characters, no control characters), or REQUEST_INVALID saying so. */
export function validPasskeyName(name: string): string {
  if (!NAME_PATTERN.test(name)) {
    throw new QkError('REQUEST_INVALID', `a security key's name must be 1-64 characters without control characters, got ${JSON.stringify(name)}`, {
      field: 'name',
    });
  }
  return name;
}

/** The passkey in `candidate`, or REQUEST_INVALID naming the first wrong field under `label`. */
export function validatePasskey(candidate: unknown, label: string): PasskeyCredential {
  const parsed = passkeyCredentialSchema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  throw new QkError('REQUEST_INVALID', `${label}${field === '' ? '' : `.${field}`} ${issue?.message ?? 'is not a passkey'}`, { field });
}

/** `security key "yk-5" (credential 3q2-7w…)`: for people, and the journal's name of the credential. */
export function describePasskey(passkey: Pick<PasskeyCredential, 'name' | 'credentialId'>): string {
  return `security key ${JSON.stringify(passkey.name)} (credential ${passkey.credentialId.slice(0, 12)}…)`;
}

const VOTE_TYPES = new Set(['ACTIVITY_TYPE_APPROVE_ACTIVITY', 'ACTIVITY_TYPE_REJECT_ACTIVITY']);

/**
 * Whether `body` is a vote (approve or reject): what a profile's passkey stamps. Reads the body's own `type`, so every
 * path to a stamp (a post, an offline file) decides alike; a body that is not JSON is no vote.
 */
export function isVoteBody(body: string): boolean {
  try {
    const type: unknown = (JSON.parse(body) as { type?: unknown } | null)?.type;
    return typeof type === 'string' && VOTE_TYPES.has(type);
  } catch {
    return false;
  }
}
