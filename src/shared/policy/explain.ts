/**
 * Why an expression came out as it did: the sub-expressions that decided it, each with the values it read. A second
 * pass, run only for the policies that decided a request (a denial, a wait for votes), so `evaluate` stays the hot
 * path the service runs on every activity.
 *
 * What decides: a false `&&` is decided by its first false operand, a true `||` by its first true one; a true `&&`
 * or a false `||` needs every operand, so each is listed. `!` passes the question to its operand. `all` that is false
 * is decided by its first element whose predicate is false, `any` that is true by its first that is true, and the
 * element is named among the values read. Anything else (a comparison, `in`, `contains`, a field that is a bool) is
 * one part. An expression that errors is explained by the smallest part around the error, with why in words.
 */
import { logicalOperands, type Expression, type LambdaCall, type SourceSpan } from './ast';
import { PolicyEvaluationError } from './errors';
import { EvaluationFailure, Evaluator } from './evaluator';
import { failureInWords } from './failure-words';
import { isPolicyList, PolicyTimestamp, type PolicyContext, type PolicyValue } from './values';

export type ExplainedOutcome = 'true' | 'false' | 'error';

/** A value a part read: the sub-expression as written (or a bound variable) and its value in words. */
export interface ExplainedRead {
  expression: string;
  /** Where the expression is in the text; absent for a bound variable. */
  span?: SourceSpan;
  value: string;
}

export interface ExplainedPart {
  span: SourceSpan;
  /** The part as written. */
  text: string;
  outcome: ExplainedOutcome;
  reads: ExplainedRead[];
  /** Why it could not be evaluated (outcome `error`). */
  error?: string;
}

export interface Explanation {
  outcome: ExplainedOutcome;
  parts: ExplainedPart[];
}

type Bindings = ReadonlyMap<string, PolicyValue>;

/** Values longer than this are cut: a part's reads are for a person, not a dump of the request. */
const MAX_VALUE_TEXT = 160;
const MAX_LIST_ITEMS_SHOWN = 5;

/** Explains `ast`, parsed from `source`, over `context`. */
export function explain(ast: Expression, source: string, context: PolicyContext): Explanation {
  return new Explainer(new Evaluator(context), source).explain(ast);
}

class Explainer {
  constructor(
    private readonly evaluator: Evaluator,
    private readonly source: string,
  ) {}

  explain(ast: Expression): Explanation {
    const bindings: Bindings = new Map();
    const value = this.attempt(ast, bindings);
    if (value instanceof PolicyEvaluationError) return { outcome: 'error', parts: [this.errorPart(ast, value)] };
    if (typeof value !== 'boolean') return { outcome: 'error', parts: [this.part(ast, bindings, 'error', `it is not a bool`)] };
    return { outcome: value ? 'true' : 'false', parts: this.why(ast, bindings, value) };
  }

  /** The parts that make `node` (known to evaluate to `value`) come out as `value`. */
  private why(node: Expression, bindings: Bindings, value: boolean): ExplainedPart[] {
    if (node.type === 'not') return this.why(node.operand, bindings, !value);
    if (node.type === 'logical') {
      const operands = logicalOperands(node);
      const everyOperand = (node.operator === '&&') === value;
      const deciding = everyOperand ? operands : operands.filter((operand) => this.attempt(operand, bindings) === value).slice(0, 1);
      return deciding.flatMap((operand) => this.why(operand, bindings, value));
    }
    if (node.type === 'lambda' && ((node.method === 'all' && !value) || (node.method === 'any' && value))) {
      const element = this.decidingElement(node, bindings, value);
      if (element !== undefined) {
        const bound = `${node.variable} = item ${element.position + 1} of ${element.count} in ${this.textOf(node.list.span)}`;
        return this.why(node.predicate, element.bindings, value).map((part) => ({
          ...part,
          reads: [{ expression: node.variable, value: bound }, ...part.reads],
        }));
      }
    }
    return [this.part(node, bindings, value ? 'true' : 'false')];
  }

  private decidingElement(node: LambdaCall, bindings: Bindings, value: boolean) {
    const list = this.attempt(node.list, bindings);
    if (!Array.isArray(list)) return undefined;
    const items = list as readonly PolicyValue[];
    for (const [position, item] of items.entries()) {
      const inner = new Map(bindings).set(node.variable, item);
      if (this.attempt(node.predicate, inner) === value) return { position, count: items.length, bindings: inner };
    }
    return undefined;
  }

  private part(node: Expression, bindings: Bindings, outcome: ExplainedOutcome, error?: string): ExplainedPart {
    const reads = readOperands(node).map((operand) => ({
      expression: this.textOf(operand.span),
      span: operand.span,
      value: this.valueText(operand, bindings),
    }));
    return { span: node.span, text: this.textOf(node.span), outcome, reads, ...(error === undefined ? {} : { error }) };
  }

  /** The smallest part around the error, reading what can be read of it. */
  private errorPart(ast: Expression, error: PolicyEvaluationError): ExplainedPart {
    const around = enclosingPart(ast, error.span) ?? ast;
    return this.part(around, new Map(), 'error', failureInWords(error.details ?? {}));
  }

  private attempt(node: Expression, bindings: Bindings): PolicyValue | PolicyEvaluationError {
    try {
      return this.evaluator.evaluate(node, bindings);
    } catch (error) {
      if (error instanceof EvaluationFailure) return error.toError();
      if (error instanceof PolicyEvaluationError) return error;
      throw error;
    }
  }

  private valueText(node: Expression, bindings: Bindings): string {
    const value = this.attempt(node, bindings);
    return value instanceof PolicyEvaluationError ? `cannot be read (${failureInWords(value.details ?? {})})` : valueInWords(value);
  }

  private textOf(span: SourceSpan): string {
    return this.source.slice(span.offset, span.offset + span.length);
  }
}

/** A literal needs no reading: it is there in the text. */
function isLiteral(node: Expression): boolean {
  if (node.type === 'list') return node.items.every(isLiteral);
  return node.type === 'bool' || node.type === 'int' || node.type === 'string' || node.type === 'timestamp';
}

/** The sub-expressions a part reads from the request, whose values explain it. */
function readOperands(node: Expression): Expression[] {
  const operands = (() => {
    switch (node.type) {
      case 'comparison':
        return [node.left, node.right];
      case 'in':
        return [node.value, node.list];
      case 'contains':
        return [node.list, node.value];
      case 'lambda':
      case 'count':
        return [node.list];
      case 'identifier':
      case 'member':
      case 'index':
        return [node];
      default:
        return [];
    }
  })();
  return operands.filter((operand) => !isLiteral(operand));
}

/** The innermost part (anything but `&&`, `||` and `!`) whose span holds `span`. */
function enclosingPart(node: Expression, span: SourceSpan): Expression | undefined {
  const holds = (candidate: Expression) =>
    candidate.span.offset <= span.offset && span.offset + span.length <= candidate.span.offset + candidate.span.length;
  if (!holds(node)) return undefined;
  if (node.type === 'not') return enclosingPart(node.operand, span) ?? node;
  if (node.type === 'logical') {
    for (const operand of logicalOperands(node)) {
      const found = enclosingPart(operand, span);
      if (found !== undefined) return found;
    }
  }
  return node;
}

export function valueInWords(value: PolicyValue): string {
  const text = (() => {
    if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
    if (typeof value === 'string') return `'${value}'`;
    if (value instanceof PolicyTimestamp) return new Date(Number(value.epochNanoseconds / 1_000_000n)).toISOString();
    if (isPolicyList(value)) {
      if (value.length === 0) return '[] (empty)';
      if (value.some((item) => typeof item === 'object')) return `${value.length} ${value.length === 1 ? 'item' : 'items'}`;
      const shown = value.slice(0, MAX_LIST_ITEMS_SHOWN).map(valueInWords).join(', ');
      return `[${shown}${value.length > MAX_LIST_ITEMS_SHOWN ? `, … ${value.length - MAX_LIST_ITEMS_SHOWN} more` : ''}]`;
    }
    return `a struct with ${Object.keys(value).join(', ')}`;
  })();
  return text.length > MAX_VALUE_TEXT ? `${text.slice(0, MAX_VALUE_TEXT - 1)}…` : text;
}
