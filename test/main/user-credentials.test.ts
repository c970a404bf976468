/**
 * Users → a user's credentials, as main reads them: each API key and authenticator with its kind in words (a key on
 * a hardware token of this desktop is known by the public key a profile pinned), and the lock-out guard counting
 * kinds: an expired session key keeps no root quorum member able to vote.
 */
import { describe, expect, it } from 'vitest';
import type { ApiKey, Authenticator, User } from '../../src/shared/api';
import { lockOutOf } from '../../src/main/confirmation/stamp-reading';
import type { OrganizationSnapshot } from '../../src/main/signing/organization';
import { credentialsOf, kindsInWords } from '../../src/main/users/credentials';

const NOW_MS = 1_800_000_000_000;
const at = (ms: number) => ({ seconds: String(Math.floor(ms / 1000)), nanos: '0' });
const TOKEN_PUBLIC = `02${'aa'.repeat(32)}`;
const KEYCHAIN_PUBLIC = `03${'bb'.repeat(32)}`;
const ELSEWHERE_PUBLIC = `02${'cc'.repeat(32)}`;

function apiKey(apiKeyId: string, apiKeyName: string, publicKey: string, extra: Partial<ApiKey> = {}): ApiKey {
  return {
    apiKeyId,
    apiKeyName,
    credential: { publicKey, type: 'CREDENTIAL_TYPE_API_KEY_P256' },
    createdAt: at(NOW_MS - 86_400_000),
    updatedAt: at(NOW_MS - 86_400_000),
    ...extra,
  };
}

function authenticator(authenticatorId: string, authenticatorName: string, transports: Authenticator['transports']): Authenticator {
  return {
    authenticatorId,
    authenticatorName,
    transports,
    attestationType: 'none',
    aaguid: '00000000-0000-0000-0000-000000000000',
    credentialId: 'Y3JlZGVudGlhbC1pZC0wMDE',
    model: 'virtual',
    credential: { publicKey: `02${'dd'.repeat(32)}`, type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' },
    createdAt: at(NOW_MS),
    updatedAt: at(NOW_MS),
  };
}

function user(userId: string, userName: string, apiKeys: ApiKey[], authenticators: Authenticator[] = []): User {
  return {
    userId,
    userName,
    apiKeys,
    authenticators,
    userTags: [],
    oauthProviders: [],
    mfaPolicies: [],
    createdAt: at(NOW_MS),
    updatedAt: at(NOW_MS),
  };
}

const desktop = {
  profiles: [
    { name: 'Ops on token', apiKeyName: 'ops', tokenKey: { tokenLabel: 'yk', keyLabel: 'ops-1', publicKey: TOKEN_PUBLIC } },
    { name: 'Ops', apiKeyName: 'ops' },
  ],
  keychainKeys: [{ name: 'ops', publicKey: KEYCHAIN_PUBLIC }],
};

const expiredSession = apiKey('k-session', 'login session', `02${'ee'.repeat(32)}`, {
  credential: { publicKey: `02${'ee'.repeat(32)}`, type: 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256' },
  expirationSeconds: '900',
});

const bea = user(
  'u-bea',
  'Bea',
  [
    apiKey('k-token', 'ops-1 on yk', TOKEN_PUBLIC),
    apiKey('k-keychain', 'ops keychain', KEYCHAIN_PUBLIC),
    apiKey('k-elsewhere', 'laptop', ELSEWHERE_PUBLIC),
    expiredSession,
  ],
  [
    authenticator('a-usb', 'YubiKey 5', ['AUTHENTICATOR_TRANSPORT_USB', 'AUTHENTICATOR_TRANSPORT_NFC']),
    authenticator('a-phone', 'Phone', ['AUTHENTICATOR_TRANSPORT_INTERNAL']),
  ],
);

const cy = user('u-cy', 'Cy', [apiKey('k-cy', 'cy', ELSEWHERE_PUBLIC), expiredSession]);

function snapshotWith(users: User[], rootUserIds: string[]): OrganizationSnapshot {
  return {
    viewer: { userId: 'u-bea', username: 'Bea', organizationId: 'org', organizationName: 'Org' },
    wallets: [],
    accounts: [],
    privateKeys: [],
    contracts: [],
    policies: [],
    users,
    tags: [],
    rootQuorum: { threshold: 1, userIds: rootUserIds },
  };
}

const removeApiKey = (userId: string, apiKeyId: string) => ({
  type: 'ACTIVITY_TYPE_DELETE_API_KEYS',
  intent: { deleteApiKeysIntent: { userId, apiKeyIds: [apiKeyId] } },
});

describe("a user's credentials", () => {
  const read = credentialsOf(bea, desktop, NOW_MS, () => undefined);
  const byId = new Map(read.map((credential) => [credential.id, credential]));

  it('names each kind in words: token key, keychain key, a key held elsewhere, a session key, a security key, a passkey', () => {
    expect(read.map((credential) => [credential.id, credential.kind])).toEqual([
      ['k-token', 'token-key'],
      ['k-keychain', 'keychain-key'],
      ['k-elsewhere', 'api-key'],
      ['k-session', 'session-key'],
      ['a-usb', 'security-key'],
      ['a-phone', 'passkey'],
    ]);
    expect(byId.get('k-token')).toMatchObject({
      kindInWords: 'API key on hardware token "yk" (key "ops-1") of this desktop',
      profiles: ['Ops on token'],
    });
    expect(byId.get('k-keychain')).toMatchObject({ kindInWords: `API key in this desktop's keychain ("ops")`, profiles: ['Ops'] });
    expect(byId.get('k-elsewhere')!.kindInWords).toBe('API key held elsewhere (not on this desktop)');
    expect(byId.get('a-usb')!.kindInWords).toBe('security key (WebAuthn, USB, NFC)');
  });

  it('marks an expired session key as not working, and leaves it out of what removing another would leave', () => {
    expect(byId.get('k-session')).toMatchObject({ working: false, kindInWords: 'session key made by a login; expired' });
    expect(byId.get('k-keychain')!.leaves).toBe(
      '1 API key on a hardware token of this desktop, 1 API key held elsewhere, 1 security key and 1 passkey',
    );
  });

  it('counts kinds in words, and says when nothing working is left', () => {
    expect(
      kindsInWords([
        { kind: 'passkey', working: true },
        { kind: 'passkey', working: true },
      ]),
    ).toBe('2 passkeys');
    expect(kindsInWords([{ kind: 'session-key', working: false }])).toBe('no working credential');
  });

  it("shows a credential's name escaped, so it cannot fake a line of the list", () => {
    const [named] = credentialsOf(user('u', 'U', [apiKey('k', 'ops\u202e\nroot', ELSEWHERE_PUBLIC)]), desktop, NOW_MS, () => undefined);
    expect(named!.name).not.toMatch(/[\u202e\n]/);
  });
});

describe('the lock-out guard, counting kinds', () => {
  it("refuses removing a root quorum member's last working credential even when an expired session key is left", () => {
    const refusal = lockOutOf(removeApiKey('u-cy', 'k-cy'), snapshotWith([bea, cy], ['u-bea', 'u-cy']), KEYCHAIN_PUBLIC, 'Ops', NOW_MS);
    expect(refusal).toBe(
      'it removes the last working credential of Cy, a member of the root quorum (1 of 2), who could never vote again (the others have expired)',
    );
  });

  it('lets the same removal through while the session key is still valid', () => {
    const fresh = user('u-cy', 'Cy', [apiKey('k-cy', 'cy', ELSEWHERE_PUBLIC), { ...expiredSession, createdAt: at(NOW_MS - 60_000) }]);
    expect(lockOutOf(removeApiKey('u-cy', 'k-cy'), snapshotWith([bea, fresh], ['u-bea', 'u-cy']), KEYCHAIN_PUBLIC, 'Ops', NOW_MS)).toBeUndefined();
  });

  it('lets the old keychain key go once the profile signs with its token key, and refuses the token key itself', () => {
    const snapshot = snapshotWith([bea], ['u-bea']);
    expect(lockOutOf(removeApiKey('u-bea', 'k-keychain'), snapshot, TOKEN_PUBLIC, 'Ops on token', NOW_MS)).toBeUndefined();
    expect(lockOutOf(removeApiKey('u-bea', 'k-token'), snapshot, TOKEN_PUBLIC, 'Ops on token', NOW_MS)).toMatch(
      /^it removes API key "ops-1 on yk" of Bea, the key profile "Ops on token" signs with/,
    );
  });

  it('gives each credential of the reading the refusal the guard would give', () => {
    const snapshot = snapshotWith([cy], ['u-cy']);
    const read = credentialsOf(cy, desktop, NOW_MS, ({ id }) => lockOutOf(removeApiKey('u-cy', id), snapshot, undefined, 'Ops', NOW_MS));
    expect(read.find((credential) => credential.id === 'k-cy')!.refusal).toMatch(/last working credential of Cy/);
    expect(read.find((credential) => credential.id === 'k-session')!.refusal).toBeUndefined();
  });
});
