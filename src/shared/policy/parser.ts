import type {
  ComparisonOperator,
  CronSpanCall,
  Expression,
  Identifier,
  LambdaMethod,
  PolicyExpressionKind,
  SourceSpan,
  StringLiteral,
  TimestampLiteral,
} from './ast';
import { parseCronSchedule, parseSpanDuration, parseTimeZone, type CronArgumentResult } from './cron-span';
import { PolicyParseError, formatPosition } from './errors';
import { parseTimestamp } from './timestamp';
import { tokenize, type Token, type TokenKind } from './tokenizer';

/** Deepest nesting of parentheses, brackets, calls, `!` and chained `.x`/`[i]` accepted in one expression. */
export const MAX_NESTING_DEPTH = 64;

const COMPARISON_OPERATORS: ReadonlySet<TokenKind> = new Set(['==', '!=', '<', '>', '<=', '>=']);
const LAMBDA_METHODS: ReadonlySet<string> = new Set<LambdaMethod>(['any', 'all', 'filter']);
const METHOD_NAMES = ['any', 'all', 'filter', 'contains', 'count'] as const;

/**
 * Parses a policy expression into its AST, or throws a PolicyParseError naming the position and what was expected.
 * An empty (or all-whitespace) expression imposes no constraint and parses as `true`. Given the expression's
 * `kind`, a function that kind cannot use (CronSpan outside `time`) is refused by name.
 */
export function parsePolicyExpression(text: string, kind?: PolicyExpressionKind): Expression {
  return new Parser(tokenize(text), kind).parseWhole();
}

/** The span from the start of `first` to the end of `last`. */
function spanBetween(first: SourceSpan, last: SourceSpan): SourceSpan {
  return {
    offset: first.offset,
    line: first.line,
    column: first.column,
    length: last.offset + last.length - first.offset,
  };
}

function describeToken(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'end of expression';
    case 'string':
      return `string '${token.value}'`;
    case 'int':
      return `number ${token.value}`;
    case 'identifier':
      return `'${token.name}'`;
    default:
      return `'${token.kind}'`;
  }
}

class Parser {
  private position = 0;
  private depth = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly kind: PolicyExpressionKind | undefined,
  ) {}

  parseWhole(): Expression {
    const first = this.peek();
    if (first.kind === 'end') return { type: 'bool', value: true, span: first.span };
    const expression = this.parseOr();
    const trailing = this.peek();
    if (trailing.kind !== 'end') {
      const hint = trailing.kind === ')' || trailing.kind === ']' ? ` with no matching opening bracket` : '';
      throw this.errorAt(trailing, `unexpected ${describeToken(trailing)}${hint} after a complete expression`, 'end of expression or an operator');
    }
    return expression;
  }

  private peek(): Token {
    return this.tokens[this.position]!;
  }

  private advance(): Token {
    const token = this.tokens[this.position]!;
    if (token.kind !== 'end') this.position += 1;
    return token;
  }

  private errorAt(token: Token, message: string, expected?: string): PolicyParseError {
    return new PolicyParseError(message, token.span, {
      ...(expected === undefined ? {} : { expected }),
      found: describeToken(token),
    });
  }

  /** Consumes the closing bracket of a construct opened at `opener`, or explains which one is missing. */
  private expectClosing(kind: ')' | ']', construct: string, opener: Token): Token {
    const token = this.peek();
    if (token.kind !== kind) {
      throw this.errorAt(
        token,
        `expected '${kind}' to close the ${construct} opened at ${formatPosition(opener.span)}, found ${describeToken(token)}`,
        `'${kind}'`,
      );
    }
    return this.advance();
  }

  private enterNesting(token: Token): void {
    this.depth += 1;
    if (this.depth > MAX_NESTING_DEPTH) {
      throw new PolicyParseError(
        `expression nests more than ${MAX_NESTING_DEPTH} levels deep; simplify it or split it into several policies`,
        token.span,
        { limit: MAX_NESTING_DEPTH },
      );
    }
  }

  private parseOr(): Expression {
    let left = this.parseAnd();
    while (this.peek().kind === '||') {
      const operator = this.advance();
      const right = this.parseAnd(operator);
      left = { type: 'logical', operator: '||', left, right, span: spanBetween(left.span, right.span) };
    }
    return left;
  }

  private parseAnd(after?: Token): Expression {
    let left = this.parseComparison(after);
    while (this.peek().kind === '&&') {
      const operator = this.advance();
      const right = this.parseComparison(operator);
      left = { type: 'logical', operator: '&&', left, right, span: spanBetween(left.span, right.span) };
    }
    return left;
  }

  private parseComparison(after?: Token): Expression {
    const left = this.parseUnary(after);
    const operator = this.peek();
    if (!COMPARISON_OPERATORS.has(operator.kind) && operator.kind !== 'in') return left;
    this.advance();
    const right = this.parseUnary(operator);
    const span = spanBetween(left.span, right.span);
    const chained = this.peek();
    if (COMPARISON_OPERATORS.has(chained.kind) || chained.kind === 'in') {
      throw this.errorAt(
        chained,
        `comparisons do not chain: add parentheses to say which ${describeToken(operator)} or ${describeToken(chained)} comes first`,
        "'&&', '||' or end of expression",
      );
    }
    if (operator.kind === 'in') return { type: 'in', value: left, list: right, span };
    return { type: 'comparison', operator: operator.kind as ComparisonOperator, left, right, span };
  }

  private parseUnary(after?: Token): Expression {
    const token = this.peek();
    this.enterNesting(token);
    let expression: Expression;
    if (token.kind === '!') {
      this.advance();
      const operand = this.parseUnary(token);
      expression = { type: 'not', operand, span: spanBetween(token.span, operand.span) };
    } else {
      expression = this.parsePostfix(after);
    }
    this.depth -= 1;
    return expression;
  }

  private parsePostfix(after?: Token): Expression {
    let expression = this.parsePrimary(after);
    const baseDepth = this.depth;
    for (;;) {
      const token = this.peek();
      if (token.kind !== '.' && token.kind !== '[') {
        this.depth = baseDepth;
        return expression;
      }
      // Each `.x` or `[i]` wraps the tree one level deeper, just as a parenthesis would.
      this.enterNesting(token);
      this.advance();
      expression = token.kind === '.' ? this.parseMember(expression) : this.parseIndex(expression, token);
    }
  }

  private parseMember(object: Expression): Expression {
    const name = this.peek();
    if (name.kind !== 'identifier') {
      throw this.errorAt(name, `expected a field or method name after '.', found ${describeToken(name)}`, 'a name');
    }
    this.advance();
    if (this.peek().kind !== '(') {
      return { type: 'member', object, property: name.name, propertySpan: name.span, span: spanBetween(object.span, name.span) };
    }
    const open = this.advance();
    const args = this.parseArguments(open, 'call');
    const close = this.tokens[this.position - 1]!;
    const span = spanBetween(object.span, close.span);
    const method = name.name;
    if (LAMBDA_METHODS.has(method)) {
      this.expectArity(method, args, 2, name, close, '(variable, predicate)');
      const variable = args[0]!;
      if (variable.type !== 'identifier') {
        throw new PolicyParseError(
          `the first argument of ${method}() must be a variable name that the predicate uses, like ${method}(x, x == 'value')`,
          variable.span,
          { expected: 'a variable name' },
        );
      }
      return {
        type: 'lambda',
        method: method as LambdaMethod,
        list: object,
        variable: variable.name,
        variableSpan: variable.span,
        predicate: args[1]!,
        span,
      };
    }
    if (method === 'contains') {
      this.expectArity(method, args, 1, name, close, '(value)');
      return { type: 'contains', list: object, value: args[0]!, span };
    }
    if (method === 'count') {
      this.expectArity(method, args, 0, name, close, '()');
      return { type: 'count', list: object, span };
    }
    throw new PolicyParseError(`unknown method '${method}': lists have ${METHOD_NAMES.map((known) => `${known}()`).join(', ')}`, name.span, {
      expected: METHOD_NAMES.join(' | '),
      found: method,
    });
  }

  private expectArity(method: string, args: readonly Expression[], arity: number, name: Token, close: Token, shape: string): void {
    if (args.length === arity) return;
    const span = args.length > arity ? args[arity]!.span : spanBetween(name.span, close.span);
    throw new PolicyParseError(
      `${method}() takes ${arity === 0 ? 'no arguments' : `${arity} argument${arity === 1 ? '' : 's'}`}, found ${args.length}: write ${method}${shape}`,
      span,
      { expected: arity, found: args.length },
    );
  }

  private parseIndex(object: Expression, open: Token): Expression {
    const start = this.parseOr();
    if (this.peek().kind === '..') {
      this.advance();
      const end = this.parseOr();
      const close = this.expectClosing(']', 'slice', open);
      return { type: 'slice', object, start, end, span: spanBetween(object.span, close.span) };
    }
    const close = this.expectClosing(']', 'index', open);
    return { type: 'index', object, index: start, span: spanBetween(object.span, close.span) };
  }

  /** Parses `a, b, c)` after an opening bracket; the closing token is consumed. */
  private parseArguments(open: Token, construct: string): Expression[] {
    const closing = open.kind === '[' ? ']' : ')';
    const items: Expression[] = [];
    if (this.peek().kind === closing) {
      this.advance();
      return items;
    }
    for (;;) {
      items.push(this.parseOr());
      if (this.peek().kind !== ',') break;
      this.advance();
    }
    this.expectClosing(closing, construct, open);
    return items;
  }

  private parsePrimary(after?: Token): Expression {
    const token = this.advance();
    switch (token.kind) {
      case 'true':
      case 'false':
        return { type: 'bool', value: token.kind === 'true', span: token.span };
      case 'int':
        return { type: 'int', value: token.value, span: token.span };
      case 'string':
        return { type: 'string', value: token.value, span: token.span };
      case '(': {
        const inner = this.parseOr();
        const close = this.expectClosing(')', 'parenthesis', token);
        // The span grows to cover the parentheses so that errors point at what the operator wrote.
        return { ...inner, span: spanBetween(token.span, close.span) };
      }
      case '[': {
        const items = this.parseArguments(token, 'list');
        const close = this.tokens[this.position - 1]!;
        return { type: 'list', items, span: spanBetween(token.span, close.span) };
      }
      case 'identifier': {
        if (this.peek().kind !== '(') return { type: 'identifier', name: token.name, span: token.span } satisfies Identifier;
        return this.parseFunctionCall(token);
      }
      default: {
        const context = after === undefined ? '' : ` after ${describeToken(after)}`;
        throw this.errorAt(token, `expected a value${context} (a literal, a name, a list or '('), found ${describeToken(token)}`, 'a value');
      }
    }
  }

  private parseFunctionCall(name: Token & { kind: 'identifier' }): TimestampLiteral | CronSpanCall {
    // Refused by name first, so that an operator who used the wrong field hears that before argument details.
    if (name.name === 'CronSpan' && this.kind !== undefined && this.kind !== 'time') {
      throw new PolicyParseError(`CronSpan() belongs in a policy's time expression; a ${this.kind} expression cannot use it`, name.span, {
        found: name.name,
      });
    }
    if (name.name !== 'Timestamp' && name.name !== 'CronSpan') {
      const known = this.kind === undefined || this.kind === 'time' ? "Timestamp('<RFC 3339 time>') and CronSpan(…)" : "Timestamp('<RFC 3339 time>')";
      throw new PolicyParseError(`unknown function '${name.name}': the functions are ${known}`, name.span, { found: name.name });
    }
    const open = this.advance();
    const args = this.parseArguments(open, 'call');
    const close = this.tokens[this.position - 1]!;
    const span = spanBetween(name.span, close.span);
    return name.name === 'CronSpan' ? parseCronSpanCall(args, span) : parseTimestampCall(args, span);
  }
}

function parseTimestampCall(args: readonly Expression[], span: SourceSpan): TimestampLiteral {
  const text = args[0];
  if (args.length !== 1 || text === undefined || text.type !== 'string') {
    throw new PolicyParseError("Timestamp() takes one string argument, like Timestamp('2026-03-01T00:00:00Z')", text?.span ?? span, {
      expected: 'one string argument',
      found: args.length,
    });
  }
  const epochNanoseconds = parseTimestamp(text.value);
  if (epochNanoseconds === undefined) {
    throw new PolicyParseError(`'${text.value}' is not an RFC 3339 time in UTC: write it like '2026-03-01T00:00:00Z'`, text.span, {
      expected: 'YYYY-MM-DDTHH:MM:SS[.fraction]Z',
    });
  }
  return { type: 'timestamp', text: text.value, epochNanoseconds, span };
}

const CRON_SPAN_USAGE = "CronSpan('<cron schedule>', '<duration>', '<IANA time zone>'), like CronSpan('0 9 * * 1-5', '8h', 'America/New_York')";

/** Checks the three literal arguments of CronSpan() now, so that a bad one is refused when the policy is written. */
function parseCronSpanCall(args: readonly Expression[], span: SourceSpan): CronSpanCall {
  const nonString = args.find((arg) => arg.type !== 'string');
  if (args.length !== 3 || nonString !== undefined) {
    const culprit = nonString ?? args[3];
    throw new PolicyParseError(
      nonString === undefined
        ? `CronSpan() takes 3 arguments, found ${args.length}: write ${CRON_SPAN_USAGE}`
        : `CronSpan() arguments must be string literals: write ${CRON_SPAN_USAGE}`,
      culprit?.span ?? span,
      { expected: 'three string arguments', found: args.length },
    );
  }
  const [schedule, duration, timeZone] = args as [StringLiteral, StringLiteral, StringLiteral];
  return {
    type: 'cronSpan',
    args: [schedule.value, duration.value, timeZone.value],
    cronSpan: {
      schedule: cronArgument(parseCronSchedule(schedule.value), schedule, 'schedule'),
      durationMinutes: cronArgument(parseSpanDuration(duration.value), duration, 'duration'),
      timeZone: cronArgument(parseTimeZone(timeZone.value), timeZone, 'time zone'),
    },
    span,
  };
}

function cronArgument<T>(result: CronArgumentResult<T>, literal: StringLiteral, argument: string): T {
  if (result.ok) return result.value;
  throw new PolicyParseError(`CronSpan() ${argument}: ${result.reason}`, spanInside(literal, result.start, result.length), {
    argument,
  });
}

/**
 * The span of characters `start`…`start + length` of a string literal's value, when the literal is written
 * verbatim on one line (no escapes, so value offsets are source offsets); the whole literal otherwise.
 */
function spanInside(literal: StringLiteral, start: number, length: number): SourceSpan {
  const verbatim = literal.span.length === literal.value.length + 2 && !literal.value.includes('\n');
  if (!verbatim) return literal.span;
  return {
    offset: literal.span.offset + 1 + start,
    line: literal.span.line,
    column: literal.span.column + 1 + start,
    length,
  };
}
