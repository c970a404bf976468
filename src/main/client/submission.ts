/**
 * An activity submission as main is about to stamp it: the API client before it stamps a post, and the offline
 * stamper before it stamps one into a file. Whoever checks stamps (main's confirmation) reads it from here, so a new
 * channel cannot stamp without the check seeing the same submission.
 */
import { operationByPath, type ActivityOperation } from '../../shared/api';
import { utf8Encode } from '../../shared/crypto/encoding';
import { fingerprintOf } from '../../shared/crypto/stamp';
import { QkError } from '../../shared/errors';

export interface Submission {
  operation: ActivityOperation;
  /** The submit body's `parameters`: the activity's intent. */
  parameters: Readonly<Record<string, unknown>>;
  /** Posted to the service now, or stamped into an offline file to be posted later. */
  delivery: 'post' | 'file';
  /** `sha256:` + hex of the exact body to be stamped (fingerprintOf): what a hardware key's prompt restates. */
  bodyFingerprint: string;
  /** The exact body to be stamped: whether it is a vote decides which of a profile's credentials stamps it. */
  body: string;
}

/** The activity submission `body` carries to `path`; undefined when `path` is not an activity submission (a query). */
export function submissionOf(path: string, body: string, delivery: Submission['delivery']): Submission | undefined {
  const operation = operationByPath(path);
  if (operation?.kind !== 'activity') return undefined;
  let parameters: unknown;
  try {
    parameters = (JSON.parse(body) as { parameters?: unknown }).parameters;
  } catch {
    throw new QkError('REQUEST_INVALID', `the body for ${path} is not valid JSON`, { path });
  }
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw new QkError('REQUEST_INVALID', `the body for ${path} has no parameters object`, { path });
  }
  return { operation, parameters: parameters as Record<string, unknown>, delivery, bodyFingerprint: fingerprintOf(utf8Encode(body)), body };
}
