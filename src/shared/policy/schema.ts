import type { PolicyExpressionKind } from './ast';

/**
 * What the checker knows statically about a value. `dynamic` stands for data whose shape the policy engine learns
 * only at evaluation (transaction fields, activity params, secrets), so only the evaluator can judge it.
 */
export type StaticType =
  | { readonly kind: 'bool' | 'int' | 'string' | 'timestamp' | 'dynamic' }
  | { readonly kind: 'list'; readonly element: StaticType }
  | { readonly kind: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, StaticType>> }
  | { readonly kind: 'map'; readonly value: StaticType };

export const BOOL: StaticType = { kind: 'bool' };
export const INT: StaticType = { kind: 'int' };
export const STRING: StaticType = { kind: 'string' };
export const TIMESTAMP: StaticType = { kind: 'timestamp' };
export const DYNAMIC: StaticType = { kind: 'dynamic' };
export const listOf = (element: StaticType): StaticType => ({ kind: 'list', element });

// Structs from docs/service.md#policy-keywords.
const USER: StaticType = {
  kind: 'struct',
  name: 'User',
  fields: { id: STRING, tags: listOf(STRING), email: STRING, alias: STRING },
};
const CREDENTIAL: StaticType = {
  kind: 'struct',
  name: 'Credential',
  fields: { id: STRING, user_id: STRING, type: STRING, credential_id: STRING, public_key: STRING },
};
const ACTIVITY: StaticType = {
  kind: 'struct',
  name: 'Activity',
  fields: { type: STRING, kind: STRING, resource: STRING, action: STRING, params: { kind: 'map', value: DYNAMIC } },
};
const WALLET: StaticType = {
  kind: 'struct',
  name: 'Wallet',
  fields: { id: STRING, imported: BOOL, exported: BOOL, label: STRING },
};
const WALLET_ACCOUNT: StaticType = { kind: 'struct', name: 'WalletAccount', fields: { address: STRING } };
const PRIVATE_KEY: StaticType = {
  kind: 'struct',
  name: 'PrivateKey',
  fields: { id: STRING, tags: listOf(STRING), imported: BOOL, exported: BOOL, label: STRING },
};

const CONSENSUS_ROOTS: Readonly<Record<string, StaticType>> = {
  approvers: listOf(USER),
  credentials: listOf(CREDENTIAL),
};

const CONDITION_ROOTS: Readonly<Record<string, StaticType>> = {
  activity: ACTIVITY,
  wallet: WALLET,
  wallets: listOf(WALLET),
  wallet_account: WALLET_ACCOUNT,
  private_key: PRIVATE_KEY,
  user: USER,
  // Transaction and secret payloads vary by chain and transaction type; the evaluator checks them.
  eth: DYNAMIC,
  solana: DYNAMIC,
  tron: DYNAMIC,
  bitcoin: DYNAMIC,
  tempo: DYNAMIC,
  secret: DYNAMIC,
};

/** `time.now`: the service's clock when the policy is evaluated. */
const TIME_ROOTS: Readonly<Record<string, StaticType>> = {
  time: { kind: 'struct', name: 'Time', fields: { now: TIMESTAMP } },
};

/** The keywords an expression of each kind may start from, with their types. */
export const ROOTS_BY_KIND: Readonly<Record<PolicyExpressionKind, Readonly<Record<string, StaticType>>>> = {
  consensus: CONSENSUS_ROOTS,
  condition: CONDITION_ROOTS,
  time: TIME_ROOTS,
  scope: CONDITION_ROOTS,
};

export function describeType(type: StaticType): string {
  switch (type.kind) {
    case 'list':
      return type.element.kind === 'dynamic' ? 'list' : `list<${describeType(type.element)}>`;
    case 'struct':
      return type.name;
    case 'map':
      return 'map';
    case 'dynamic':
      return 'value';
    default:
      return type.kind;
  }
}
