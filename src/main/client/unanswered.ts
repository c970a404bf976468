/**
 * Submit bodies that were sent but never answered, kept for a while so that submitting the same request again
 * re-sends the same body, timestamp included. The service answers a byte-identical body from the same user with the
 * activity it already created (the fingerprint is the body's hash, docs/service.md#fingerprint-idempotency-and-votes),
 * so a retry after a time-out, a dropped connection or a 5xx never creates a second activity, whether or not the
 * first attempt arrived.
 */
import canonicalize from 'canonicalize';

/**
 * How long a body is kept: well inside the service's freshness window (a `timestampMs` less than one hour old), so a
 * re-sent body is never refused as stale, even with some clock skew.
 */
export const UNANSWERED_KEEP_MS = 45 * 60_000;

export interface UnansweredSubmission {
  body: string;
  /** When the body was first sent, by the client's clock. */
  sentAtMs: number;
}

/** What makes two submissions the same request: where it goes, who stamps it, the operation and its parameters. */
export interface SubmissionIdentity {
  baseUrl: string;
  apiKeyName: string;
  organizationId: string;
  operation: string;
  parameters: unknown;
}

export class UnansweredSubmissions {
  readonly #bodies = new Map<string, UnansweredSubmission>();
  readonly #now: () => number;

  constructor({ now = Date.now }: { now?: () => number } = {}) {
    this.#now = now;
  }

  /** The body of an earlier unanswered attempt at the same request, if one is still fresh enough to re-send. */
  find(identity: SubmissionIdentity): UnansweredSubmission | undefined {
    this.#dropStale();
    return this.#bodies.get(keyOf(identity));
  }

  remember(identity: SubmissionIdentity, submission: UnansweredSubmission): void {
    this.#dropStale();
    this.#bodies.set(keyOf(identity), submission);
  }

  /** The request was answered (an activity, or a refusal): a new attempt is a new request. */
  forget(identity: SubmissionIdentity): void {
    this.#bodies.delete(keyOf(identity));
  }

  #dropStale(): void {
    const oldest = this.#now() - UNANSWERED_KEEP_MS;
    for (const [key, { sentAtMs }] of this.#bodies) if (sentAtMs < oldest) this.#bodies.delete(key);
  }
}

function keyOf({ baseUrl, apiKeyName, organizationId, operation, parameters }: SubmissionIdentity): string {
  // Canonical (RFC 8785): the same parameters built in another key order are the same request.
  return canonicalize([baseUrl, apiKeyName, organizationId, operation, parameters]) ?? '';
}
