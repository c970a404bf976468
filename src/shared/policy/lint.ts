/**
 * The policy linter (docs/service.md#policy-lint): what a policy that checks may still get wrong, in words, at its
 * position. Pure: main gathers what it needs (the root quorum, users, the other policies, the uploaded interfaces'
 * names and what history says about the policy) and the editor shows the findings before saving. A finding claims
 * only what it can prove from the text and those inputs; an `error` blocks saving, a `warning` does not.
 */
import { base58 } from '@scure/base';
import { checksummedEthereumAddress } from '../crypto/ethereum-address';
import { logicalOperands, type ComparisonOperator, type Expression, type SourceSpan } from './ast';
import { activityKindOf } from './activity-classes';
import { checkPolicyExpression, unconditionalChildrenOf } from './check';
import { evaluate } from './evaluator';
import { comparedLiterals, pathOf, sameExpression, visitWithScope } from './lint-paths';
import type { LintRule } from './lint-rules';
import { CHAIN_KEYWORDS, activityScopeOf, type ActivityScope } from './lint-scope';
import { nearestName } from './type-hints';
import type { PolicyCredential, PolicyUser } from './values';

export type LintField = 'condition' | 'consensus' | 'time';
export type { LintRule };

export interface LintFinding {
  readonly rule: LintRule;
  readonly severity: 'warning' | 'error';
  /** The expression the finding is in, and where in it (an empty span at 1:1 for an empty expression). */
  readonly field: LintField;
  readonly span: SourceSpan;
  readonly message: string;
  /** What to write instead, when there is one obvious fix (the nearest argument name, the checksummed address). */
  readonly suggestion?: string;
}

export interface LintPolicy {
  readonly policyId?: string | undefined;
  readonly name: string;
  readonly effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';
  readonly condition: string;
  readonly consensus: string;
  readonly time: string;
}

/** The names an uploaded interface gives a decoded call: ABI inputs, or an IDL's instruction arguments and accounts. */
export interface LintInterface {
  readonly chain: 'ethereum' | 'solana';
  readonly label: string;
  readonly arguments: readonly string[];
  readonly accounts: readonly string[];
}

export interface LintContext {
  readonly rootQuorum: { readonly userIds: readonly string[]; readonly threshold: number };
  readonly users: readonly (PolicyUser & { readonly name: string })[];
  /** The organization's policies as saved; the one being edited (same id) is skipped. */
  readonly policies: readonly (LintPolicy & { readonly policyId: string })[];
  readonly interfaces: readonly LintInterface[];
  /** How many of the recorded activities read the saved version of this policy denied, when main read them. */
  readonly recordedDenials?: { readonly activitiesRead: number; readonly denied: number } | undefined;
}

/** Candidate approver sets tried before the weak-allow rule gives up proving anything. */
const MAX_APPROVER_SETS = 5_000;
const EMPTY_SPAN: SourceSpan = { offset: 0, line: 1, column: 1, length: 0 };

type Parsed = Record<LintField, Expression | undefined>;

/** The findings for `policy`, in field and position order. Fields that do not check are left to the checker's error. */
export function lintPolicy(policy: LintPolicy, context: LintContext): LintFinding[] {
  const parsed = parseFields(policy);
  if (parsed === undefined) return [];
  const findings = [
    ...weakAllow(policy, parsed, context),
    ...unknownInterfaceNames(parsed, context.interfaces),
    ...addressLiterals(parsed),
    ...denyNeverMatches(policy, parsed, context),
    ...(['condition', 'consensus', 'time'] as const).flatMap((field) => constantExpressions(field, policy[field], parsed[field])),
    ...shadowing(policy, parsed, context),
  ];
  const order: LintField[] = ['condition', 'consensus', 'time'];
  return findings.sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field) || a.span.offset - b.span.offset);
}

/** Every field's AST (undefined when empty), or undefined when one of them does not check. */
function parseFields(policy: Pick<LintPolicy, LintField>): Parsed | undefined {
  const parsed: Partial<Parsed> = {};
  for (const field of ['condition', 'consensus', 'time'] as const) {
    if (policy[field].trim() === '') {
      parsed[field] = undefined;
      continue;
    }
    const checked = checkPolicyExpression(policy[field], field);
    if (!checked.ok) return undefined;
    parsed[field] = checked.ast;
  }
  return parsed as Parsed;
}

function spanOf(ast: Expression | undefined): SourceSpan {
  return ast?.span ?? EMPTY_SPAN;
}

/** Whether the expression is empty or true whatever the request says. */
function alwaysHolds(ast: Expression | undefined): boolean {
  if (ast === undefined) return true;
  const result = evaluate(ast, {});
  return result.ok && result.value;
}

// ─── an allow for everything, weaker than the root quorum ─────────────────────────────────────

function weakAllow(policy: LintPolicy, { condition, consensus }: Parsed, { rootQuorum, users }: LintContext): LintFinding[] {
  if (policy.effect !== 'EFFECT_ALLOW' || !alwaysHolds(condition) || rootQuorum.threshold <= 1) return [];
  const approvers = smallestApproverSet(consensus, users, rootQuorum.threshold - 1);
  if (approvers === undefined) return [];
  const who =
    approvers.length === 0
      ? 'whoever proposes it, with no other approval'
      : `${approvers.map((user) => user.name).join(' and ')} alone approve${approvers.length === 1 ? 's' : ''}`;
  const members = rootQuorum.userIds.map((id) => users.find((user) => user.id === id)?.name ?? id).join(', ');
  const what = condition === undefined ? 'With no condition' : 'With a condition that always holds';
  return [
    {
      rule: 'weak-allow',
      severity: 'warning',
      field: 'consensus',
      span: spanOf(consensus),
      message:
        `${what}, this allows every activity once ${who}, ` +
        `while the root quorum needs ${rootQuorum.threshold} of ${members}. Narrow the condition, or require at least ${rootQuorum.threshold} approvals.`,
    },
  ];
}

/**
 * The smallest set of at most `atMost` users whose approvals make the consensus hold ([] for an empty consensus), or
 * undefined when none is found within MAX_APPROVER_SETS tries. The proposer's own approval counts, so a set of one is
 * one person acting alone.
 */
function smallestApproverSet<U extends PolicyUser>(consensus: Expression | undefined, users: readonly U[], atMost: number): readonly U[] | undefined {
  if (consensus === undefined) return [];
  let tried = 0;
  const holds = (set: readonly U[]) => {
    tried += 1;
    // Only whose credential it is is known: a predicate reading more of it errors, and proves nothing.
    const credentials = set.map((user) => ({ user_id: user.id }) as PolicyCredential);
    const result = evaluate(consensus, { approvers: set.map(({ id, tags }) => ({ id, tags })), credentials });
    return result.ok && result.value;
  };
  for (let size = 1; size <= Math.min(atMost, users.length); size += 1) {
    for (const set of subsets(users, size)) {
      if (tried >= MAX_APPROVER_SETS) return undefined;
      if (holds(set)) return set;
    }
  }
  return undefined;
}

function* subsets<T>(items: readonly T[], size: number, from = 0): Generator<T[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let index = from; index <= items.length - size; index += 1) {
    for (const rest of subsets(items, size - 1, index + 1)) yield [items[index]!, ...rest];
  }
}

// ─── argument names the uploaded interfaces do not have ───────────────────────────────────────

const NAMED_MAPS: readonly { suffix: string; chain: LintInterface['chain']; names: 'arguments' | 'accounts'; what: string }[] = [
  { suffix: '.contract_call_args', chain: 'ethereum', names: 'arguments', what: 'ABI has an argument' },
  { suffix: '.program_call_args', chain: 'solana', names: 'arguments', what: 'IDL has an instruction argument' },
  { suffix: '.named_accounts', chain: 'solana', names: 'accounts', what: 'IDL has an account' },
];

function unknownInterfaceNames(parsed: Parsed, interfaces: readonly LintInterface[]): LintFinding[] {
  const findings: LintFinding[] = [];
  for (const field of ['condition'] as const) {
    const ast = parsed[field];
    if (ast === undefined) continue;
    visitWithScope(ast, (node, scope) => {
      if (node.type !== 'index' && node.type !== 'member') return;
      const key =
        node.type === 'member'
          ? { name: node.property, span: node.propertySpan }
          : node.index.type === 'string'
            ? { name: node.index.value, span: node.index.span }
            : undefined;
      const object = pathOf(node.object, scope);
      const map = NAMED_MAPS.find(({ suffix }) => object?.endsWith(suffix));
      if (key === undefined || map === undefined) return;
      const uploaded = interfaces.filter((candidate) => candidate.chain === map.chain);
      // With nothing uploaded for the chain there is nothing to compare with.
      if (uploaded.length === 0) return;
      const known = new Set(uploaded.flatMap((candidate) => candidate[map.names]));
      if (known.has(key.name)) return;
      const suggestion = nearestName(key.name, known, Math.max(1, Math.floor(key.name.length / 3)));
      findings.push({
        rule: 'unknown-interface-name',
        severity: 'warning',
        field,
        span: key.span,
        message:
          `No uploaded ${map.what} named '${key.name}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}, ` +
          `so no decoded call has it: reading it is an evaluation error, and the policy does not apply.`,
        ...(suggestion === undefined ? {} : { suggestion }),
      });
    });
  }
  return findings;
}

// ─── address literals ─────────────────────────────────────────────────────────────────────────

const ETHEREUM_ADDRESS_PATHS: ReadonlySet<string> = new Set([
  'eth.tx.to',
  'eth.tx.from',
  'eth.eip_712.domain.verifying_contract',
  'eth.eip_7702_authorization.address',
]);
const SOLANA_ADDRESS_PATHS: ReadonlySet<string> = new Set([
  'solana.tx.account_keys[]',
  'solana.tx.program_keys[]',
  'solana.tx.instructions[].program_key',
  'solana.tx.instructions[].accounts[].account_key',
  'solana.tx.transfers[].from',
  'solana.tx.transfers[].to',
  'solana.tx.spl_transfers[].from',
  'solana.tx.spl_transfers[].to',
  'solana.tx.spl_transfers[].owner',
  'solana.tx.spl_transfers[].token_mint',
  'solana.tx.spl_transfers[].signers[]',
]);

function addressLiterals(parsed: Parsed): LintFinding[] {
  const findings: LintFinding[] = [];
  const ast = parsed.condition;
  if (ast === undefined) return findings;
  visitWithScope(ast, (node, scope) => {
    for (const { path, literal } of comparedLiterals(node, scope)) {
      const finding = ETHEREUM_ADDRESS_PATHS.has(path)
        ? ethereumAddressProblem(path, literal.value)
        : SOLANA_ADDRESS_PATHS.has(path)
          ? solanaAddressProblem(path, literal.value)
          : undefined;
      if (finding !== undefined) findings.push({ rule: 'address-literal', field: 'condition', span: literal.span, ...finding });
    }
  });
  return findings;
}

type Problem = Pick<LintFinding, 'severity' | 'message' | 'suggestion'>;

/**
 * Ethereum addresses compare by value whatever their case (docs/service.md#policy-keywords), so an address in one case
 * is fine; mixed case that fails its EIP-55 checksum means a character was mistyped, or the case changed by hand.
 */
function ethereumAddressProblem(path: string, text: string): Problem | undefined {
  const checksummed = checksummedEthereumAddress(text);
  if (checksummed === undefined) {
    return { severity: 'error', message: `'${text}' is not an Ethereum address (0x and 40 hex digits), so ${path} never equals it.` };
  }
  const digits = text.slice(2);
  if (checksummed === text || digits === digits.toLowerCase() || digits === digits.toUpperCase()) return undefined;
  return {
    severity: 'warning',
    message: `'${text}' fails its EIP-55 checksum: a character was probably mistyped. Check it against its source; checksummed, what is written reads ${checksummed}.`,
    suggestion: checksummed,
  };
}

function solanaAddressProblem(path: string, text: string): Problem | undefined {
  let length: number | undefined;
  try {
    length = base58.decode(text).length;
  } catch {
    length = undefined;
  }
  if (length === 32) return undefined;
  return { severity: 'error', message: `'${text}' is not a Solana address (base58 of 32 bytes), so ${path} never equals it.` };
}

// ─── a deny that cannot match ─────────────────────────────────────────────────────────────────

function denyNeverMatches(policy: LintPolicy, { condition }: Parsed, { recordedDenials }: LintContext): LintFinding[] {
  if (policy.effect !== 'EFFECT_DENY' || condition === undefined) return [];
  // History has the last word: a deny that did deny something can match, whatever this reading says.
  if (recordedDenials !== undefined && recordedDenials.denied > 0) return [];
  const scope = activityScopeOf(condition);
  const read = readsToHold(condition, true).find(
    (node) => node.object.type === 'identifier' && CHAIN_KEYWORDS.includes(node.object.name) && !scope.chains.has(node.object.name),
  );
  if (read === undefined || read.object.type !== 'identifier') return [];
  const chain = read.object.name;
  const history =
    recordedDenials === undefined
      ? ''
      : policy.policyId === undefined
        ? ' It is new, so no recorded activity was denied by it.'
        : ` None of the ${recordedDenials.activitiesRead} most recent recorded activities was denied by it.`;
  return [
    {
      rule: 'deny-never-matches',
      severity: 'warning',
      field: 'condition',
      span: read.span,
      message:
        `This deny reads ${chain}.${read.property}, which ${typesInWords(scope)} never carry: reading it is an error there, ` +
        `so the deny never matches and denies nothing.${history}`,
    },
  ];
}

type FieldRead = Extract<Expression, { type: 'member' }>;

/**
 * The field reads every evaluation of `node` to `value` makes: each operand of a true `&&` or a false `||` is read,
 * as `!` turns one into the other; otherwise only the reads made whatever the values.
 */
function readsToHold(node: Expression, value: boolean): FieldRead[] {
  if (node.type === 'not') return readsToHold(node.operand, !value);
  if (node.type === 'logical' && (node.operator === '&&') === value) return logicalOperands(node).flatMap((operand) => readsToHold(operand, value));
  return alwaysEvaluatedReads(node);
}

/**
 * The field reads evaluated whenever the expression is: not those in an operand of `&&`/`||` after the first, which
 * may not be read, nor in the predicate of any/all/filter, which runs only for the elements there are.
 */
function alwaysEvaluatedReads(node: Expression): FieldRead[] {
  return [...(node.type === 'member' ? [node] : []), ...unconditionalChildrenOf(node).flatMap(alwaysEvaluatedReads)];
}

function typesInWords({ types }: ActivityScope): string {
  const kinds = [...new Set([...types].map(activityKindOf))];
  return kinds.length <= 3 ? `${kinds.join(', ')} activities` : `the ${types.size} activity types it applies to`;
}

// ─── constant expressions ─────────────────────────────────────────────────────────────────────

const BOOLEAN_NODES: ReadonlySet<Expression['type']> = new Set(['bool', 'comparison', 'logical', 'not', 'in', 'contains', 'lambda']);
const REFLEXIVE: Record<ComparisonOperator, boolean> = { '==': true, '<=': true, '>=': true, '!=': false, '<': false, '>': false };

/**
 * Parts of the expression that are true or false whatever the request: they read no field (`1 == 1`), compare a field
 * with itself (`x != x`), or ask one field for values that exclude each other (`a > 5 && a < 3`). A whole expression
 * written as the bare literal `true` or `false` is taken as meant.
 */
function constantExpressions(field: LintField, text: string, ast: Expression | undefined): LintFinding[] {
  if (ast === undefined || ast.type === 'bool') return [];
  const findings: LintFinding[] = [];
  const report = (node: Expression, value: boolean, why: string) => {
    const whole = node === ast;
    const effect = whole
      ? value
        ? `the whole ${field} always holds`
        : `the whole ${field} never holds${field === 'condition' ? ', so this policy never applies' : ''}`
      : value
        ? 'this part constrains nothing'
        : 'this part never holds';
    findings.push({ rule: 'constant-expression', severity: 'warning', field, span: node.span, message: `${why}: ${effect}.` });
  };
  const visit = (node: Expression): void => {
    if (BOOLEAN_NODES.has(node.type) && (node.type !== 'lambda' || node.method !== 'filter')) {
      const folded = evaluate(node, {});
      if (folded.ok) return report(node, folded.value, `'${source(text, node)}' reads nothing from the request and is always ${folded.value}`);
    }
    if (node.type === 'comparison' && sameExpression(node.left, node.right)) {
      const value = REFLEXIVE[node.operator];
      return report(node, value, `'${source(text, node)}' compares a value with itself and is always ${value}`);
    }
    if (node.type === 'logical' && node.operator === '&&') {
      const conflict = contradiction(logicalOperands(node), text);
      if (conflict !== undefined) return report(node, false, `${conflict.map((part) => `'${source(text, part)}'`).join(' and ')} can never all hold`);
    }
    if (node.type === 'logical') logicalOperands(node).forEach(visit);
    else if (node.type === 'not') visit(node.operand);
    else if (node.type === 'lambda') visit(node.predicate);
  };
  visit(ast);
  return findings;
}

function source(text: string, node: Expression): string {
  return text.slice(node.span.offset, node.span.offset + node.span.length).replace(/\s+/g, ' ');
}

/** Comparisons among `operands` that ask the same value for integers or strings no value can be at once. */
function contradiction(operands: readonly Expression[], text: string): Expression[] | undefined {
  const byValue = new Map<string, { low?: bigint; high?: bigint; equal: Set<string>; unequal: Set<string>; parts: Expression[] }>();
  for (const operand of operands) {
    if (operand.type !== 'comparison') continue;
    const normalized = literalOnRight(operand);
    if (normalized === undefined) continue;
    const { subject, operator, literal } = normalized;
    const key = source(text, subject);
    const bounds = byValue.get(key) ?? { equal: new Set(), unequal: new Set(), parts: [] };
    byValue.set(key, bounds);
    bounds.parts.push(operand);
    const value = literal.value;
    // Ethereum addresses compare by value whatever their case.
    const compared = typeof value === 'string' && checksummedEthereumAddress(value) !== undefined ? value.toLowerCase() : String(value);
    if (operator === '==') bounds.equal.add(compared);
    else if (operator === '!=') bounds.unequal.add(compared);
    else if (typeof value === 'bigint') {
      if (operator === '>' || operator === '>=') bounds.low = max(bounds.low, operator === '>' ? value + 1n : value);
      else bounds.high = min(bounds.high, operator === '<' ? value - 1n : value);
    }
  }
  for (const { low, high, equal, unequal, parts } of byValue.values()) {
    const [only, ...others] = [...equal];
    const impossible =
      others.length > 0 ||
      (only !== undefined && (unequal.has(only) || (low !== undefined && BigInt(only) < low) || (high !== undefined && BigInt(only) > high))) ||
      (low !== undefined && high !== undefined && low > high);
    if (impossible && parts.length > 1) return parts;
  }
  return undefined;
}

const FLIPPED: Record<ComparisonOperator, ComparisonOperator> = { '==': '==', '!=': '!=', '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

/** `5 < a` as `a > 5`; undefined unless exactly one side is an int or string literal. */
function literalOnRight(
  node: Extract<Expression, { type: 'comparison' }>,
): { subject: Expression; operator: ComparisonOperator; literal: { value: bigint | string } } | undefined {
  const isLiteral = (side: Expression): side is Extract<Expression, { type: 'int' | 'string' }> => side.type === 'int' || side.type === 'string';
  if (isLiteral(node.right) && !isLiteral(node.left)) return { subject: node.left, operator: node.operator, literal: node.right };
  if (isLiteral(node.left) && !isLiteral(node.right)) return { subject: node.right, operator: FLIPPED[node.operator], literal: node.left };
  return undefined;
}

const max = (a: bigint | undefined, b: bigint) => (a === undefined || b > a ? b : a);
const min = (a: bigint | undefined, b: bigint) => (a === undefined || b < a ? b : a);

// ─── policies a deny makes unreachable ────────────────────────────────────────────────────────

/**
 * A deny shadows an allow when it is always active, needs no consensus, its condition is nothing but activity tests,
 * and those cover every activity type the allow's condition admits: every activity the allow could allow is denied.
 */
function shadowing(policy: LintPolicy, parsed: Parsed, { policies }: LintContext): LintFinding[] {
  const others = policies.filter((other) => other.policyId !== policy.policyId);
  const scope = activityScopeOf(parsed.condition);
  const span = spanOf(parsed.condition);
  if (policy.effect === 'EFFECT_ALLOW') {
    const deny = others.find((other) => other.effect === 'EFFECT_DENY' && denyCovers(other, scope));
    if (deny === undefined) return [];
    return [
      {
        rule: 'shadowed-by-deny',
        severity: 'warning',
        field: 'condition',
        span,
        message: `The deny policy '${deny.name}' denies every activity this policy can allow, whoever approves, so this policy never allows anything.`,
      },
    ];
  }
  if (!denyCovers(policy, scope, parsed)) return [];
  const shadowed = others.filter((other) => {
    if (other.effect !== 'EFFECT_ALLOW') return false;
    const checked = other.condition.trim() === '' ? { ok: true as const, ast: undefined } : checkPolicyExpression(other.condition, 'condition');
    return checked.ok && coversTypes(scope, activityScopeOf(checked.ast));
  });
  if (shadowed.length === 0) return [];
  return [
    {
      rule: 'shadowed-by-deny',
      severity: 'warning',
      field: 'condition',
      span,
      message: `This deny denies every activity the allow polic${shadowed.length === 1 ? 'y' : 'ies'} ${shadowed.map((other) => `'${other.name}'`).join(', ')} can allow, so ${shadowed.length === 1 ? 'it never allows' : 'they never allow'} anything.`,
    },
  ];
}

/** Whether `deny` denies every activity of `scope` unconditionally. `parsed` spares parsing the policy being linted again. */
function denyCovers(deny: LintPolicy, scope: ActivityScope, parsed?: Parsed): boolean {
  if (deny.time.trim() !== '' || !['', 'true'].includes(deny.consensus.trim())) return false;
  const fields = parsed ?? parseFields(deny);
  return fields !== undefined && coversTypes(activityScopeOf(fields.condition), scope);
}

function coversTypes(deny: ActivityScope, allow: ActivityScope): boolean {
  return deny.exact && allow.types.size > 0 && [...allow.types].every((type) => deny.types.has(type));
}
