/**
 * Whose approval counts toward a consensus expression, read from the expression itself: the places it looks at the
 * approvers (`approvers.any(v, …)`, `approvers.all(v, …)`, `approvers.filter(v, …).count() >= n`,
 * `approvers.count() >= n`), and for one user, which of those their approval moves toward holding.
 */
import { logicalOperands, type ComparisonOperator, type Expression, type LambdaCall } from './ast';
import { evaluate } from './evaluator';
import type { PolicyUser } from './values';

/**
 * Which way one more matching approver moves the consensus: toward holding, away from it, or it depends (an `==` on
 * a count, a comparison of two counts).
 */
export type ApproverDirection = 'helps' | 'hurts' | 'either';

/** Who a term's predicates select, when they are one plain test the screens can put in words. */
export type ApproverSelection =
  | { readonly kind: 'everyone' }
  | { readonly kind: 'tag'; readonly tagId: string }
  | { readonly kind: 'user'; readonly userId: string };

/** One place a consensus expression looks at the approvers. */
export interface ApproverTerm {
  /** `any` / `all` over the approvers (after any `filter`s), or `count` of them (after any `filter`s). */
  readonly method: 'any' | 'all' | 'count';
  readonly direction: ApproverDirection;
  /** The consensus cannot hold unless this term holds: it is reached through conjunctions only. */
  readonly required: boolean;
  /** How many matching approvers it asks for, where the text says: `n` of `… .count() >= n`, 1 of `any`. */
  readonly atLeast?: bigint;
  readonly selects?: ApproverSelection;
  /** The approvers the term reads: `approvers`, or `approvers` narrowed by `filter`s. */
  readonly approvers: Expression;
  /** The `any`/`all` call over them. */
  readonly comprehension?: LambdaCall;
}

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
        const filters = list === undefined ? undefined : approverFilters(list);
        if (list !== undefined && filters !== undefined) terms.push(term('count', list, filters, undefined, at));
        return;
      }
      case 'lambda': {
        // A `filter` on its own is a list, read by whatever counts or comprehends it.
        const filters = approverFilters(node.list);
        if (filters !== undefined && node.method !== 'filter') {
          terms.push(term(node.method, node.list, filters, node, node.method === 'any' ? { ...at, atLeast: 1n } : at));
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
 * consensus requires fail (`approvers.all(v, v.id != 'u-x')` for u-x). A term whose predicates read a field this
 * user record lacks says nothing either way.
 */
export function termsCountingApproval(terms: readonly ApproverTerm[], approver: PolicyUser): ApproverTerm[] {
  const effects = terms.map((term) => ({ term, effect: effectOf(term, approver) }));
  if (effects.some(({ term, effect }) => effect === 'breaks' && term.required)) return [];
  return effects.filter(({ effect }) => effect === 'counts').map(({ term }) => term);
}

function effectOf(term: ApproverTerm, approver: PolicyUser): Effect {
  // Whether the user, as the only approver, is in `list`; undefined when a predicate reads a field they lack.
  const among = (list: Expression) => {
    const { span } = list;
    const atLeastOne: Expression = { type: 'comparison', operator: '>=', left: { type: 'count', list, span }, right: { type: 'int', value: 1n, span }, span };
    const result = evaluate(atLeastOne, { approvers: [approver] });
    return result.ok ? result.value : undefined;
  };
  const read = among(term.approvers);
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

/** The `filter`s between `approvers` and `list`, outermost last; undefined when `list` is not the approvers filtered. */
function approverFilters(list: Expression): LambdaCall[] | undefined {
  if (list.type === 'identifier') return list.name === 'approvers' ? [] : undefined;
  if (list.type !== 'lambda' || list.method !== 'filter') return undefined;
  const inner = approverFilters(list.list);
  return inner === undefined ? undefined : [...inner, list];
}

function term(
  method: ApproverTerm['method'],
  approvers: Expression,
  filters: readonly LambdaCall[],
  comprehension: LambdaCall | undefined,
  at: Position,
): ApproverTerm {
  const predicates = comprehension === undefined ? filters : [...filters, comprehension];
  const selects = predicates.length === 0 ? ({ kind: 'everyone' } as const) : predicates.length === 1 ? selectionOf(predicates[0]!) : undefined;
  return {
    method,
    direction: at.direction,
    required: at.required,
    ...(at.atLeast === undefined || at.direction === 'hurts' || method === 'all' ? {} : { atLeast: at.atLeast }),
    ...(selects === undefined ? {} : { selects }),
    approvers,
    ...(comprehension === undefined ? {} : { comprehension }),
  };
}

/** `v.tags.contains('t')` / `'t' in v.tags` select a tag; `v.id == 'u'` selects a user. */
function selectionOf({ variable, predicate }: LambdaCall): ApproverSelection | undefined {
  const isField = (node: Expression, field: string) =>
    node.type === 'member' && node.property === field && node.object.type === 'identifier' && node.object.name === variable;
  if (predicate.type === 'contains' && isField(predicate.list, 'tags') && predicate.value.type === 'string') {
    return { kind: 'tag', tagId: predicate.value.value };
  }
  if (predicate.type === 'in' && isField(predicate.list, 'tags') && predicate.value.type === 'string') {
    return { kind: 'tag', tagId: predicate.value.value };
  }
  if (predicate.type === 'comparison' && predicate.operator === '==') {
    const { left, right } = predicate;
    if (isField(left, 'id') && right.type === 'string') return { kind: 'user', userId: right.value };
    if (isField(right, 'id') && left.type === 'string') return { kind: 'user', userId: left.value };
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
