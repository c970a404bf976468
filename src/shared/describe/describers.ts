/**
 * One describer per activity type: what the intent asks for, in words and names, against the organization as it
 * stands. A describer reads the intent loosely (a field of the wrong shape is left out, never thrown on), because
 * it runs on whatever the service recorded, including activities of older and newer versions.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8Encode } from '../crypto/encoding';
import type { Names } from './names';
import type { Change, Deletion, ExportDescription, Fact, OrganizationLookup, Ref, SigningDecoder, SigningRequest } from './types';
import { addressFormatInWords, counted, curveInWords, effectInWords, enumInWords } from './words';

export type Fields = Readonly<Record<string, unknown>>;

/**
 * What a describer fills in; the title defaults to the type in words and the summary to the first change or fact.
 * A signing describer sets its own title and summary first: a clear-signing reading then replaces them.
 */
export class Draft {
  title: string | undefined;
  summary: string | undefined;
  readonly facts: Fact[] = [];
  readonly changes: Change[] = [];
  readonly deletions: Deletion[] = [];
  readonly warnings: string[] = [];
  exports: ExportDescription | undefined;
  signing: SigningRequest | undefined;

  constructor(
    readonly type: string,
    readonly names: Names,
    readonly decodeSigning: SigningDecoder | undefined,
    /** The recorded intent, whole (`{signTransactionIntentV2: …}`), for the clear-signing decoder. */
    readonly intent: Readonly<Record<string, unknown>>,
    /** The activity already ran or never will: the lookup shows the organization after it, not before. */
    readonly settled: boolean,
  ) {}

  get lookup(): OrganizationLookup {
    return this.names.lookup;
  }

  fact(label: string, ...value: Ref[]): void {
    if (value.length > 0) this.facts.push({ label, value });
  }

  /** `before` [] is "none" (a thing created); undefined is "not known". */
  change(label: string, before: readonly Ref[] | undefined, after: readonly Ref[]): void {
    this.changes.push({ label, before, after });
  }

  /** State read from the lookup as the "before" of a change: unknown once the activity has settled. */
  beforeFrom<T>(state: T | undefined): T | undefined {
    return this.settled ? undefined : state;
  }

  warn(sentence: string): void {
    this.warnings.push(sentence);
  }
}

export type Describer = (fields: Fields, draft: Draft) => void;

// ---- reading the intent ----------------------------------------------------------------------------------------

function text(fields: Fields, key: string): string | undefined {
  const value = fields[key];
  return typeof value === 'string' ? value : undefined;
}

function texts(fields: Fields, key: string): string[] {
  const value = fields[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function records(fields: Fields, key: string): Fields[] {
  const value = fields[key];
  return Array.isArray(value) ? value.filter((item): item is Fields => typeof item === 'object' && item !== null && !Array.isArray(item)) : [];
}

function record(fields: Fields, key: string): Fields | undefined {
  const value = fields[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

function number(fields: Fields, key: string): number | undefined {
  const value = fields[key];
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

const plain = (value: string): Ref => ({ text: value });
const code = (value: string): Ref => ({ text: value, code: true });
const refs = (values: readonly string[], to: (value: string) => Ref): Ref[] => values.map(to);

// ---- shared pieces ---------------------------------------------------------------------------------------------

/** `sha256:` + the SHA-256 of a hex public key's bytes (of its text when it is not hex), in full. */
export function publicKeyFingerprint(publicKey: string): string {
  const bytes = /^(?:[0-9a-fA-F]{2})+$/.test(publicKey) ? hexToBytes(publicKey, 'public key') : utf8Encode(publicKey);
  return `sha256:${bytesToHex(sha256(bytes))}`;
}

function exportTarget(draft: Draft, publicKey: string): ExportDescription['target'] {
  const local = draft.lookup.localExportKeys?.find((key) => key.publicKey.toLowerCase() === publicKey.toLowerCase());
  if (local === undefined) {
    draft.warn(
      'The secret is sealed to a key this desktop does not hold. Only whoever holds that key can open it: confirm its fingerprint with them before you approve.',
    );
  }
  return { publicKey, fingerprint: publicKeyFingerprint(publicKey), localKeyName: local?.name };
}

/** "Ethereum m/44'/60'/0'/0/0", and the address when known. */
function account(fields: Fields): Ref {
  const format = text(fields, 'addressFormat');
  const path = text(fields, 'path') ?? '';
  const chain = format === undefined ? 'Account' : addressFormatInWords(format);
  const address = text(fields, 'address');
  return { text: `${chain} ${path}${address === undefined ? '' : ` ${address}`}`.trim(), code: false };
}

function accountsOfWallet(draft: Draft, walletId: string): Ref[] | undefined {
  const accounts = draft.lookup.walletAccounts?.filter((candidate) => candidate.walletId === walletId);
  return accounts?.map((existing) => account({ ...existing }));
}

/** A user's API keys, authenticators and OAuth providers: what they can sign in or sign with. */
function credentialCount(draft: Draft, userId: string): number | undefined {
  const user = draft.names.findUser(userId);
  return user === undefined ? undefined : user.apiKeys.length + user.authenticators.length + user.oauthProviders.length;
}

/** Warns when removing `removing` credentials leaves `userId` with none. */
function warnIfLastCredential(draft: Draft, userId: string, removing: number): void {
  const count = draft.beforeFrom(credentialCount(draft, userId));
  if (count !== undefined && removing >= count) {
    draft.warn(`${draft.names.user(userId).text} loses their last credential: they can no longer sign in or approve anything.`);
  }
}

function newUser(draft: Draft, user: Fields): void {
  const name = text(user, 'userName') ?? 'unnamed user';
  const apiKeys = records(user, 'apiKeys').map((key) => plain(text(key, 'apiKeyName') ?? 'unnamed API key'));
  const authenticators = records(user, 'authenticators').map((item) => plain(text(item, 'authenticatorName') ?? 'unnamed authenticator'));
  const providers = records(user, 'oauthProviders').map((item) => plain(text(item, 'providerName') ?? 'unnamed OAuth provider'));
  const tags = refs(texts(user, 'userTags'), (tagId) => draft.names.tag(tagId));
  draft.change(`User ${name}`, [], [plain(name)]);
  if (tags.length > 0) draft.change(`${name}: tags`, [], tags);
  if (apiKeys.length > 0) draft.change(`${name}: API keys`, [], apiKeys);
  if (authenticators.length > 0) draft.change(`${name}: authenticators`, [], authenticators);
  if (providers.length > 0) draft.change(`${name}: OAuth providers`, [], providers);
  const email = text(user, 'userEmail');
  if (email !== undefined && email !== '') draft.fact(`${name}: email`, plain(email));
  if (apiKeys.length + authenticators.length + providers.length === 0) {
    draft.warn(`${name} gets no credential: they cannot sign in or approve until one is added.`);
  }
}

const EVERYTHING = new Set(['', 'true']);

/**
 * A new policy's fields as changes from nothing, and the warning when it allows every activity. With several
 * policies in one activity each label starts with its policy's name.
 */
function newPolicy(draft: Draft, policy: Fields, several: boolean): void {
  const name = text(policy, 'policyName') ?? 'unnamed policy';
  const effect = text(policy, 'effect') ?? '';
  const condition = text(policy, 'condition') ?? '';
  const consensus = text(policy, 'consensus') ?? '';
  const label = (field: string) => (several ? `${name}: ${field.toLowerCase()}` : field);
  draft.change(several ? `Policy ${name}` : 'Name', [], [plain(name)]);
  draft.change(label('Effect'), [], [plain(effectInWords(effect))]);
  draft.change(label('Condition'), [], [expression(condition, 'every activity (no condition)')]);
  draft.change(label('Consensus'), [], [expression(consensus, 'no votes needed beyond the requester')]);
  const time = text(policy, 'time');
  if (time !== undefined && time !== '') draft.change(label('Active when'), [], [code(time)]);
  warnIfAllowsEverything(draft, name, effect, condition, consensus);
}

function expression(value: string, whenEmpty: string): Ref {
  return value.trim() === '' ? plain(whenEmpty) : code(value);
}

function warnIfAllowsEverything(draft: Draft, name: string, effect: string, condition: string, consensus: string): void {
  if (effect !== 'EFFECT_ALLOW' || !EVERYTHING.has(condition.trim())) return;
  draft.warn(
    EVERYTHING.has(consensus.trim())
      ? `Policy ${name} allows every activity to every user, with no approval from anyone else.`
      : `Policy ${name} allows every activity once its consensus is met; it has no condition limiting what.`,
  );
}

/** A wallet or private key deletion, with what Turnkey does about secrets that were never exported. */
function deleteSecrets(draft: Draft, kind: 'wallet' | 'private key', items: { ref: Ref; exported: boolean | undefined }[], fields: Fields): void {
  const withoutExport = fields['deleteWithoutExport'] === true;
  for (const item of items) draft.deletions.push({ what: item.ref, kind, ...(item.exported === undefined ? {} : { exported: item.exported }) });
  const unexported = items.filter((item) => item.exported === false).map((item) => item.ref.text);
  if (unexported.length === 0) return;
  const list = unexported.join(', ');
  draft.warn(
    withoutExport
      ? `${list} ${unexported.length === 1 ? 'was' : 'were'} never exported, and the request asks to delete anyway: no copy of ${unexported.length === 1 ? 'this' : 'these'} ${kind === 'wallet' ? 'seed' : 'key'}${unexported.length === 1 ? '' : 's'} exists, so any funds are lost for good.`
      : `${list} ${unexported.length === 1 ? 'was' : 'were'} never exported. The service refuses to delete an unexported ${kind} unless the request asks for it, and this one does not, so it will fail.`,
  );
}

function signing(draft: Draft, request: SigningRequest): void {
  const reading = draft.decodeSigning?.(request, { type: draft.type, intent: draft.intent });
  draft.signing = reading === undefined ? request : { ...request, decoded: reading.facts };
  if (reading !== undefined) {
    draft.title = reading.title;
    draft.summary = reading.summary;
    for (const warning of reading.warnings) draft.warn(warning);
  }
  const holder = draft.names.holderOf(request.signWith.text);
  draft.fact('Signs with', request.signWith, ...(holder === undefined ? [] : [{ ...holder, text: `in ${holder.text}` }]));
}

function signWith(fields: Fields): Ref {
  return code(text(fields, 'signWith') ?? text(fields, 'from') ?? 'not stated');
}

// ---- the describers --------------------------------------------------------------------------------------------

const vote =
  (title: string): Describer =>
  (fields, draft) => {
    draft.title = title;
    draft.fact('Fingerprint of the activity voted on', code(text(fields, 'fingerprint') ?? 'not stated'));
  };

const createPolicy: Describer = (fields, draft) => {
  draft.title = 'Create a policy';
  newPolicy(draft, fields, false);
  draft.summary = `${text(fields, 'policyName') ?? 'Unnamed'}: ${effectInWords(text(fields, 'effect') ?? '')}`;
};

const createPolicies: Describer = (fields, draft) => {
  const policies = records(fields, 'policies');
  draft.title = `Create ${counted(policies.length, 'policy', 'policies')}`;
  for (const policy of policies) newPolicy(draft, policy, true);
  draft.summary = policies.map((policy) => text(policy, 'policyName') ?? 'unnamed').join(', ');
};

const UPDATABLE_POLICY_FIELDS: readonly [intentField: string, label: string, stored: 'policyName' | 'effect' | 'condition' | 'consensus' | 'notes' | 'time'][] = [
  ['policyName', 'Name', 'policyName'],
  ['policyEffect', 'Effect', 'effect'],
  ['policyCondition', 'Condition', 'condition'],
  ['policyConsensus', 'Consensus', 'consensus'],
  ['policyNotes', 'Notes', 'notes'],
  ['time', 'Active when', 'time'],
];

const updatePolicy: Describer = (fields, draft) => {
  const policyId = text(fields, 'policyId') ?? '';
  const stored = draft.beforeFrom(draft.names.findPolicy(policyId));
  const name = draft.names.policy(policyId);
  draft.title = 'Change a policy';
  draft.fact('Policy', name);
  const shown = (field: string, value: string): Ref =>
    field === 'effect' ? plain(effectInWords(value)) : field === 'policyName' || field === 'notes' ? plain(value === '' ? 'none' : value) : expression(value, 'none');
  for (const [intentField, label, storedField] of UPDATABLE_POLICY_FIELDS) {
    const after = text(fields, intentField);
    if (after === undefined) continue;
    const before = stored?.[storedField] ?? (stored === undefined ? undefined : '');
    if (before === after) continue;
    draft.change(label, before === undefined ? undefined : [shown(storedField, before)], [shown(storedField, after)]);
  }
  if (draft.changes.length === 0 && stored !== undefined) draft.fact('Changes', plain('none: every field given equals the stored policy'));
  const effect = text(fields, 'policyEffect') ?? stored?.effect ?? '';
  const condition = text(fields, 'policyCondition') ?? stored?.condition;
  const consensus = text(fields, 'policyConsensus') ?? stored?.consensus ?? '';
  if (condition !== undefined) warnIfAllowsEverything(draft, name.text, effect, condition, consensus);
  draft.summary = `${name.text}: ${draft.changes.map((change) => change.label.toLowerCase()).join(', ') || 'no change'}`;
};

const deletePolicy: Describer = (fields, draft) => {
  const policyId = text(fields, 'policyId') ?? '';
  const stored = draft.names.findPolicy(policyId);
  draft.title = 'Delete a policy';
  draft.deletions.push({ what: draft.names.policy(policyId), kind: 'policy' });
  if (stored !== undefined) {
    draft.fact('Its effect', plain(effectInWords(stored.effect)));
    draft.fact('Its condition', expression(stored.condition, 'every activity (no condition)'));
    draft.fact('Its consensus', expression(stored.consensus, 'no votes needed beyond the requester'));
    if (stored.effect === 'EFFECT_DENY') draft.warn(`Deleting ${stored.policyName} lifts a deny: what it blocked may become allowed.`);
  }
  draft.summary = draft.names.policy(policyId).text;
};

const createWallet: Describer = (fields, draft) => {
  const name = text(fields, 'walletName') ?? 'unnamed wallet';
  const accounts = records(fields, 'accounts').map(account);
  draft.title = 'Create a wallet';
  draft.change('Wallet', [], [plain(name)]);
  draft.change('Accounts', [], accounts);
  const length = number(fields, 'mnemonicLength');
  if (length !== undefined) draft.fact('Seed phrase', plain(`${length} words`));
  draft.summary = `${name}, ${counted(accounts.length, 'account')}`;
};

const createWalletAccounts: Describer = (fields, draft) => {
  const walletId = text(fields, 'walletId') ?? '';
  const wallet = draft.names.wallet(walletId);
  const before = draft.beforeFrom(accountsOfWallet(draft, walletId));
  const added = records(fields, 'accounts').map(account);
  draft.title = 'Add accounts to a wallet';
  draft.fact('Wallet', wallet);
  if (before === undefined) draft.fact('Accounts added', ...added);
  else draft.change('Accounts', before, [...before, ...added]);
  draft.summary = `${wallet.text}: ${counted(added.length, 'new account')}`;
};

const deleteWallets: Describer = (fields, draft) => {
  const walletIds = texts(fields, 'walletIds');
  draft.title = `Delete ${counted(walletIds.length, 'wallet')}`;
  deleteSecrets(
    draft,
    'wallet',
    walletIds.map((walletId) => ({ ref: draft.names.wallet(walletId), exported: draft.names.findWallet(walletId)?.exported })),
    fields,
  );
  draft.summary = walletIds.map((walletId) => draft.names.wallet(walletId).text).join(', ');
};

const exportWallet: Describer = (fields, draft) => {
  const walletId = text(fields, 'walletId') ?? '';
  const wallet = draft.names.wallet(walletId);
  const accounts = accountsOfWallet(draft, walletId);
  draft.title = 'Export a wallet';
  draft.exports = {
    what: [wallet, plain(accounts === undefined ? 'its seed phrase (every account)' : `its seed phrase (${counted(accounts.length, 'account')})`)],
    target: exportTarget(draft, text(fields, 'targetPublicKey') ?? ''),
  };
  draft.summary = `${wallet.text} to ${draft.exports.target.localKeyName ?? 'an unknown key'}`;
};

const exportWalletAccount: Describer = (fields, draft) => {
  const address = text(fields, 'address') ?? '';
  const holder = draft.names.holderOf(address);
  draft.title = 'Export a wallet account';
  draft.exports = {
    what: [code(address), ...(holder === undefined ? [] : [{ ...holder, text: `of ${holder.text}` }]), plain('its private key')],
    target: exportTarget(draft, text(fields, 'targetPublicKey') ?? ''),
  };
  draft.summary = `${address} to ${draft.exports.target.localKeyName ?? 'an unknown key'}`;
};

const initImport =
  (what: string): Describer =>
  (fields, draft) => {
    draft.title = `Prepare to import a ${what}`;
    draft.fact('For user', draft.names.user(text(fields, 'userId') ?? ''));
    draft.fact('What happens', plain(`the service makes a one-time key that the ${what} will be encrypted to`));
  };

const importWallet: Describer = (fields, draft) => {
  const name = text(fields, 'walletName') ?? 'unnamed wallet';
  draft.title = 'Import a wallet';
  draft.fact('For user', draft.names.user(text(fields, 'userId') ?? ''));
  draft.change('Wallet', [], [plain(name)]);
  draft.change('Accounts', [], records(fields, 'accounts').map(account));
  draft.summary = name;
};

const createPrivateKeys: Describer = (fields, draft) => {
  const keys = records(fields, 'privateKeys');
  draft.title = `Create ${counted(keys.length, 'private key')}`;
  for (const key of keys) {
    const name = text(key, 'privateKeyName') ?? 'unnamed key';
    draft.change(`Private key ${name}`, [], [plain(`${curveInWords(text(key, 'curve') ?? '')}: ${texts(key, 'addressFormats').map(addressFormatInWords).join(', ') || 'no addresses'}`)]);
    const tags = texts(key, 'privateKeyTags').map((tagId) => draft.names.tag(tagId));
    if (tags.length > 0) draft.change(`${name}: tags`, [], tags);
  }
  draft.summary = keys.map((key) => text(key, 'privateKeyName') ?? 'unnamed').join(', ');
};

const deletePrivateKeys: Describer = (fields, draft) => {
  const keyIds = texts(fields, 'privateKeyIds');
  draft.title = `Delete ${counted(keyIds.length, 'private key')}`;
  deleteSecrets(
    draft,
    'private key',
    keyIds.map((keyId) => ({ ref: draft.names.privateKey(keyId), exported: draft.names.findPrivateKey(keyId)?.exported })),
    fields,
  );
  draft.summary = keyIds.map((keyId) => draft.names.privateKey(keyId).text).join(', ');
};

const exportPrivateKey: Describer = (fields, draft) => {
  const key = draft.names.privateKey(text(fields, 'privateKeyId') ?? '');
  draft.title = 'Export a private key';
  draft.exports = { what: [key], target: exportTarget(draft, text(fields, 'targetPublicKey') ?? '') };
  draft.summary = `${key.text} to ${draft.exports.target.localKeyName ?? 'an unknown key'}`;
};

const importPrivateKey: Describer = (fields, draft) => {
  const name = text(fields, 'privateKeyName') ?? 'unnamed key';
  draft.title = 'Import a private key';
  draft.fact('For user', draft.names.user(text(fields, 'userId') ?? ''));
  draft.change('Private key', [], [plain(`${name} (${curveInWords(text(fields, 'curve') ?? '')})`)]);
  draft.fact('Addresses', ...texts(fields, 'addressFormats').map((format) => plain(addressFormatInWords(format))));
  draft.summary = name;
};

const createUsers: Describer = (fields, draft) => {
  const users = records(fields, 'users');
  draft.title = `Create ${counted(users.length, 'user')}`;
  for (const user of users) newUser(draft, user);
  draft.summary = users.map((user) => text(user, 'userName') ?? 'unnamed').join(', ');
};

const updateUser: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  const user = draft.beforeFrom(draft.names.findUser(userId));
  draft.title = 'Change a user';
  draft.fact('User', draft.names.user(userId));
  const name = text(fields, 'userName');
  if (name !== undefined && name !== user?.userName) draft.change('Name', user === undefined ? undefined : [plain(user.userName)], [plain(name)]);
  const email = text(fields, 'userEmail');
  if (email !== undefined) draft.change('Email', undefined, [plain(email === '' ? 'none' : email)]);
  const phone = text(fields, 'userPhoneNumber');
  if (phone !== undefined) draft.change('Phone number', undefined, [plain(phone === '' ? 'none' : phone)]);
  if (Array.isArray(fields['userTagIds'])) {
    draft.change(
      'Tags',
      user?.userTags.map((tagId) => draft.names.tag(tagId)),
      texts(fields, 'userTagIds').map((tagId) => draft.names.tag(tagId)),
    );
  }
  draft.summary = draft.names.user(userId).text;
};

const updateUserName: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  const user = draft.beforeFrom(draft.names.findUser(userId));
  draft.title = 'Rename a user';
  draft.change('Name', user === undefined ? undefined : [plain(user.userName)], [plain(text(fields, 'userName') ?? '')]);
  draft.summary = user === undefined ? `to ${text(fields, 'userName') ?? ''}` : `${user.userName} → ${text(fields, 'userName') ?? ''}`;
};

const deleteUsers: Describer = (fields, draft) => {
  const userIds = texts(fields, 'userIds');
  draft.title = `Delete ${counted(userIds.length, 'user')}`;
  for (const userId of userIds) draft.deletions.push({ what: draft.names.user(userId), kind: 'user' });
  const quorum = draft.beforeFrom(draft.lookup.rootQuorum);
  if (quorum !== undefined) {
    const leaving = userIds.filter((userId) => quorum.userIds.includes(userId));
    const remaining = quorum.userIds.length - leaving.length;
    for (const userId of leaving) draft.warn(`${draft.names.user(userId).text} is a root quorum member: the quorum loses a member.`);
    if (leaving.length > 0 && remaining < quorum.threshold) {
      draft.warn(`The root quorum needs ${quorum.threshold} approvals but would keep only ${remaining} members: it could approve nothing more.`);
    }
  }
  draft.summary = userIds.map((userId) => draft.names.user(userId).text).join(', ');
};

const createUserTag: Describer = (fields, draft) => {
  const tagName = text(fields, 'userTagName') ?? 'unnamed tag';
  draft.title = 'Create a user tag';
  draft.change('Tag', [], [plain(tagName)]);
  for (const userId of texts(fields, 'userIds')) {
    const before = draft.beforeFrom(draft.names.findUser(userId))?.userTags.map((tagId) => draft.names.tag(tagId));
    draft.change(`${draft.names.user(userId).text}: tags`, before, [...(before ?? []), plain(tagName)]);
  }
  draft.summary = tagName;
};

const deleteUserTags: Describer = (fields, draft) => {
  const tagIds = texts(fields, 'userTagIds');
  draft.title = `Delete ${counted(tagIds.length, 'user tag')}`;
  for (const tagId of tagIds) draft.deletions.push({ what: draft.names.tag(tagId), kind: 'user tag' });
  for (const user of draft.lookup.users ?? []) {
    if (!user.userTags.some((tagId) => tagIds.includes(tagId))) continue;
    draft.change(
      `${user.userName}: tags`,
      user.userTags.map((tagId) => draft.names.tag(tagId)),
      user.userTags.filter((tagId) => !tagIds.includes(tagId)).map((tagId) => draft.names.tag(tagId)),
    );
  }
  draft.fact('Note', plain('policies that name these tags stop matching anyone'));
  draft.summary = tagIds.map((tagId) => draft.names.tag(tagId).text).join(', ');
};

type CredentialKind = 'apiKeys' | 'authenticators' | 'oauthProviders';
/** `label` heads a change; `one` and `many` go inside a sentence. */
const CREDENTIALS: Readonly<Record<CredentialKind, { label: string; one: string; many: string; idField: string; nameField: string }>> = {
  apiKeys: { label: 'API keys', one: 'API key', many: 'API keys', idField: 'apiKeyId', nameField: 'apiKeyName' },
  authenticators: { label: 'Authenticators', one: 'authenticator', many: 'authenticators', idField: 'authenticatorId', nameField: 'authenticatorName' },
  oauthProviders: { label: 'OAuth providers', one: 'OAuth provider', many: 'OAuth providers', idField: 'providerId', nameField: 'providerName' },
};

function existingCredentials(draft: Draft, userId: string, kind: CredentialKind): Ref[] | undefined {
  const user = draft.beforeFrom(draft.names.findUser(userId));
  if (user === undefined) return undefined;
  const { idField, nameField } = CREDENTIALS[kind];
  return (user[kind] as readonly Fields[]).map((item) => ({ text: text(item, nameField) || (text(item, idField) ?? ''), id: text(item, idField) ?? '' }));
}

const addCredentials =
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

const removeCredentials =
  (kind: CredentialKind, idsField: string): Describer =>
  (fields, draft) => {
    const userId = text(fields, 'userId') ?? '';
    const { label, one, many } = CREDENTIALS[kind];
    const removed = texts(fields, idsField);
    draft.title = `Remove ${many}`;
    draft.fact('User', draft.names.user(userId));
    const before = existingCredentials(draft, userId, kind);
    if (before !== undefined) draft.change(label, before, before.filter((ref) => !removed.includes(ref.id ?? '')));
    for (const credentialId of removed) {
      const known = before?.find((ref) => ref.id === credentialId);
      draft.deletions.push({ what: known ?? code(credentialId), kind: one });
    }
    warnIfLastCredential(draft, userId, removed.length);
    draft.summary = `${draft.names.user(userId).text}: ${counted(removed.length, one)}`;
  };

const updateRootQuorum: Describer = (fields, draft) => {
  const userIds = texts(fields, 'userIds');
  const threshold = number(fields, 'threshold');
  const before = draft.beforeFrom(draft.lookup.rootQuorum);
  draft.title = 'Change the root quorum';
  draft.change('Members', before?.userIds.map((userId) => draft.names.user(userId)), userIds.map((userId) => draft.names.user(userId)));
  draft.change(
    'Approvals needed',
    before === undefined ? undefined : [plain(`${before.threshold} of ${before.userIds.length}`)],
    [plain(threshold === undefined ? 'not stated' : `${threshold} of ${userIds.length}`)],
  );
  if (userIds.length === 1) {
    draft.warn(`The root quorum drops to one member: ${draft.names.user(userIds[0]!).text} alone can approve anything, including changing the quorum again.`);
  } else if (threshold === 1 && userIds.length > 1) {
    draft.warn('Any one quorum member alone can approve anything, including changing the quorum again.');
  }
  if (threshold !== undefined && threshold > userIds.length) {
    draft.warn(`It asks for ${threshold} approvals from ${counted(userIds.length, 'member')}: the service refuses a quorum that can never be met.`);
  }
  const leaving = before?.userIds.filter((userId) => !userIds.includes(userId)) ?? [];
  if (leaving.length > 0) draft.fact('Leaving the quorum', ...leaving.map((userId) => draft.names.user(userId)));
  draft.summary = `${userIds.map((userId) => draft.names.user(userId).text).join(', ')}; ${threshold ?? '?'} of ${userIds.length}`;
};

const createSubOrganization: Describer = (fields, draft) => {
  const name = text(fields, 'subOrganizationName') ?? 'unnamed';
  const rootUsers = records(fields, 'rootUsers');
  draft.title = 'Create a sub-organization';
  draft.change('Sub-organization', [], [plain(name)]);
  draft.change('Its root users', [], rootUsers.map((user) => plain(text(user, 'userName') ?? 'unnamed user')));
  const threshold = number(fields, 'rootQuorumThreshold');
  if (threshold !== undefined) draft.change('Its approvals needed', [], [plain(`${threshold} of ${rootUsers.length}`)]);
  const wallet = record(fields, 'wallet');
  if (wallet !== undefined) draft.change('Its wallet', [], [plain(text(wallet, 'walletName') ?? 'unnamed'), ...records(wallet, 'accounts').map(account)]);
  draft.summary = name;
};

const deleteSubOrganization: Describer = (fields, draft) => {
  draft.title = 'Delete this sub-organization';
  draft.deletions.push({ what: plain(draft.lookup.organizationName ?? 'this organization'), kind: 'organization' });
  draft.warn('Everything in the organization is destroyed: its users, policies, wallets and private keys.');
  draft.warn(
    fields['deleteWithoutExport'] === true
      ? 'The request asks to delete even wallets and keys that were never exported: their funds are lost for good.'
      : 'The service refuses if any wallet or key in it was never exported, as this request does not ask to delete anyway.',
  );
};

const oauthLogin: Describer = (fields, draft) => {
  draft.title = 'Sign in with OAuth';
  draft.fact('Session key', code(text(fields, 'publicKey') ?? ''));
  const seconds = number(fields, 'expirationSeconds');
  if (seconds !== undefined) draft.fact('Session lasts', plain(`${seconds} seconds`));
  if (fields['invalidateExisting'] === true) draft.fact('Existing sessions', plain('ended'));
};

const createSessionProfile: Describer = (fields, draft) => {
  const name = text(fields, 'sessionProfileName') ?? 'unnamed';
  draft.title = 'Create a session profile';
  draft.change('Session profile', [], [plain(name)]);
  draft.change('Scope', [], [expression(text(fields, 'scope') ?? '', 'everything (no limit)')]);
  const seconds = number(fields, 'expirationSeconds');
  if (seconds !== undefined) draft.change('Sessions last', [], [plain(`${seconds} seconds`)]);
  if (EVERYTHING.has((text(fields, 'scope') ?? '').trim())) draft.warn(`Session profile ${name} limits nothing: its sessions may do all their user may.`);
  draft.summary = name;
};

const createSmartContractInterface: Describer = (fields, draft) => {
  const label = text(fields, 'label') ?? 'unnamed';
  draft.title = 'Add a smart contract interface';
  draft.change('Interface', [], [plain(label)]);
  draft.fact('Contract', code(text(fields, 'smartContractAddress') ?? ''));
  draft.fact('Kind', plain(enumInWords(text(fields, 'type') ?? '', 'SMART_CONTRACT_INTERFACE_TYPE_')));
  draft.summary = label;
};

const deleteById =
  (title: string, kind: string, field: string): Describer =>
  (fields, draft) => {
    draft.title = title;
    draft.deletions.push({ what: code(text(fields, field) ?? ''), kind });
  };

const createTvcApp: Describer = (fields, draft) => {
  const name = text(fields, 'name') ?? 'unnamed';
  draft.title = 'Create a TVC app';
  draft.change('App', [], [plain(name)]);
  draft.fact('Quorum public key', code(text(fields, 'quorumPublicKey') ?? ''));
  for (const [field, label] of [
    ['manifestSetParams', 'Manifest set'],
    ['shareSetParams', 'Share set'],
  ] as const) {
    const set = record(fields, field);
    if (set !== undefined) draft.change(label, [], [plain(text(set, 'name') ?? 'unnamed'), ...records(set, 'newOperators').map((operator) => plain(text(operator, 'name') ?? 'operator'))]);
  }
  if (fields['enableDebugModeDeployments'] === true) draft.warn('Debug-mode deployments are allowed: their secrets are not protected by the enclave.');
  draft.summary = name;
};

const signRawPayload: Describer = (fields, draft) => {
  draft.title = 'Sign a payload';
  const request: SigningRequest = {
    signWith: signWith(fields),
    payloads: [text(fields, 'payload') ?? ''],
    facts: payloadFacts(fields),
  };
  draft.summary = `with ${request.signWith.text}`;
  signing(draft, request);
};

const signRawPayloads: Describer = (fields, draft) => {
  const payloads = texts(fields, 'payloads');
  draft.title = `Sign ${counted(payloads.length, 'payload')}`;
  draft.summary = `with ${text(fields, 'signWith') ?? 'not stated'}`;
  signing(draft, { signWith: signWith(fields), payloads, facts: payloadFacts(fields) });
};

function payloadFacts(fields: Fields): Fact[] {
  const facts: Fact[] = [];
  const encoding = text(fields, 'encoding');
  if (encoding !== undefined) facts.push({ label: 'Payload encoding', value: [plain(enumInWords(encoding, 'PAYLOAD_ENCODING_'))] });
  const hash = text(fields, 'hashFunction');
  if (hash !== undefined) facts.push({ label: 'Hashed with', value: [plain(enumInWords(hash, 'HASH_FUNCTION_'))] });
  return facts;
}

const signTransaction: Describer = (fields, draft) => {
  const type = text(fields, 'type');
  draft.title = 'Sign a transaction';
  const request: SigningRequest = {
    signWith: signWith(fields),
    payloads: [text(fields, 'unsignedTransaction') ?? ''],
    facts: type === undefined ? [] : [{ label: 'Transaction type', value: [plain(enumInWords(type, 'TRANSACTION_TYPE_'))] }],
  };
  draft.summary = `${type === undefined ? '' : `${enumInWords(type, 'TRANSACTION_TYPE_')} `}with ${request.signWith.text}`;
  signing(draft, request);
};

const sendTransaction: Describer = (fields, draft) => {
  draft.title = 'Sign and send a transaction';
  const payload = text(fields, 'unsignedTransaction');
  const facts: Fact[] = [];
  for (const [field, label] of [
    ['caip2', 'Network'],
    ['to', 'To'],
    ['value', 'Value'],
    ['data', 'Data'],
    ['nonce', 'Nonce'],
  ] as const) {
    const value = text(fields, field);
    if (value !== undefined && value !== '') facts.push({ label, value: [code(value)] });
  }
  if (fields['sponsor'] === true) facts.push({ label: 'Fees', value: [plain('paid by the gas station')] });
  draft.summary = `from ${signWith(fields).text}`;
  signing(draft, { signWith: signWith(fields), payloads: payload === undefined ? [] : [payload], facts });
};

const sparkLightningReceive: Describer = (fields, draft) => {
  draft.title = 'Prepare a Spark Lightning receive';
  const lightning = record(fields, 'lightningReceive');
  draft.summary = `for ${signWith(fields).text}`;
  signing(draft, { signWith: signWith(fields), payloads: [], facts: [] });
  if (lightning !== undefined) draft.fact('Payment hash', code(text(lightning, 'paymentHash') ?? ''));
};

// ---- everyday edits, logins and key tags -----------------------------------------------------------------------

const updateWallet: Describer = (fields, draft) => {
  const walletId = text(fields, 'walletId') ?? '';
  const wallet = draft.beforeFrom(draft.names.findWallet(walletId));
  const name = text(fields, 'walletName');
  draft.title = 'Rename a wallet';
  if (name !== undefined) draft.change('Name', wallet === undefined ? undefined : [plain(wallet.walletName)], [plain(name)]);
  draft.summary = draft.names.wallet(walletId).text;
};

const deleteWalletAccounts: Describer = (fields, draft) => {
  const accountIds = texts(fields, 'walletAccountIds');
  draft.title = `Delete ${counted(accountIds.length, 'wallet account')}`;
  for (const accountId of accountIds) draft.deletions.push({ what: code(accountId), kind: 'wallet account' });
  if (fields['deleteWithoutExport'] === true) draft.warn('Accounts of wallets never exported are deleted too: their keys cannot be recovered.');
};

const deletePolicies: Describer = (fields, draft) => {
  const policyIds = texts(fields, 'policyIds');
  draft.title = `Delete ${counted(policyIds.length, 'policy')}`;
  for (const policyId of policyIds) draft.deletions.push({ what: draft.names.policy(policyId), kind: 'policy' });
  for (const policyId of policyIds) {
    const stored = draft.names.findPolicy(policyId);
    if (stored?.effect === 'EFFECT_DENY') draft.warn(`Deleting ${stored.policyName} lifts a deny: what it blocked may become allowed.`);
  }
  draft.summary = policyIds.map((policyId) => draft.names.policy(policyId).text).join(', ');
};

const updateUserTag: Describer = (fields, draft) => {
  const tagId = text(fields, 'userTagId') ?? '';
  draft.title = 'Change a user tag';
  const name = text(fields, 'newUserTagName');
  if (name !== undefined) draft.change('Name', [draft.names.tag(tagId)], [plain(name)]);
  draft.fact('Users added', ...refs(texts(fields, 'addUserIds'), (userId) => draft.names.user(userId)));
  draft.fact('Users removed', ...refs(texts(fields, 'removeUserIds'), (userId) => draft.names.user(userId)));
  draft.summary = draft.names.tag(tagId).text;
};

const updateContact =
  (label: string, field: string): Describer =>
  (fields, draft) => {
    const userId = text(fields, 'userId') ?? '';
    draft.title = `Change a user's ${label.toLowerCase()}`;
    draft.change(label, undefined, [plain(text(fields, field) ?? '')]);
    if (text(fields, 'verificationToken') !== undefined) draft.fact('Verified', plain('yes, by a one-time code'));
    draft.summary = draft.names.user(userId).text;
  };

const updateOrganizationName: Describer = (fields, draft) => {
  draft.title = 'Rename the organization';
  draft.change('Name', undefined, [plain(text(fields, 'organizationName') ?? '')]);
};

const setOrganizationFeature: Describer = (fields, draft) => {
  const name = text(fields, 'name') ?? 'not stated';
  const value = text(fields, 'value');
  draft.title = 'Turn on an organization feature';
  draft.change(enumInWords(name, 'FEATURE_NAME_'), undefined, [plain(value === undefined || value === '' ? 'on' : `on: ${value}`)]);
  draft.summary = enumInWords(name, 'FEATURE_NAME_');
};

const removeOrganizationFeature: Describer = (fields, draft) => {
  const name = text(fields, 'name') ?? 'not stated';
  draft.title = 'Turn off an organization feature';
  draft.deletions.push({ what: code(name), kind: 'organization feature' });
};

const createInvitations: Describer = (fields, draft) => {
  const invitations = records(fields, 'invitations');
  draft.title = `Invite ${counted(invitations.length, 'person', 'people')} to the organization`;
  for (const invitation of invitations) {
    const name = text(invitation, 'receiverUserName') ?? 'unnamed';
    const email = text(invitation, 'receiverUserEmail');
    draft.change('Invitation', [], [plain(email === undefined ? name : `${name} <${email}>`)]);
    const access = text(invitation, 'accessType');
    if (access !== undefined) draft.fact(`${name}: access`, plain(enumInWords(access, 'ACCESS_TYPE_')));
    draft.fact(`${name}: tags`, ...refs(texts(invitation, 'receiverUserTags'), (tagId) => draft.names.tag(tagId)));
    const sender = text(invitation, 'senderUserId');
    if (sender !== undefined) draft.fact(`${name}: invited by`, draft.names.user(sender));
  }
};

const setIpAllowlist: Describer = (fields, draft) => {
  const publicKey = text(fields, 'publicKey');
  draft.title = publicKey === undefined ? 'Set the organization’s IP allowlist' : 'Set an API key’s IP allowlist';
  if (publicKey !== undefined) draft.fact('API key', code(publicKey));
  const rules = records(fields, 'rules');
  if (rules.length > 0) {
    draft.change('Allowed addresses', undefined, rules.map((rule) => plain(text(rule, 'label') === undefined ? (text(rule, 'cidr') ?? '') : `${text(rule, 'cidr') ?? ''} (${text(rule, 'label')})`)));
  }
  const enabled = fields['enabled'];
  if (typeof enabled === 'boolean') draft.change('Enforced', undefined, [plain(enabled ? 'yes' : 'no')]);
  const onError = text(fields, 'onEvaluationError');
  if (onError !== undefined) draft.fact('When an address cannot be checked', plain(onError === 'ALLOW' ? 'allow' : 'refuse'));
  if (publicKey === undefined && enabled !== false) draft.warn('Requests from addresses outside the allowlist will be refused, including this app’s if it is not inside it.');
};

const removeIpAllowlist: Describer = (fields, draft) => {
  const publicKey = text(fields, 'publicKey');
  draft.title = publicKey === undefined ? 'Remove the organization’s IP allowlist' : 'Remove an API key’s IP allowlist';
  draft.deletions.push({ what: code(publicKey ?? 'organization'), kind: 'IP allowlist' });
};

const createApiOnlyUsers: Describer = (fields, draft) => {
  const users = records(fields, 'apiOnlyUsers');
  draft.title = `Create ${counted(users.length, 'API-only user')}`;
  for (const user of users) draft.change('User', [], [plain(text(user, 'userName') ?? 'unnamed')]);
};

const login =
  (title: string, keyField: string | undefined): Describer =>
  (fields, draft) => {
    draft.title = title;
    if (keyField !== undefined) draft.fact('Session key', code(text(fields, keyField) ?? ''));
    const seconds = number(fields, 'expirationSeconds');
    if (seconds !== undefined) draft.fact('Session lasts', plain(`${seconds} seconds`));
    if (fields['invalidateExisting'] === true) draft.fact('Existing sessions', plain('ended'));
  };

const emailed =
  (title: string): Describer =>
  (fields, draft) => {
    draft.title = title;
    draft.fact('Email', plain(text(fields, 'email') ?? ''));
    draft.fact('Sealed to', code(text(fields, 'targetPublicKey') ?? ''));
  };

const recoverUser: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  draft.title = 'Recover a user with a new passkey';
  draft.change('Passkey', [], [plain(text(record(fields, 'authenticator') ?? {}, 'authenticatorName') ?? 'unnamed')]);
  draft.summary = draft.names.user(userId).text;
};

const initOtp: Describer = (fields, draft) => {
  draft.title = 'Send a one-time code';
  draft.fact('To', plain(text(fields, 'contact') ?? ''));
};

const verifyOtp: Describer = (fields, draft) => {
  draft.title = 'Check a one-time code';
  draft.fact('Code', code(text(fields, 'otpId') ?? ''));
};

/**
 * otp_auth and oauth: a credential key of the user the code or token names, sealed to the client's key. The OTP is
 * named by its id; an OIDC token is not shown, as it is a credential.
 */
const signInWithKey =
  (title: string, otpField?: string): Describer =>
  (fields, draft) => {
    draft.title = title;
    if (otpField !== undefined) draft.fact('Code', code(text(fields, otpField) ?? ''));
    draft.fact('Sealed to', code(text(fields, 'targetPublicKey') ?? ''));
    const seconds = number(fields, 'expirationSeconds');
    if (seconds !== undefined) draft.fact('Key lasts', plain(`${seconds} seconds`));
    if (fields['invalidateExisting'] === true) draft.fact('Existing keys', plain('removed'));
  };

const deletePrivateKeyTags: Describer = (fields, draft) => {
  const tagIds = texts(fields, 'privateKeyTagIds');
  draft.title = `Delete ${counted(tagIds.length, 'private key tag')}`;
  for (const tagId of tagIds) draft.deletions.push({ what: code(tagId), kind: 'private key tag' });
};

const createPrivateKeyTag: Describer = (fields, draft) => {
  const name = text(fields, 'privateKeyTagName') ?? 'unnamed tag';
  draft.title = 'Create a private key tag';
  draft.change('Tag', [], [plain(name)]);
  draft.fact('Keys', ...refs(texts(fields, 'privateKeyIds'), (privateKeyId) => draft.names.privateKey(privateKeyId)));
  draft.summary = name;
};

const updatePrivateKeyTag: Describer = (fields, draft) => {
  draft.title = 'Change a private key tag';
  const name = text(fields, 'newPrivateKeyTagName');
  if (name !== undefined) draft.change('Name', undefined, [plain(name)]);
  draft.fact('Keys added', ...refs(texts(fields, 'addPrivateKeyIds'), (privateKeyId) => draft.names.privateKey(privateKeyId)));
  draft.fact('Keys removed', ...refs(texts(fields, 'removePrivateKeyIds'), (privateKeyId) => draft.names.privateKey(privateKeyId)));
};

/**
 * Every activity type QuorumKey describes. The service's current types come from its operation table; the signing
 * types are here ahead of the service so their approvals read right the day they arrive.
 */
export const DESCRIBERS: Readonly<Record<string, Describer>> = {
  ACTIVITY_TYPE_APPROVE_ACTIVITY: vote('Approve an activity'),
  ACTIVITY_TYPE_REJECT_ACTIVITY: vote('Reject an activity'),

  ACTIVITY_TYPE_CREATE_POLICY_V3: createPolicy,
  ACTIVITY_TYPE_CREATE_POLICIES: createPolicies,
  ACTIVITY_TYPE_UPDATE_POLICY_V2: updatePolicy,
  ACTIVITY_TYPE_DELETE_POLICY: deletePolicy,

  ACTIVITY_TYPE_CREATE_WALLET: createWallet,
  ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS: createWalletAccounts,
  ACTIVITY_TYPE_DELETE_WALLETS: deleteWallets,
  ACTIVITY_TYPE_EXPORT_WALLET: exportWallet,
  ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: exportWalletAccount,
  ACTIVITY_TYPE_INIT_IMPORT_WALLET: initImport('wallet'),
  ACTIVITY_TYPE_IMPORT_WALLET: importWallet,

  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2: createPrivateKeys,
  ACTIVITY_TYPE_DELETE_PRIVATE_KEYS: deletePrivateKeys,
  ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: exportPrivateKey,
  ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY: initImport('private key'),
  ACTIVITY_TYPE_IMPORT_PRIVATE_KEY: importPrivateKey,

  ACTIVITY_TYPE_CREATE_USERS_V4: createUsers,
  ACTIVITY_TYPE_UPDATE_USER: updateUser,
  ACTIVITY_TYPE_UPDATE_USER_NAME: updateUserName,
  ACTIVITY_TYPE_DELETE_USERS: deleteUsers,
  ACTIVITY_TYPE_CREATE_USER_TAG: createUserTag,
  ACTIVITY_TYPE_DELETE_USER_TAGS: deleteUserTags,

  ACTIVITY_TYPE_CREATE_API_KEYS_V2: addCredentials('apiKeys', 'apiKeys'),
  ACTIVITY_TYPE_DELETE_API_KEYS: removeCredentials('apiKeys', 'apiKeyIds'),
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: addCredentials('authenticators', 'authenticators'),
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: removeCredentials('authenticators', 'authenticatorIds'),
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2: addCredentials('oauthProviders', 'oauthProviders'),
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: removeCredentials('oauthProviders', 'providerIds'),

  ACTIVITY_TYPE_UPDATE_ROOT_QUORUM: updateRootQuorum,
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8: createSubOrganization,
  ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION: deleteSubOrganization,

  ACTIVITY_TYPE_OAUTH_LOGIN: oauthLogin,
  ACTIVITY_TYPE_CREATE_SESSION_PROFILE: createSessionProfile,

  ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE: createSmartContractInterface,
  ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE: deleteById('Remove a smart contract interface', 'smart contract interface', 'smartContractInterfaceId'),

  ACTIVITY_TYPE_CREATE_TVC_APP: createTvcApp,
  ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS: deleteById('Delete a TVC app and its deployments', 'TVC app', 'appId'),

  ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE: sparkLightningReceive,

  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: signRawPayload,
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: signRawPayloads,
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: signTransaction,
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2: sendTransaction,
  ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2: sendTransaction,

  ACTIVITY_TYPE_UPDATE_WALLET: updateWallet,
  ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS: deleteWalletAccounts,
  ACTIVITY_TYPE_DELETE_POLICIES: deletePolicies,
  ACTIVITY_TYPE_UPDATE_USER_TAG: updateUserTag,
  ACTIVITY_TYPE_UPDATE_USER_EMAIL: updateContact('Email', 'userEmail'),
  ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER: updateContact('Phone number', 'userPhoneNumber'),
  ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME: updateOrganizationName,
  ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE: setOrganizationFeature,
  ACTIVITY_TYPE_SET_IP_ALLOWLIST: setIpAllowlist,
  ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST: removeIpAllowlist,
  ACTIVITY_TYPE_CREATE_INVITATIONS: createInvitations,
  ACTIVITY_TYPE_DELETE_INVITATION: deleteById('Withdraw an invitation', 'invitation', 'invitationId'),
  ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE: removeOrganizationFeature,
  ACTIVITY_TYPE_CREATE_API_ONLY_USERS: createApiOnlyUsers,
  ACTIVITY_TYPE_STAMP_LOGIN: login('Sign in with a stamp', 'publicKey'),
  ACTIVITY_TYPE_OTP_LOGIN_V2: login('Sign in with a one-time code', 'publicKey'),
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: login('Open a read-write session', undefined),
  ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION: login('Open a read-only session', undefined),
  ACTIVITY_TYPE_EMAIL_AUTH_V3: emailed('Email a sign-in key'),
  ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2: emailed('Email a recovery key'),
  ACTIVITY_TYPE_RECOVER_USER: recoverUser,
  ACTIVITY_TYPE_INIT_OTP_V3: initOtp,
  ACTIVITY_TYPE_VERIFY_OTP_V2: verifyOtp,
  ACTIVITY_TYPE_INIT_OTP_AUTH: initOtp,
  ACTIVITY_TYPE_INIT_OTP_AUTH_V2: initOtp,
  ACTIVITY_TYPE_INIT_OTP_AUTH_V3: initOtp,
  ACTIVITY_TYPE_OTP_AUTH: signInWithKey('Sign in with a one-time code', 'otpId'),
  ACTIVITY_TYPE_OAUTH: signInWithKey('Sign in with an OAuth token'),
  ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG: createPrivateKeyTag,
  ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG: updatePrivateKeyTag,
  ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS: deletePrivateKeyTags,
};

