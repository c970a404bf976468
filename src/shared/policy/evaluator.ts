import { logicalOperands, type Expression, type PolicyExpressionKind, type SourceSpan } from './ast';
import { checkPolicyExpression } from './check';
import { MAX_EVALUATION_STEPS, type StepBudget } from './cost';
import { cronSpanContains } from './cron-span';
import { formatPosition, PolicyEvaluationError, type PolicyParseError } from './errors';
import {
  isPolicyList,
  PolicyTimestamp,
  policyValueKind,
  type PolicyContext,
  type PolicyStruct,
  type PolicyValue,
  type PolicyValueKind,
} from './values';

/** Errors are values: the service records them as OUTCOME_ERROR for the policy instead of failing the request. */
export type PolicyEvaluationResult = { readonly ok: true; readonly value: boolean } | { readonly ok: false; readonly error: PolicyEvaluationError };

type Bindings = ReadonlyMap<string, PolicyValue>;

/**
 * Evaluates a parsed expression against a request. `&&` and `||` read their operands left to right and stop at the
 * first that decides, so `activity.type == '…' && eth.tx.to == '…'` is false, not an error, for a request without a
 * transaction; every element of `any`/`all` is evaluated. At most `MAX_EVALUATION_STEPS` steps are taken, and no
 * more than `budget` has left when the evaluation is one of a decision's or a search's: beyond them the evaluation
 * fails as too costly.
 */
export function evaluate(ast: Expression, context: PolicyContext, budget?: StepBudget): PolicyEvaluationResult {
  const outcome = evaluateOrFail(ast, context, budget);
  return typeof outcome === 'boolean' ? { ok: true, value: outcome } : { ok: false, error: outcome.toError() };
}

/**
 * Why an expression could not be evaluated. Failures are an expected outcome (a policy reading a field the request
 * lacks fails on every such request), so the evaluator throws this plain value, which captures no stack, and only a
 * caller that wants the error builds one.
 */
export class EvaluationFailure {
  constructor(
    private readonly text: string,
    readonly span: SourceSpan,
    readonly details: Record<string, unknown>,
  ) {}

  /** The message the PolicyEvaluationError carries, position included. */
  get message(): string {
    return `${this.text} (at ${formatPosition(this.span)})`;
  }

  toError(): PolicyEvaluationError {
    return new PolicyEvaluationError(this.text, this.span, this.details);
  }
}

/** The failure of reading a root keyword (`eth`, `wallet`) the request does not have. */
export function missingKeyword(name: string, span: SourceSpan): EvaluationFailure {
  return new EvaluationFailure(`MissingField: '${name}' is not available for this request`, span, { reason: 'MissingField', field: name });
}

/**
 * A failure for want of the steps a decision or search had left (details `shared: true`): a fact about that decision,
 * not about the field and its context, so it is never remembered as the field's result.
 */
export function ranOutOfSharedBudget(failure: EvaluationFailure): boolean {
  return failure.details['shared'] === true;
}

/** `evaluate` for hot paths (the engine, the rehearsal): the value, or the failure without an error built. */
export function evaluateOrFail(ast: Expression, context: PolicyContext, budget?: StepBudget): boolean | EvaluationFailure {
  try {
    const value = new Evaluator(context, budget).evaluate(ast, new Map());
    if (typeof value !== 'boolean') {
      throw typeError(ast.span, `the expression evaluated to a ${describeValue(value)}, not a bool`);
    }
    return value;
  } catch (error) {
    if (error instanceof EvaluationFailure) return error;
    throw error;
  }
}

/** Checks `text` as an expression of `kind` and evaluates it; empty text is `true`. */
export function evaluatePolicyExpression(
  text: string | undefined,
  kind: PolicyExpressionKind,
  context: PolicyContext,
): { readonly ok: true; readonly value: boolean } | { readonly ok: false; readonly error: PolicyParseError | PolicyEvaluationError } {
  const checked = checkPolicyExpression(text, kind);
  return checked.ok ? evaluate(checked.ast, context) : checked;
}

function describeValue(value: unknown): string {
  return policyValueKind(value) ?? `unsupported ${value === null ? 'null' : typeof value}`;
}

const ETHEREUM_ADDRESS = /^0x[0-9a-f]{40}$/i;

/** An Ethereum hex address, in whatever case: `==`, `!=`, `in` and `contains()` compare two of them by value. */
function isEthereumAddress(value: PolicyValue): value is string {
  return typeof value === 'string' && ETHEREUM_ADDRESS.test(value);
}

function typeError(span: SourceSpan, message: string): EvaluationFailure {
  return new EvaluationFailure(`TypeError: ${message}`, span, { reason: 'TypeError' });
}

/** `activity.params`, for messages; undefined when the node is not a plain path. */
function pathOf(node: Expression): string | undefined {
  if (node.type === 'identifier') return node.name;
  if (node.type === 'member') {
    const parent = pathOf(node.object);
    return parent === undefined ? undefined : `${parent}.${node.property}`;
  }
  return undefined;
}

/** One evaluation over one request; `explain.ts` re-evaluates sub-expressions with it to say why. */
export class Evaluator {
  private steps = 0;
  private limit = MAX_EVALUATION_STEPS;

  constructor(
    private readonly context: PolicyContext,
    private readonly shared?: StepBudget,
  ) {}

  /**
   * The value of `node`, within a budget of its own of MAX_EVALUATION_STEPS and within what the shared budget has
   * left; the steps taken are spent from the shared budget, whether the evaluation succeeds or fails.
   */
  evaluate(node: Expression, bindings: Bindings): PolicyValue {
    this.steps = 0;
    this.limit = Math.min(MAX_EVALUATION_STEPS, this.shared?.remaining ?? MAX_EVALUATION_STEPS);
    try {
      return this.value(node, bindings);
    } finally {
      this.shared?.spend(this.steps);
    }
  }

  private step(span: SourceSpan): void {
    this.steps += 1;
    if (this.steps <= this.limit) return;
    if (this.shared !== undefined && this.limit < MAX_EVALUATION_STEPS) {
      const text = `TooCostly: the evaluations of this decision take more than ${this.shared.limit} steps in all`;
      throw new EvaluationFailure(text, span, { reason: 'TooCostly', shared: true });
    }
    throw new EvaluationFailure(`TooCostly: evaluating this takes more than ${MAX_EVALUATION_STEPS} steps`, span, { reason: 'TooCostly' });
  }

  private value(node: Expression, bindings: Bindings): PolicyValue {
    this.step(node.span);
    switch (node.type) {
      case 'bool':
      case 'int':
      case 'string':
        return node.value;
      case 'timestamp':
        return new PolicyTimestamp(node.epochNanoseconds);
      case 'cronSpan':
        return cronSpanContains(node.cronSpan, this.now(node.span));
      case 'list':
        return node.items.map((item) => this.value(item, bindings));
      case 'identifier':
        return this.lookup(node.name, node.span, bindings);
      case 'member':
        return this.member(node.object, node.property, node.propertySpan, bindings);
      case 'index':
        return this.index(node.object, node.index, bindings);
      case 'slice':
        return this.slice(node.object, node.start, node.end, bindings);
      case 'lambda': {
        const list = this.list(node.list, bindings, `${node.method}()`);
        // One scope for every element, rebound each time: nothing keeps it past the predicate's evaluation.
        const inner = new Map(bindings);
        const role = `the predicate of ${node.method}()`;
        const matches = list.map((element) => this.bool(node.predicate, inner.set(node.variable, element), role));
        if (node.method === 'any') return matches.includes(true);
        if (node.method === 'all') return !matches.includes(false);
        return list.filter((_, position) => matches[position]);
      }
      case 'contains': {
        const list = this.list(node.list, bindings, 'contains()');
        const value = this.value(node.value, bindings);
        return this.includes(list, value, node.value.span);
      }
      case 'count':
        return BigInt(this.list(node.list, bindings, 'count()').length);
      case 'not':
        return !this.bool(node.operand, bindings, "the operand of '!'");
      case 'logical': {
        // Left to right, stopping at the first operand that decides: false for `&&`, true for `||`.
        const decisive = node.operator === '||';
        const role = `an operand of '${node.operator}'`;
        for (const operand of logicalOperands(node)) {
          if (this.bool(operand, bindings, role) === decisive) return decisive;
        }
        return !decisive;
      }
      case 'comparison': {
        const left = this.value(node.left, bindings);
        const right = this.value(node.right, bindings);
        switch (node.operator) {
          case '==':
            return this.equals(left, right, node.span);
          case '!=':
            return !this.equals(left, right, node.span);
          default: {
            const order = this.compare(left, right, node.operator, node.span);
            if (node.operator === '<') return order < 0;
            if (node.operator === '>') return order > 0;
            if (node.operator === '<=') return order <= 0;
            return order >= 0;
          }
        }
      }
      case 'in': {
        const value = this.value(node.value, bindings);
        const list = this.list(node.list, bindings, "the right side of 'in'");
        return this.includes(list, value, node.span);
      }
    }
  }

  private lookup(name: string, span: SourceSpan, bindings: Bindings): PolicyValue {
    const bound = bindings.get(name);
    if (bound !== undefined) return bound;
    const value = Object.hasOwn(this.context, name) ? this.context[name as keyof PolicyContext] : undefined;
    if (value === undefined) throw missingKeyword(name, span);
    return value;
  }

  /** `time.now` in whole milliseconds, the resolution CronSpan works at (its fire times are whole minutes). */
  private now(span: SourceSpan): number {
    const now = this.context.time?.now;
    if (now === undefined) {
      throw new EvaluationFailure("MissingField: 'time' is not available for this request", span, { reason: 'MissingField', field: 'time' });
    }
    return Number(now.epochNanoseconds / 1_000_000n);
  }

  private kindOf(value: PolicyValue, span: SourceSpan): PolicyValueKind {
    const kind = policyValueKind(value);
    if (kind === undefined) throw typeError(span, `the request holds an ${describeValue(value)} here, which policies cannot use`);
    return kind;
  }

  private field(struct: PolicyStruct, field: string, span: SourceSpan, owner: Expression): PolicyValue {
    const value = Object.hasOwn(struct, field) ? struct[field] : undefined;
    if (value === undefined) {
      const path = pathOf(owner);
      throw new EvaluationFailure(`MissingField: ${path ?? 'the value'} has no field '${field}'`, span, {
        reason: 'MissingField',
        field,
        ...(path === undefined ? {} : { path }),
      });
    }
    return value;
  }

  private member(objectNode: Expression, property: string, span: SourceSpan, bindings: Bindings): PolicyValue {
    const object = this.value(objectNode, bindings);
    const kind = this.kindOf(object, objectNode.span);
    if (kind === 'struct') return this.field(object as PolicyStruct, property, span, objectNode);
    // The docs write `transfers.count` without parentheses in two places; it means count().
    if (kind === 'list' && property === 'count') return BigInt((object as readonly PolicyValue[]).length);
    throw typeError(span, `cannot read field '${property}' of a ${kind}`);
  }

  private index(objectNode: Expression, indexNode: Expression, bindings: Bindings): PolicyValue {
    const object = this.value(objectNode, bindings);
    const index = this.value(indexNode, bindings);
    const kind = this.kindOf(object, objectNode.span);
    if (kind === 'struct') {
      if (typeof index !== 'string') throw typeError(indexNode.span, `a map key must be a string, not a ${describeValue(index)}`);
      return this.field(object as PolicyStruct, index, indexNode.span, objectNode);
    }
    if (kind !== 'list' && kind !== 'string') throw typeError(objectNode.span, `cannot index into a ${kind}`);
    const items = kind === 'list' ? (object as readonly PolicyValue[]) : Array.from(object as string);
    if (typeof index !== 'bigint') throw typeError(indexNode.span, `an index must be an int, not a ${describeValue(index)}`);
    if (index < 0n || index >= BigInt(items.length)) {
      throw new EvaluationFailure(`IndexOutOfRange: index ${index} is outside the ${kind} of length ${items.length}`, indexNode.span, {
        reason: 'IndexOutOfRange',
      });
    }
    return items[Number(index)]!;
  }

  private slice(objectNode: Expression, startNode: Expression, endNode: Expression, bindings: Bindings): PolicyValue {
    const object = this.value(objectNode, bindings);
    const start = this.value(startNode, bindings);
    const end = this.value(endNode, bindings);
    const kind = this.kindOf(object, objectNode.span);
    if (kind !== 'list' && kind !== 'string') throw typeError(objectNode.span, `only lists and strings can be sliced, not a ${kind}`);
    const items = kind === 'list' ? (object as readonly PolicyValue[]) : Array.from(object as string);
    for (const [bound, node] of [
      [start, startNode],
      [end, endNode],
    ] as const) {
      if (typeof bound !== 'bigint') throw typeError(node.span, `a slice bound must be an int, not a ${describeValue(bound)}`);
    }
    const [from, to] = [start as bigint, end as bigint];
    if (from > to || to > BigInt(items.length)) {
      throw new EvaluationFailure(
        `IndexOutOfRange: slice ${from}..${to} does not fit the ${kind} of length ${items.length}`,
        from > to ? startNode.span : endNode.span,
        { reason: 'IndexOutOfRange' },
      );
    }
    const sliced = items.slice(Number(from), Number(to));
    return kind === 'list' ? sliced : (sliced as string[]).join('');
  }

  private list(node: Expression, bindings: Bindings, usage: string): readonly PolicyValue[] {
    const value = this.value(node, bindings);
    if (!isPolicyList(value)) throw typeError(node.span, `${usage} needs a list, but this is a ${describeValue(value)}`);
    return value;
  }

  private bool(node: Expression, bindings: Bindings, role: string): boolean {
    const value = this.value(node, bindings);
    if (typeof value !== 'boolean') throw typeError(node.span, `${role} must be a bool, but this is a ${describeValue(value)}`);
    return value;
  }

  /** Membership; every element is compared, so a type mismatch anywhere in the list is an error. */
  private includes(list: readonly PolicyValue[], value: PolicyValue, span: SourceSpan): boolean {
    return list
      .map((element) => {
        this.step(span);
        return this.equals(value, element, span);
      })
      .includes(true);
  }

  private equals(left: PolicyValue, right: PolicyValue, span: SourceSpan): boolean {
    const kind = this.kindOf(left, span);
    const rightKind = this.kindOf(right, span);
    if (kind !== rightKind || kind === 'list' || kind === 'struct') {
      throw typeError(span, `cannot compare a ${kind} with a ${rightKind}: equality applies to two strings, ints, bools or timestamps`);
    }
    if (kind === 'timestamp') return (left as PolicyTimestamp).epochNanoseconds === (right as PolicyTimestamp).epochNanoseconds;
    // The views hold checksummed addresses and a policy may name one in any case: the checksum is only the case of
    // its hex digits, so comparing it would let a deny that names the right address silently never match.
    if (isEthereumAddress(left) && isEthereumAddress(right)) return left.toLowerCase() === right.toLowerCase();
    return left === right;
  }

  private compare(left: PolicyValue, right: PolicyValue, operator: string, span: SourceSpan): number {
    const [a, b] =
      typeof left === 'bigint' && typeof right === 'bigint'
        ? [left, right]
        : left instanceof PolicyTimestamp && right instanceof PolicyTimestamp
          ? [left.epochNanoseconds, right.epochNanoseconds]
          : [undefined, undefined];
    if (a === undefined || b === undefined) {
      throw typeError(span, `'${operator}' orders two ints or two timestamps, not a ${describeValue(left)} and a ${describeValue(right)}`);
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }
}
