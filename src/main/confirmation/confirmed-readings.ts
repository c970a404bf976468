/**
 * The one-line readings a person went ahead on in main's confirmation, by the fingerprint of the body about to be
 * stamped, kept until the stamper takes it. A hardware credential's prompt (a token's PIN) restates the line found
 * for the bytes it signs: a body swapped after the confirmation finds none, and the prompt says so.
 *
 * A request that fails between the confirmation and its stamp never comes to take its line, so lines also expire:
 * after `maxAgeMs`, and the oldest first once more than `maxEntries` wait. The stamp follows its confirmation at once,
 * so either bound is far beyond what a request that does get stamped needs.
 */
export interface ConfirmedReadingsOptions {
  now?: () => number;
  maxAgeMs?: number;
  maxEntries?: number;
}

/** Each line waits for one stamp that comes right after the person went ahead; five minutes is ample. */
export const CONFIRMED_READING_MAX_AGE_MS = 5 * 60_000;
/** Each line waiting is a confirmation a person answered: more than this many at once means they were left behind. */
export const CONFIRMED_READINGS_MAX_ENTRIES = 32;

export class ConfirmedReadings {
  /** In the order confirmed (a body confirmed again moves to the end), so the oldest come first. */
  readonly #byBody = new Map<string, { reading: string; confirmedAt: number }>();
  readonly #now: () => number;
  readonly #maxAgeMs: number;
  readonly #maxEntries: number;

  constructor({
    now = Date.now,
    maxAgeMs = CONFIRMED_READING_MAX_AGE_MS,
    maxEntries = CONFIRMED_READINGS_MAX_ENTRIES,
  }: ConfirmedReadingsOptions = {}) {
    this.#now = now;
    this.#maxAgeMs = maxAgeMs;
    this.#maxEntries = maxEntries;
  }

  /** Called once the person went ahead: the stamp of the body with `bodyFingerprint` comes next. */
  confirmed(bodyFingerprint: string, reading: string): void {
    this.#forgetExpired();
    this.#byBody.delete(bodyFingerprint);
    this.#byBody.set(bodyFingerprint, { reading, confirmedAt: this.#now() });
    for (const oldest of this.#byBody.keys()) {
      if (this.#byBody.size <= this.#maxEntries) break;
      this.#byBody.delete(oldest);
    }
  }

  /** The line confirmed for this body, forgotten once taken: each confirmation covers one stamp. */
  take(bodyFingerprint: string): string | undefined {
    this.#forgetExpired();
    const entry = this.#byBody.get(bodyFingerprint);
    this.#byBody.delete(bodyFingerprint);
    return entry?.reading;
  }

  #forgetExpired(): void {
    const now = this.#now();
    for (const [body, { confirmedAt }] of this.#byBody) {
      if (now - confirmedAt > this.#maxAgeMs) this.#byBody.delete(body);
    }
  }
}
