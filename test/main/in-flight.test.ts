/**
 * The service requests main waits on (src/main/client/in-flight.ts): each change reported with the whole list, which
 * main pushes to the window as its `requests` event, so the progress line never asks for it.
 */
import { describe, expect, it } from 'vitest';
import { InFlightRequests, type InFlightRequest } from '../../src/main/client/in-flight';

describe('InFlightRequests', () => {
  it('reports every request that begins, ends or is cancelled, with what still waits, and a cancelled one once', () => {
    const reports: string[][] = [];
    let nowMs = 1_000;
    const inFlight = new InFlightRequests({
      now: () => nowMs,
      onChange: (pending: InFlightRequest[]) => reports.push(pending.map(({ url }) => url)),
    });

    const whoami = inFlight.begin('http://sandbox/public/v1/query/whoami');
    nowMs += 5;
    const vote = inFlight.begin('http://sandbox/public/v1/submit/approve_activity');
    expect(reports).toEqual([
      ['http://sandbox/public/v1/query/whoami'],
      ['http://sandbox/public/v1/query/whoami', 'http://sandbox/public/v1/submit/approve_activity'],
    ]);
    expect(inFlight.list().map(({ startedAtMs }) => startedAtMs)).toEqual([1_000, 1_005]);

    whoami.end();
    expect(reports.at(-1)).toEqual(['http://sandbox/public/v1/submit/approve_activity']);
    expect(inFlight.cancel(vote.id)).toBe(1);
    expect(vote.signal.aborted).toBe(true);
    expect(reports.at(-1)).toEqual([]);
    // The client ends what it was waiting on once the cancelled fetch gives up: nothing changed then.
    vote.end();
    expect(inFlight.cancel('no-such-request')).toBe(0);
    expect(reports).toHaveLength(4);
  });
});
