/**
 * Activities in words, for people deciding whether to vote for them: the type as a phrase and what the intent is
 * about (which wallet, key, policy, user or address), read from the intent's own fields.
 */
/** Words that read better in their usual spelling than lower-cased. */
const SPELLINGS: Record<string, string> = {
  API: 'API',
  OAUTH: 'OAuth',
  OTP: 'OTP',
  TVC: 'TVC',
  V2: '(v2)',
  V3: '(v3)',
  V4: '(v4)',
  V5: '(v5)',
  V6: '(v6)',
  V7: '(v7)',
};

/** `ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2` → `Create private keys (v2)`. */
export function activityTypeInWords(type: string): string {
  const words = type
    .replace(/^ACTIVITY_TYPE_/, '')
    .split('_')
    .filter((word) => word !== '')
    .map((word) => SPELLINGS[word] ?? word.toLowerCase());
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

export interface IntentFact {
  /** What the value names: "wallet", "policy", "user"… */
  label: string;
  value: string;
}

/** Intent fields that say what an activity acts on, in the order they are shown. */
const SUBJECT_FIELDS: readonly [field: string, label: string][] = [
  ['walletName', 'wallet name'],
  ['walletId', 'wallet'],
  ['privateKeyName', 'private key name'],
  ['privateKeyId', 'private key'],
  ['address', 'address'],
  ['policyName', 'policy name'],
  ['policyId', 'policy'],
  ['effect', 'effect'],
  ['policyEffect', 'effect'],
  ['userName', 'user name'],
  ['userId', 'user'],
  ['apiKeyId', 'API key'],
  ['authenticatorId', 'authenticator'],
  ['organizationId', 'organization'],
  ['subOrganizationName', 'sub-organization'],
  ['targetPublicKey', 'encrypted to'],
  ['condition', 'condition'],
  ['policyCondition', 'condition'],
  ['consensus', 'consensus'],
  ['policyConsensus', 'consensus'],
  ['fingerprint', 'voting on'],
];

/** Lists whose items carry names worth showing (e.g. the users of create_users). */
const NAMED_LISTS: readonly [field: string, nameField: string, label: string][] = [
  ['users', 'userName', 'user'],
  ['privateKeys', 'privateKeyName', 'private key'],
  ['apiKeys', 'apiKeyName', 'API key'],
  ['accounts', 'path', 'account path'],
  ['userIds', '', 'user'],
  ['apiKeyIds', '', 'API key'],
  ['privateKeyIds', '', 'private key'],
  ['walletIds', '', 'wallet'],
];

const MAX_VALUE_LENGTH = 120;

/** The facts of an activity's intent, e.g. `[{label: 'wallet', value: '3f…'}]`; unknown fields are left out. */
export function intentFacts(activity: { intent: Record<string, unknown> }): IntentFact[] {
  const member = Object.values(activity.intent)[0];
  if (typeof member !== 'object' || member === null) return [];
  const fields = member as Record<string, unknown>;
  const facts: IntentFact[] = [];
  for (const [field, label] of SUBJECT_FIELDS) {
    const value = fields[field];
    if (typeof value === 'string' && value !== '') facts.push({ label, value: clip(value) });
  }
  for (const [field, nameField, label] of NAMED_LISTS) {
    const list = fields[field];
    if (!Array.isArray(list) || list.length === 0) continue;
    const names = list.map((item: unknown) =>
      nameField === '' ? item : typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[nameField] : undefined,
    );
    const shown = names.filter((name): name is string => typeof name === 'string' && name !== '');
    if (shown.length > 0) facts.push({ label: shown.length === 1 ? label : `${label}s`, value: clip(shown.join(', ')) });
  }
  return facts;
}

/**
 * Who asked: the proposer's submission is the first approval (docs/service.md#fingerprint-idempotency-and-votes), and
 * voters come in the order of their first votes (a proposer who approves again after an expired window keeps the first
 * place).
 */
export function requesterOf(voters: readonly { userId: string; userName: string }[]): string | undefined {
  const first = voters[0];
  return first === undefined ? undefined : first.userName || first.userId;
}

/** `5400000` → `1 h 30 min`; under a minute reads `under a minute`. */
export function durationInWords(ms: number): string {
  if (ms <= 0) return 'expired';
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 0) return 'under a minute';
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

function clip(text: string): string {
  return text.length <= MAX_VALUE_LENGTH ? text : `${text.slice(0, MAX_VALUE_LENGTH - 1)}…`;
}
