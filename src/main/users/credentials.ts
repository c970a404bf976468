/**
 * A user's credentials as main reads them for Users → credentials: each API key and authenticator the service lists,
 * with its kind in words and what this desktop knows of it (a key in its keychain, a key on one of its hardware tokens,
 * by the public keys its profiles pinned), and what removing it would leave, judged by the lock-out guard.
 */
import type { ApiKey, Authenticator, User } from '../../shared/api';
import { quotedText, visibleText } from '../../shared/visible-text';
import type { OrganizationSnapshot } from '../signing/organization';

/** How a credential signs, as the list names it. */
export type CredentialKind = 'token-key' | 'keychain-key' | 'api-key' | 'session-key' | 'security-key' | 'passkey';

export interface CredentialReading {
  /** The service's id: an API key id or an authenticator id. */
  id: string;
  name: string;
  kind: CredentialKind;
  /** "API key on hardware token "yk" (key "ops-1") of this desktop", "security key (USB)". */
  kindInWords: string;
  /** Profiles of this desktop that sign with it. */
  profiles: string[];
  /** Whether it can still sign: a session key past its expiry cannot. */
  working: boolean;
  /** Why the lock-out guard refuses removing it; absent when it may be removed. */
  refusal?: string;
  /** What the user keeps once it is removed, by kind: "1 security key and 1 API key held elsewhere". */
  leaves: string;
}

/** What this desktop holds: its profiles (with the token key each pinned) and its keychain's API keys. */
export interface DesktopCredentials {
  profiles: readonly { name: string; apiKeyName: string; tokenKey?: { tokenLabel: string; keyLabel: string; publicKey: string } | undefined }[];
  keychainKeys: readonly { name: string; publicKey: string }[];
}

/** Credential types an API key has when a person made it to stand; the others are made by a login and expire. */
const STANDING_API_KEY_TYPES: ReadonlySet<string> = new Set([
  'CREDENTIAL_TYPE_API_KEY_P256',
  'CREDENTIAL_TYPE_API_KEY_SECP256K1',
  'CREDENTIAL_TYPE_API_KEY_ED25519',
]);

const KIND_NAMES: Record<CredentialKind, [one: string, many: string]> = {
  'token-key': ['API key on a hardware token of this desktop', 'API keys on hardware tokens of this desktop'],
  'keychain-key': ["API key in this desktop's keychain", "API keys in this desktop's keychain"],
  'api-key': ['API key held elsewhere', 'API keys held elsewhere'],
  'session-key': ['session key', 'session keys'],
  'security-key': ['security key', 'security keys'],
  passkey: ['passkey', 'passkeys'],
};

/** Whether two hex public keys are the same key: the service and tokens may spell the hex in either case. */
export function sameKey(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function expired(key: ApiKey, nowMs: number): boolean {
  if (key.expirationSeconds === undefined) return false;
  return Number(key.createdAt.seconds) * 1000 + Number(key.expirationSeconds) * 1000 <= nowMs;
}

function apiKeyReading(key: ApiKey, desktop: DesktopCredentials, nowMs: number): Omit<CredentialReading, 'refusal' | 'leaves'> {
  const publicKey = key.credential.publicKey;
  const onToken = desktop.profiles.filter((profile) => profile.tokenKey !== undefined && sameKey(profile.tokenKey.publicKey, publicKey));
  const inKeychain = desktop.keychainKeys.find((stored) => sameKey(stored.publicKey, publicKey));
  const base = { id: key.apiKeyId, name: key.apiKeyName, working: !expired(key, nowMs) };
  const [token] = onToken;
  if (token?.tokenKey !== undefined) {
    return {
      ...base,
      kind: 'token-key',
      kindInWords: `API key on hardware token ${quotedText(token.tokenKey.tokenLabel)} (key ${quotedText(token.tokenKey.keyLabel)}) of this desktop`,
      profiles: onToken.map((profile) => profile.name),
    };
  }
  if (!STANDING_API_KEY_TYPES.has(key.credential.type)) {
    return {
      ...base,
      kind: 'session-key',
      kindInWords: base.working ? 'session key made by a login; it expires' : 'session key made by a login; expired',
      profiles: [],
    };
  }
  if (inKeychain !== undefined) {
    return {
      ...base,
      kind: 'keychain-key',
      kindInWords: `API key in this desktop's keychain (${quotedText(inKeychain.name)})`,
      profiles: desktop.profiles
        .filter((profile) => profile.tokenKey === undefined && profile.apiKeyName === inKeychain.name)
        .map((profile) => profile.name),
    };
  }
  return {
    ...base,
    kind: 'api-key',
    kindInWords: base.working ? 'API key held elsewhere (not on this desktop)' : 'API key held elsewhere; expired',
    profiles: [],
  };
}

/** A platform authenticator (the device's own: Touch ID, Windows Hello) is a passkey; one over USB, NFC or BLE a security key. */
function authenticatorReading(authenticator: Authenticator): Omit<CredentialReading, 'refusal' | 'leaves'> {
  const platform =
    authenticator.transports.includes('AUTHENTICATOR_TRANSPORT_INTERNAL') || authenticator.transports.includes('AUTHENTICATOR_TRANSPORT_HYBRID');
  const over = authenticator.transports
    .filter((transport) => transport !== 'AUTHENTICATOR_TRANSPORT_INTERNAL')
    .map((transport) => transport.replace('AUTHENTICATOR_TRANSPORT_', ''));
  return {
    id: authenticator.authenticatorId,
    name: authenticator.authenticatorName,
    kind: platform ? 'passkey' : 'security-key',
    kindInWords: platform ? 'passkey on a device (WebAuthn)' : `security key (WebAuthn${over.length === 0 ? '' : `, ${over.join(', ')}`})`,
    profiles: [],
    working: true,
  };
}

/** "1 security key and 2 API keys held elsewhere"; "nothing" when none is left. Only working credentials count. */
export function kindsInWords(credentials: readonly Pick<CredentialReading, 'kind' | 'working'>[]): string {
  const counts = new Map<CredentialKind, number>();
  for (const credential of credentials) if (credential.working) counts.set(credential.kind, (counts.get(credential.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${KIND_NAMES[kind][count === 1 ? 0 : 1]}`);
  if (parts.length === 0) return 'no working credential';
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
}

/** Every credential of `user`, read against what this desktop holds; `refusalOf` is the lock-out guard for removing one. */
export function credentialsOf(
  user: User,
  desktop: DesktopCredentials,
  nowMs: number,
  refusalOf: (credential: Pick<CredentialReading, 'id'>, isAuthenticator: boolean) => string | undefined,
): CredentialReading[] {
  const read = [
    ...user.apiKeys.map((key) => ({ ...apiKeyReading(key, desktop, nowMs), isAuthenticator: false })),
    ...user.authenticators.map((authenticator) => ({ ...authenticatorReading(authenticator), isAuthenticator: true })),
  ];
  return read.map(({ isAuthenticator, ...credential }) => {
    const refusal = refusalOf(credential, isAuthenticator);
    return {
      ...credential,
      name: visibleText(credential.name),
      ...(refusal === undefined ? {} : { refusal }),
      leaves: kindsInWords(read.filter((other) => other.id !== credential.id)),
    };
  });
}

/** The working credentials `user` keeps once `removing` are gone: what the lock-out guard counts. */
export function workingLeft(user: User, removing: readonly string[], nowMs: number): number {
  const keys = user.apiKeys.filter((key) => !removing.includes(key.apiKeyId) && !expired(key, nowMs));
  const authenticators = user.authenticators.filter((authenticator) => !removing.includes(authenticator.authenticatorId));
  return keys.length + authenticators.length;
}

/** The snapshot's user `userId`, or undefined. */
export function userOf(snapshot: OrganizationSnapshot, userId: string): User | undefined {
  return snapshot.users.find((user) => user.userId === userId);
}
