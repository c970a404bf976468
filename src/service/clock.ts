/**
 * The Sandbox's clock (docs/sandbox.md#the-clock): the wall clock, moved forward on request when the service was
 * started with clock control, so that tests of expiry (the 24 h consensus window, session and OTP lifetimes, policy
 * time windows) need not wait.
 */
import { QkError } from '../shared/errors';

export class SandboxClock {
  private offsetMs = 0;

  constructor(
    /** The wall clock (tests inject their own). */
    readonly wall: () => number,
    /** Whether the clock may be moved: off unless the service was started with it. */
    readonly controllable: boolean,
  ) {}

  /** The Sandbox's time: what expiry, votes and records read. */
  readonly now = (): number => this.wall() + this.offsetMs;

  /** How far the Sandbox's time is ahead of the wall clock. */
  get aheadMs(): number {
    return this.offsetMs;
  }

  /**
   * Puts the clock back `aheadMs` ahead of the wall clock, as it was when a snapshot was taken or a state dumped
   * (docs/sandbox.md#snapshots). Not a move a request makes: the records restored with it are all older than the
   * time it gives, so they stay in time order.
   */
  returnTo(aheadMs: number): void {
    this.offsetMs = aheadMs;
  }

  /** Moves the clock forward by `ms`, or to `toMs`; it never goes back, as records are kept in time order. */
  move(change: { byMs: number } | { toMs: number }): void {
    if (!this.controllable) {
      throw new QkError('FAILED_PRECONDITION', 'the Sandbox clock is not controllable: start the service with --clock-control to move it');
    }
    const target = 'byMs' in change ? this.now() + change.byMs : change.toMs;
    const now = this.now();
    if (target < now) {
      throw new QkError('REQUEST_INVALID', `the Sandbox clock only moves forward: ${target} is before its time ${now}`, { nowMs: String(now) });
    }
    this.offsetMs += target - now;
  }
}
