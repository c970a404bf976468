/**
 * Whose approval counts toward a consensus expression, read from the expression itself: the places it looks at the
 * approvers or at the credentials they approved with (`approvers.any(v, …)`, `credentials.all(c, …)`,
 * `approvers.filter(v, …).count() >= n`, `credentials.count() >= n`), and for one user, which of those their approval
 * moves toward holding.
 */
import { logicalOperands, type ComparisonOperator, type Expression, type LambdaCall } from './ast';
import { evaluate } from './evaluator';
import type { PolicyCredential, PolicyUser } from './values';

/**
 * Which way one more matching approver moves the consensus: toward holding, away from it, or it depends (an `==` on
 * a count, a comparison of two counts).
 */
export type ApproverDirection = 'helps' | 'hurts' | 'either';

/** Who a term's predicates select, when they are one plain test the screens can put in words. */
export type ApproverSelection =
  { readonly kind: 'everyone' } | { readonly kind: 'tag'; readonly tagId: string } | { readonly kind: 'user'; readonly userId: string };

/** One place a consensus expression looks at the approvers or at their credentials (one per approval). */
export interface ApproverTerm {
  /** `any` / `all` over the list (after any `filter`s), or `count` of it (after any `filter`s). */
  readonly method: 'any' | 'all' | 'count';
  readonly direction: ApproverDirection;
  /** The consensus cannot hold unless this term holds: it is reached through conjunctions only. */
  readonly required: boolean;
  /** How many matching approvers it asks for, where the text says: `n` of `… .count() >= n`, 1 of `any`. */
  readonly atLeast?: bigint;
  readonly selects?: ApproverSelection;
  /** The list the term reads: `approvers` or `credentials`, or either narrowed by `filter`s. */
  readonly list: Expression;
  /** The `any`/`all` call over them. */
  readonly comprehension?: LambdaCall;
}

type ListRoot = 'approvers' | 'credentials';

/**
 * A credential as far as the caller knows it: at least whose it is. A field left out is missing to the evaluator, so
 * a predicate reading it says nothing for this credential.
 */
export type KnownCredential = Pick<PolicyCredential, 'user_id'> & Partial<Omit<PolicyCredential, 'user_id'>>;

interface Position {
  readonly direction: ApproverDirection;
  readonly required: boolean;
  readonly atLeast?: bigint;
}

/** The terms of a checked consensus expression, left to right. Predicates of comprehensions are not searched. */
export function approverTerms(consensus: Expression): ApproverTerm[] {
  const terms: ApproverTerm[] = [];
  const visit = (node: Expression, at: Position): void => {
    switch (node.type) {
      case 'logical': {
        const conjunctive = (node.operator === '&&') === (at.direction === 'helps') && at.direction !== 'either';
        for (const operand of logicalOperands(node)) visit(operand, { direction: at.direction, required: at.required && conjunctive });
        return;
      }
      case 'not':
        visit(node.operand, { direction: flip(at.direction), required: at.required });
        return;
      case 'comparison':
        visit(node.left, compared(at, node.operator, node.right, 'left'));
        visit(node.right, compared(at, node.operator, node.left, 'right'));
        return;
      case 'count':
      case 'member': {
        const list = node.type === 'count' ? node.list : node.property === 'count' ? node.object : undefined;
        const read = list === undefined ? undefined : filtersOf(list);
        if (list !== undefined && read !== undefined) terms.push(term('count', list, read, undefined, at));
        return;
      }
      case 'lambda': {
        // A `filter` on its own is a list, read by whatever counts or comprehends it.
        const read = filtersOf(node.list);
        if (read !== undefined && node.method !== 'filter') {
          terms.push(term(node.method, node.list, read, node, node.method === 'any' ? { ...at, atLeast: 1n } : at));
        }
        return;
      }
      default:
        return;
    }
  };
  visit(consensus, { direction: 'helps', required: true });
  return terms;
}

/** What one user's approval does to each term: counts toward it, makes it fail, or leaves it as it was. */
type Effect = 'counts' | 'breaks' | 'none';

/**
 * The terms `approver`'s approval counts toward; empty when it counts toward none, or when it makes a term the
 * consensus requires fail (`approvers.all(v, v.id != 'u-x')` for u-x). The approval is made with one of `credentials`,
 * the ones the user holds: it counts toward a term over the credentials when one of them satisfies its predicates, and
 * the terms it counts toward are those of every credential the user could approve with. With none known, the user
 * approves with one of which only the owner is known. A term whose predicates read a field this user record or
 * credential lacks says nothing either way.
 */
export function termsCountingApproval(
  terms: readonly ApproverTerm[],
  approver: PolicyUser,
  credentials: readonly KnownCredential[] = [],
): ApproverTerm[] {
  const candidates = credentials.length === 0 ? [{ user_id: approver.id }] : credentials;
  const counted = new Set(candidates.flatMap((credential) => termsCountingWith(terms, approver, credential)));
  return terms.filter((term) => counted.has(term));
}

/** The terms counted when `approver` approves with `credential`. */
function termsCountingWith(terms: readonly ApproverTerm[], approver: PolicyUser, credential: KnownCredential): ApproverTerm[] {
  const effects = terms.map((term) => ({ term, effect: effectOf(term, approver, credential) }));
  if (effects.some(({ term, effect }) => effect === 'breaks' && term.required)) return [];
  return effects.filter(({ effect }) => effect === 'counts').map(({ term }) => term);
}

function effectOf(term: ApproverTerm, approver: PolicyUser, credential: KnownCredential): Effect {
  // The fields a credential lacks are left out of it, which the evaluator reads as missing: see KnownCredential.
  const context = { approvers: [approver], credentials: [credential as PolicyCredential] };
  // Whether the approval, as the only one, is in `list`; undefined when a predicate reads a field it lacks.
  const among = (list: Expression) => {
    const { span } = list;
    const atLeastOne: Expression = {
      type: 'comparison',
      operator: '>=',
      left: { type: 'count', list, span },
      right: { type: 'int', value: 1n, span },
      span,
    };
    const result = evaluate(atLeastOne, context);
    return result.ok ? result.value : undefined;
  };
  const read = among(term.list);
  // The comprehension's predicate as a filter: the approvers it is true for.
  const matched = term.comprehension === undefined ? read : among({ ...term.comprehension, method: 'filter' });
  if (read === undefined || matched === undefined || !read) return 'none';
  if (term.method === 'all') {
    // Approvers the predicate holds for keep `all` true; any other makes it false for good.
    if (matched) return term.direction === 'hurts' ? 'none' : 'counts';
    return term.direction === 'helps' ? 'breaks' : term.direction === 'hurts' ? 'counts' : 'none';
  }
  if (!matched) return 'none';
  if (term.direction !== 'hurts') return 'counts';
  // One matching approver makes a negated `any` fail; a count may have room for more.
  return term.method === 'any' ? 'breaks' : 'none';
}

interface FilteredList {
  readonly root: ListRoot;
  /** Outermost last. */
  readonly filters: readonly LambdaCall[];
}

/** `list` as `approvers` or `credentials` and the `filter`s between it and them; undefined when it is neither. */
function filtersOf(list: Expression): FilteredList | undefined {
  if (list.type === 'identifier') return list.name === 'approvers' || list.name === 'credentials' ? { root: list.name, filters: [] } : undefined;
  if (list.type !== 'lambda' || list.method !== 'filter') return undefined;
  const inner = filtersOf(list.list);
  return inner === undefined ? undefined : { root: inner.root, filters: [...inner.filters, list] };
}

function term(
  method: ApproverTerm['method'],
  list: Expression,
  { root, filters }: FilteredList,
  comprehension: LambdaCall | undefined,
  at: Position,
): ApproverTerm {
  const predicates = comprehension === undefined ? filters : [...filters, comprehension];
  const selects = predicates.length === 0 ? ({ kind: 'everyone' } as const) : predicates.length === 1 ? selectionOf(root, predicates[0]!) : undefined;
  return {
    method,
    direction: at.direction,
    required: at.required,
    ...(at.atLeast === undefined || at.direction === 'hurts' || method === 'all' ? {} : { atLeast: at.atLeast }),
    ...(selects === undefined ? {} : { selects }),
    list,
    ...(comprehension === undefined ? {} : { comprehension }),
  };
}

/**
 * Over the approvers, `v.tags.contains('t')` / `'t' in v.tags` select a tag and `v.id == 'u'` a user; over the
 * credentials, `c.user_id == 'u'` selects a user.
 */
function selectionOf(root: ListRoot, { variable, predicate }: LambdaCall): ApproverSelection | undefined {
  const isField = (node: Expression, field: string) =>
    node.type === 'member' && node.property === field && node.object.type === 'identifier' && node.object.name === variable;
  const userIdField = root === 'approvers' ? 'id' : 'user_id';
  if (
    root === 'approvers' &&
    (predicate.type === 'contains' || predicate.type === 'in') &&
    isField(predicate.list, 'tags') &&
    predicate.value.type === 'string'
  ) {
    return { kind: 'tag', tagId: predicate.value.value };
  }
  if (predicate.type === 'comparison' && predicate.operator === '==') {
    const { left, right } = predicate;
    if (isField(left, userIdField) && right.type === 'string') return { kind: 'user', userId: right.value };
    if (isField(right, userIdField) && left.type === 'string') return { kind: 'user', userId: left.value };
  }
  return undefined;
}

function flip(direction: ApproverDirection): ApproverDirection {
  return direction === 'helps' ? 'hurts' : direction === 'hurts' ? 'helps' : 'either';
}

/**
 * The position of one side of a comparison: a larger left side makes `>`/`>=` hold and `<`/`<=` fail (the right
 * side the other way round); `== 0` fails and `!= 0` holds once there is one; other `==`/`!=` go either way. The
 * threshold is read off an int literal on the other side.
 */
function compared(at: Position, operator: ComparisonOperator, other: Expression, side: 'left' | 'right'): Position {
  const zero = other.type === 'int' && other.value === 0n;
  const grows = [...(side === 'left' ? ['>', '>='] : ['<', '<=']), ...(zero ? ['!='] : [])];
  const shrinks = [...(side === 'left' ? ['<', '<='] : ['>', '>=']), ...(zero ? ['=='] : [])];
  const own: ApproverDirection = grows.includes(operator) ? 'helps' : shrinks.includes(operator) ? 'hurts' : 'either';
  const direction = own === 'either' || at.direction === 'either' ? 'either' : own === 'helps' ? at.direction : flip(at.direction);
  const strict = operator === '>' || operator === '<' || operator === '!=';
  const atLeast =
    other.type === 'int' && at.direction === 'helps' && (own === 'helps' || operator === '==') ? other.value + (strict ? 1n : 0n) : undefined;
  return { direction, required: at.required, ...(atLeast === undefined ? {} : { atLeast }) };
}
