/**
 * Turning zod failures into QkErrors whose message names every offending field path,
 * e.g. `parameters.policies[0].effect: Invalid option: expected one of "EFFECT_ALLOW"|"EFFECT_DENY"`.
 */
import type { z } from 'zod';
import { QkError, type ErrorCode } from '../errors';

export interface FieldIssue {
  /** Dotted path from the body root, `""` for the body itself. */
  readonly path: string;
  readonly message: string;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** One entry per offending field; an object with several unknown keys gives one entry per key. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: formatPath([...issue.path, key]),
          message: 'unknown field; remove it (this operation does not accept it)',
        }))
      : [{ path: formatPath(issue.path), message: issue.message }],
  );
}

function describe(issues: readonly FieldIssue[]): string {
  return issues.map(({ path, message }) => `${path === '' ? '(body)' : path}: ${message}`).join('; ');
}

function parseOrThrow<S extends z.ZodType>(code: ErrorCode, schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = fieldIssues(parsed.error);
  throw new QkError(code, `${what} is invalid: ${describe(issues)}`, { issues });
}

/** Validates what a caller sent; failures are REQUEST_INVALID naming each field path. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  return parseOrThrow('REQUEST_INVALID', schema, value, what);
}

/** Validates what a service answered; failures are RESPONSE_INVALID naming each field path. */
export function parseResponse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  return parseOrThrow('RESPONSE_INVALID', schema, value, what);
}
