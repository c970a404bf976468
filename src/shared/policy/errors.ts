import { QkError } from '../errors';
import type { SourceSpan } from './ast';

/** Formats a span as `line:column`, the way messages refer to positions. */
export function formatPosition(span: SourceSpan): string {
  return `${span.line}:${span.column}`;
}

/**
 * A policy expression that cannot be accepted: a lexical or syntax error, or a static check failure. The message
 * names the position; `details` carries it as data so an editor can underline the exact range.
 */
export class PolicyParseError extends QkError {
  readonly span: SourceSpan;

  constructor(message: string, span: SourceSpan, details: Record<string, unknown> = {}) {
    super('POLICY_PARSE_ERROR', `${message} (at ${formatPosition(span)})`, { ...spanDetails(span), ...details });
    this.name = 'PolicyParseError';
    this.span = span;
  }
}

/**
 * A policy expression that parsed but could not be evaluated against the request (missing field, type mismatch,
 * index out of range). Turnkey reports the whole policy as OUTCOME_ERROR in that case.
 */
export class PolicyEvaluationError extends QkError {
  readonly span: SourceSpan;

  constructor(message: string, span: SourceSpan, details: Record<string, unknown> = {}) {
    super('POLICY_EVALUATION_ERROR', `${message} (at ${formatPosition(span)})`, { ...spanDetails(span), ...details });
    this.name = 'PolicyEvaluationError';
    this.span = span;
  }
}

function spanDetails(span: SourceSpan): Record<string, unknown> {
  return { offset: span.offset, line: span.line, column: span.column, length: span.length };
}
