/** Credentials a user signs in or signs with: added and removed (API keys use the same wording), and recovery with a new passkey. */
import type { Describer, Describers, Draft, Fields } from '../draft';
import { code, plain, record, records, text, texts } from '../pieces';
import type { Ref } from '../types';
import { counted } from '../words';

/** A user's API keys, authenticators and OAuth providers: what they can sign in or sign with. */
function credentialCount(draft: Draft, userId: string): number | undefined {
  const user = draft.names.findUser(userId);
  return user === undefined ? undefined : user.apiKeys.length + user.authenticators.length + user.oauthProviders.length;
}

/** Warns when removing `removing` credentials leaves `userId` with none. */
export function warnIfLastCredential(draft: Draft, userId: string, removing: number): void {
  const count = draft.beforeFrom(credentialCount(draft, userId));
  if (count !== undefined && removing >= count) {
    draft.warn(`${draft.names.user(userId).text} loses their last credential: they can no longer sign in or approve anything.`);
  }
}

type CredentialKind = 'apiKeys' | 'authenticators' | 'oauthProviders';
/** `label` heads a change; `one` and `many` go inside a sentence. */
const CREDENTIALS: Readonly<Record<CredentialKind, { label: string; one: string; many: string; idField: string; nameField: string }>> = {
  apiKeys: { label: 'API keys', one: 'API key', many: 'API keys', idField: 'apiKeyId', nameField: 'apiKeyName' },
  authenticators: {
    label: 'Authenticators',
    one: 'authenticator',
    many: 'authenticators',
    idField: 'authenticatorId',
    nameField: 'authenticatorName',
  },
  oauthProviders: { label: 'OAuth providers', one: 'OAuth provider', many: 'OAuth providers', idField: 'providerId', nameField: 'providerName' },
};

function existingCredentials(draft: Draft, userId: string, kind: CredentialKind): Ref[] | undefined {
  const user = draft.beforeFrom(draft.names.findUser(userId));
  if (user === undefined) return undefined;
  const { idField, nameField } = CREDENTIALS[kind];
  return (user[kind] as readonly Fields[]).map((item) => ({
    text: text(item, nameField) || (text(item, idField) ?? ''),
    id: text(item, idField) ?? '',
  }));
}

export const addCredentials =
  (kind: CredentialKind, listField: string): Describer =>
  (fields, draft) => {
    const userId = text(fields, 'userId') ?? '';
    const { label, many, nameField } = CREDENTIALS[kind];
    const added = records(fields, listField).map((item) => plain(text(item, nameField) ?? 'unnamed'));
    draft.title = `Add ${many}`;
    draft.fact('User', draft.names.user(userId));
    const before = existingCredentials(draft, userId, kind);
    if (before === undefined) draft.fact(`${label} added`, ...added);
    else draft.change(label, before, [...before, ...added]);
    if (kind === 'apiKeys') {
      for (const key of records(fields, listField)) {
        draft.fact(`${text(key, 'apiKeyName') ?? 'API key'}: public key`, code(text(key, 'publicKey') ?? ''));
      }
    }
    draft.summary = `${draft.names.user(userId).text}: ${added.map((ref) => ref.text).join(', ')}`;
  };

export const removeCredentials =
  (kind: CredentialKind, idsField: string): Describer =>
  (fields, draft) => {
    const userId = text(fields, 'userId') ?? '';
    const { label, one, many } = CREDENTIALS[kind];
    const removed = texts(fields, idsField);
    draft.title = `Remove ${many}`;
    draft.fact('User', draft.names.user(userId));
    const before = existingCredentials(draft, userId, kind);
    if (before !== undefined)
      draft.change(
        label,
        before,
        before.filter((ref) => !removed.includes(ref.id ?? '')),
      );
    for (const credentialId of removed) {
      const known = before?.find((ref) => ref.id === credentialId);
      draft.deletions.push({ what: known ?? code(credentialId), kind: one });
    }
    warnIfLastCredential(draft, userId, removed.length);
    draft.summary = `${draft.names.user(userId).text}: ${counted(removed.length, one)}`;
  };

const recoverUser: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  draft.title = 'Recover a user with a new passkey';
  draft.change('Passkey', [], [plain(text(record(fields, 'authenticator') ?? {}, 'authenticatorName') ?? 'unnamed')]);
  draft.summary = draft.names.user(userId).text;
};

export const credentialDescribers = {
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: addCredentials('authenticators', 'authenticators'),
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: removeCredentials('authenticators', 'authenticatorIds'),
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2: addCredentials('oauthProviders', 'oauthProviders'),
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: removeCredentials('oauthProviders', 'providerIds'),
  ACTIVITY_TYPE_RECOVER_USER: recoverUser,
} satisfies Describers;
