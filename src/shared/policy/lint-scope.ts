/**
 * Which activities a condition can apply to, read from its activity tests (`activity.type == …`, `activity.type in
 * […]`, `activity.kind`, `.resource`, `.action`, and `activity.params.type` for the chain of a transaction), and
 * which chain keywords (`eth`, `solana`, …) those activities carry.
 */
import { logicalOperands, type Expression } from './ast';
import { CLASSIFIED_ACTIVITY_TYPES, activityClassOf } from './activity-classes';
import { pathOf } from './lint-paths';

const NO_SCOPE = new Map<string, string>();

/** The chain keywords each signing activity's condition context holds (docs/service.md#policy-keywords). */
const CHAINS_BY_ACTIVITY_TYPE: Readonly<Record<string, readonly string[]>> = {
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: ['eth', 'solana', 'bitcoin', 'tron', 'tempo'],
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2: ['eth'],
  ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2: ['solana'],
  // Typed data and EIP-7702 authorizations are read as `eth.eip_712` / `eth.eip_7702_authorization`.
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: ['eth'],
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: ['eth'],
};
const CHAIN_BY_TRANSACTION_TYPE: Readonly<Record<string, string>> = {
  TRANSACTION_TYPE_ETHEREUM: 'eth',
  TRANSACTION_TYPE_SOLANA: 'solana',
  TRANSACTION_TYPE_BITCOIN: 'bitcoin',
  TRANSACTION_TYPE_TRON: 'tron',
  TRANSACTION_TYPE_TEMPO: 'tempo',
};
export const CHAIN_KEYWORDS: readonly string[] = Object.values(CHAIN_BY_TRANSACTION_TYPE);

export interface ActivityScope {
  /** The activity types the condition can hold for: every type its required activity tests admit. */
  readonly types: ReadonlySet<string>;
  /** True when the condition is nothing but activity tests (or empty): it holds for every activity of `types`. */
  readonly exact: boolean;
  /** The chain keywords an activity of `types` (and of the transaction type the condition asks for) can carry. */
  readonly chains: ReadonlySet<string>;
}

/** The scope of a checked condition; undefined (no condition) holds for everything. */
export function activityScopeOf(condition: Expression | undefined): ActivityScope {
  const conjuncts =
    condition === undefined ? [] : condition.type === 'logical' && condition.operator === '&&' ? logicalOperands(condition) : [condition];
  let types: ReadonlySet<string> = new Set(CLASSIFIED_ACTIVITY_TYPES);
  let exact = true;
  let transactionChain: string | undefined;
  for (const conjunct of conjuncts) {
    if (conjunct.type === 'bool' && conjunct.value) continue;
    const tested = typesTestedBy(conjunct);
    if (tested !== undefined) {
      types = new Set([...types].filter((type) => tested.has(type)));
      continue;
    }
    exact = false;
    const transactionType = equalityWith(conjunct, 'activity.params.type');
    if (transactionType !== undefined && transactionType.length === 1) transactionChain = CHAIN_BY_TRANSACTION_TYPE[transactionType[0]!];
  }
  const chains = new Set(
    [...types].flatMap((type) =>
      (CHAINS_BY_ACTIVITY_TYPE[type] ?? []).filter(
        (chain) => transactionChain === undefined || type !== 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' || chain === transactionChain,
      ),
    ),
  );
  return { types, exact, chains };
}

/** The activity types `node` holds for when it is an activity test (or a disjunction of them); else undefined. */
function typesTestedBy(node: Expression): ReadonlySet<string> | undefined {
  if (node.type === 'logical' && node.operator === '||') {
    const parts = logicalOperands(node).map(typesTestedBy);
    if (parts.some((part) => part === undefined)) return undefined;
    return new Set(parts.flatMap((part) => [...part!]));
  }
  for (const field of ['type', 'kind', 'resource', 'action'] as const) {
    const values = equalityWith(node, `activity.${field}`);
    if (values !== undefined) return new Set(CLASSIFIED_ACTIVITY_TYPES.filter((type) => values.includes(activityClassOf(type)[field] ?? '')));
  }
  return undefined;
}

/** The string literals `node` requires `path` to equal (`path == 'x'`, `'x' == path`, `path in ['x', 'y']`). */
function equalityWith(node: Expression, path: string): string[] | undefined {
  const isPath = (side: Expression) => pathOf(side, NO_SCOPE) === path;
  if (node.type === 'comparison' && node.operator === '==') {
    if (isPath(node.left) && node.right.type === 'string') return [node.right.value];
    if (isPath(node.right) && node.left.type === 'string') return [node.left.value];
  }
  if (node.type === 'in' && isPath(node.value) && node.list.type === 'list' && node.list.items.every((item) => item.type === 'string')) {
    return node.list.items.map((item) => (item as { value: string }).value);
  }
  return undefined;
}
