import type { CronSpan } from './cron-span';

/** Where a token or node sits in the expression text. `line` and `column` are 1-based; `offset` is 0-based. */
export interface SourceSpan {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  /** Number of characters covered; 0 for end of expression. */
  readonly length: number;
}

export type ComparisonOperator = '==' | '!=' | '<' | '>' | '<=' | '>=';
export type LogicalOperator = '&&' | '||';
export type LambdaMethod = 'any' | 'all' | 'filter';

interface NodeBase {
  readonly span: SourceSpan;
}

export interface BoolLiteral extends NodeBase {
  readonly type: 'bool';
  readonly value: boolean;
}
export interface IntLiteral extends NodeBase {
  readonly type: 'int';
  readonly value: bigint;
}
export interface StringLiteral extends NodeBase {
  readonly type: 'string';
  readonly value: string;
}
/** `Timestamp('2026-03-01T00:00:00Z')`, resolved when parsed. */
export interface TimestampLiteral extends NodeBase {
  readonly type: 'timestamp';
  readonly text: string;
  readonly epochNanoseconds: bigint;
}
/** `CronSpan('0 9 * * 1-5', '8h', 'America/New_York')`, its arguments checked and resolved when parsed. */
export interface CronSpanCall extends NodeBase {
  readonly type: 'cronSpan';
  /** The three arguments as written, for display. */
  readonly args: readonly [schedule: string, duration: string, timeZone: string];
  readonly cronSpan: CronSpan;
}
export interface ListExpression extends NodeBase {
  readonly type: 'list';
  readonly items: readonly Expression[];
}
/** A root keyword (`activity`, `approvers`, …) or a variable bound by `any`/`all`/`filter`. */
export interface Identifier extends NodeBase {
  readonly type: 'identifier';
  readonly name: string;
}
/** `x.field`. */
export interface MemberExpression extends NodeBase {
  readonly type: 'member';
  readonly object: Expression;
  readonly property: string;
  readonly propertySpan: SourceSpan;
}
/** `x[i]` on a list or string, or `m['key']` on a struct/map. */
export interface IndexExpression extends NodeBase {
  readonly type: 'index';
  readonly object: Expression;
  readonly index: Expression;
}
/** `x[start..end]`, end exclusive. */
export interface SliceExpression extends NodeBase {
  readonly type: 'slice';
  readonly object: Expression;
  readonly start: Expression;
  readonly end: Expression;
}
/** `l.any(v, pred)`, `l.all(v, pred)`, `l.filter(v, pred)`. */
export interface LambdaCall extends NodeBase {
  readonly type: 'lambda';
  readonly method: LambdaMethod;
  readonly list: Expression;
  readonly variable: string;
  readonly variableSpan: SourceSpan;
  readonly predicate: Expression;
}
/** `l.contains(x)`. */
export interface ContainsCall extends NodeBase {
  readonly type: 'contains';
  readonly list: Expression;
  readonly value: Expression;
}
/** `l.count()`. */
export interface CountCall extends NodeBase {
  readonly type: 'count';
  readonly list: Expression;
}
export interface NotExpression extends NodeBase {
  readonly type: 'not';
  readonly operand: Expression;
}
/** `a && b`, `a || b`; left-associative. */
export interface LogicalExpression extends NodeBase {
  readonly type: 'logical';
  readonly operator: LogicalOperator;
  readonly left: Expression;
  readonly right: Expression;
}
export interface ComparisonExpression extends NodeBase {
  readonly type: 'comparison';
  readonly operator: ComparisonOperator;
  readonly left: Expression;
  readonly right: Expression;
}
/** `x in list`. */
export interface InExpression extends NodeBase {
  readonly type: 'in';
  readonly value: Expression;
  readonly list: Expression;
}

export type Expression =
  | BoolLiteral
  | IntLiteral
  | StringLiteral
  | TimestampLiteral
  | CronSpanCall
  | ListExpression
  | Identifier
  | MemberExpression
  | IndexExpression
  | SliceExpression
  | LambdaCall
  | ContainsCall
  | CountCall
  | NotExpression
  | LogicalExpression
  | ComparisonExpression
  | InExpression;

/**
 * The places policy expressions appear, each with its own root keywords: a policy's `condition`, `consensus` and
 * `time`, and a session profile's `scope`.
 */
export type PolicyExpressionKind = 'condition' | 'consensus' | 'time' | 'scope';

/**
 * The operands of a chain of the same logical operator, left to right. Chains are walked iteratively so that a
 * long `a || b || c …` (one AST level per operator) cannot exhaust the stack of the checker or the evaluator.
 */
export function logicalOperands(node: LogicalExpression): Expression[] {
  const rightOperands: Expression[] = [];
  let current: Expression = node;
  while (current.type === 'logical' && current.operator === node.operator) {
    rightOperands.push(current.right);
    current = current.left;
  }
  return [current, ...rightOperands.reverse()];
}
