/**
 * The confirmed lines waiting for their stamp: each taken once, and none left behind by a request that failed before
 * it was stamped (they expire by age, and the oldest go once too many wait).
 */
import { describe, expect, it } from 'vitest';
import { ConfirmedReadings } from '../../src/main/confirmation/confirmed-readings';

/** A clock the test moves by hand. */
function manualClock(start = 1_700_000_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

describe('confirmed readings', () => {
  it('gives the line confirmed for a body once, and none for a body never confirmed', () => {
    const readings = new ConfirmedReadings();
    readings.confirmed('sha256:aa', 'Approve "Send 1 ETH"');
    expect(readings.take('sha256:bb')).toBeUndefined();
    expect(readings.take('sha256:aa')).toBe('Approve "Send 1 ETH"');
    expect(readings.take('sha256:aa')).toBeUndefined();
  });

  it('keeps a line up to its age bound and forgets it after', () => {
    const clock = manualClock();
    const readings = new ConfirmedReadings({ now: clock.now, maxAgeMs: 60_000 });
    readings.confirmed('sha256:kept', 'kept');
    readings.confirmed('sha256:stale', 'stale');
    clock.advance(60_000);
    expect(readings.take('sha256:kept')).toBe('kept');
    clock.advance(1);
    expect(readings.take('sha256:stale')).toBeUndefined();
  });

  it('forgets an expired line when another is confirmed, even if nothing asks for it', () => {
    const clock = manualClock();
    const readings = new ConfirmedReadings({ now: clock.now, maxAgeMs: 60_000, maxEntries: 2 });
    readings.confirmed('sha256:failed', 'a request that failed before its stamp');
    clock.advance(60_001);
    readings.confirmed('sha256:first', 'first');
    readings.confirmed('sha256:second', 'second');
    // Had the expired line still been held, the count bound would have dropped "first" to make room.
    expect(readings.take('sha256:first')).toBe('first');
    expect(readings.take('sha256:second')).toBe('second');
  });

  it('forgets the oldest lines once more than its count bound wait', () => {
    const readings = new ConfirmedReadings({ maxEntries: 3 });
    for (const body of ['a', 'b', 'c', 'd']) readings.confirmed(`sha256:${body}`, body);
    expect(readings.take('sha256:a')).toBeUndefined();
    expect(['b', 'c', 'd'].map((body) => readings.take(`sha256:${body}`))).toEqual(['b', 'c', 'd']);
  });

  it('counts a body confirmed again as the newest, with the newer line and a fresh age', () => {
    const clock = manualClock();
    const readings = new ConfirmedReadings({ now: clock.now, maxAgeMs: 60_000, maxEntries: 2 });
    readings.confirmed('sha256:a', 'first line');
    readings.confirmed('sha256:b', 'b');
    clock.advance(50_000);
    readings.confirmed('sha256:a', 'second line');
    readings.confirmed('sha256:c', 'c');
    expect(readings.take('sha256:b')).toBeUndefined();
    clock.advance(50_000);
    expect(readings.take('sha256:a')).toBe('second line');
    expect(readings.take('sha256:c')).toBe('c');
  });
});
