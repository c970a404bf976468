/**
 * The one point where main stamps an activity or a vote: the API client before it stamps a submission, and the
 * offline stamper before it stamps one into a file. A stamp check there (see stamp-check.ts) sees every activity
 * whatever channel asked for it, so a new channel cannot stamp without it.
 */
import { operationByPath, type ActivityOperation } from '../../shared/api';
import { QkError } from '../../shared/errors';
import type { Reading } from './confirmation';

export interface Submission {
  operation: ActivityOperation;
  /** The submit body's `parameters`: the activity's intent. */
  parameters: Readonly<Record<string, unknown>>;
  /** Posted to the service now, or stamped into an offline file to be posted later. */
  delivery: 'post' | 'file';
}

/**
 * Runs before main stamps a submission; throws to stop it (nothing is stamped then). Answers the reading a person
 * confirmed, when one was shown, so the journal records what they saw.
 */
export type StampCheck = (submission: Submission) => Promise<Reading | undefined>;

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
  return { operation, parameters: parameters as Record<string, unknown>, delivery };
}
