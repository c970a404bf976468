/**
 * The one-line readings a person went ahead on in main's confirmation, by the fingerprint of the body about to be
 * stamped, kept until the stamper takes it. A hardware credential's prompt (a token's PIN) restates the line found
 * for the bytes it signs: a body swapped after the confirmation finds none, and the prompt says so.
 */
export class ConfirmedReadings {
  readonly #byBody = new Map<string, string>();

  /** Called once the person went ahead: the stamp of the body with `bodyFingerprint` comes next. */
  confirmed(bodyFingerprint: string, reading: string): void {
    this.#byBody.set(bodyFingerprint, reading);
  }

  /** The line confirmed for this body, forgotten once taken: each confirmation covers one stamp. */
  take(bodyFingerprint: string): string | undefined {
    const reading = this.#byBody.get(bodyFingerprint);
    this.#byBody.delete(bodyFingerprint);
    return reading;
  }
}
