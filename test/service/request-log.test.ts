/**
 * Issue 37's logs: one line per request (operation, organization, activity id, status, denial reason, ms), kept or
 * dropped by level, as text or JSON (src/service/server/request-log.ts, docs/sandbox.md#logs).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { batchedLines, REQUEST_LINE_DELAY_MS, serviceLog, type RequestLogEntry } from '../../src/service/server/request-log';
import { startTestService, type TestService } from '../support/service';

const WALLET = { walletName: 'logged', accounts: [] };

describe('the request log of a running service', () => {
  const entries: RequestLogEntry[] = [];
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ requestLog: (entry) => entries.push(entry) });
  });
  afterAll(() => t.close());

  it('notes an activity with its operation, organization, id and status, and a denial with its reason', async () => {
    const created = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', WALLET);
    expect(created.status).toBe(200);
    const outsider = await t.addUser({ name: 'outsider' });
    entries.length = 0;
    const denied = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { ...WALLET, walletName: 'denied' }, { key: outsider.key });
    expect(denied.status).toBe(403);
    const whoami = await t.query('whoami', {});
    expect(whoami.status).toBe(200);
    const health = await fetch(`${t.info.baseUrl}/health`);
    expect(health.status).toBe(200);

    expect(entries).toEqual([
      {
        method: 'POST',
        path: '/public/v1/submit/create_wallet',
        operation: 'create_wallet',
        organizationId: t.info.organizationId,
        status: 403,
        errorCode: 'REQUEST_NOT_AUTHORIZED',
        reason: expect.stringContaining('No policies evaluated to outcome: Allow'),
        ms: expect.any(Number),
      },
      {
        method: 'POST',
        path: '/public/v1/query/whoami',
        operation: 'whoami',
        organizationId: t.info.organizationId,
        status: 200,
        ms: expect.any(Number),
      },
      { method: 'GET', path: '/health', status: 200, ms: expect.any(Number) },
    ]);
    // Each took its time, from its arrival to its answer.
    for (const entry of entries) expect(entry.ms).toBeGreaterThan(0);
  });

  it('notes the id and status of the activity it answered', async () => {
    entries.length = 0;
    const created = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { ...WALLET, walletName: 'second' });
    expect(entries).toEqual([
      expect.objectContaining({
        operation: 'create_wallet',
        activityId: created.body.activity.id,
        activityStatus: 'ACTIVITY_STATUS_COMPLETED',
        status: 200,
      }),
    ]);
  });
});

describe('serviceLog', () => {
  const answered: RequestLogEntry = { method: 'POST', path: '/p', operation: 'whoami', organizationId: 'org', status: 200, ms: 1.25 };
  const denied: RequestLogEntry = {
    ...answered,
    status: 403,
    errorCode: 'REQUEST_NOT_AUTHORIZED',
    reason: 'policy engine denied request explicitly',
  };
  const failed: RequestLogEntry = { ...answered, status: 500, errorCode: 'INTERNAL', reason: 'internal server error (id)' };

  function written(level: 'error' | 'warn' | 'info', format: 'text' | 'json'): string[] {
    const lines: string[] = [];
    const log = serviceLog(level, format, (line) => lines.push(line));
    for (const entry of [answered, denied, failed]) log.request(entry);
    log.line('serving');
    return lines;
  }

  it('writes a text line per request at info, refusals and failures at warn, failures alone at error; its own lines always', () => {
    expect(written('info', 'text')).toEqual([
      '200 whoami org=org 1.3ms',
      '403 whoami org=org REQUEST_NOT_AUTHORIZED: policy engine denied request explicitly 1.3ms',
      '500 whoami org=org INTERNAL: internal server error (id) 1.3ms',
      'serving',
    ]);
    expect(written('warn', 'text')).toHaveLength(3);
    expect(written('error', 'text')).toEqual(['500 whoami org=org INTERNAL: internal server error (id) 1.3ms', 'serving']);
  });

  it('writes JSON lines with every field, the level and the time', () => {
    const [line, , , own] = written('info', 'json').map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(line).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'info', ...answered });
    expect(own).toEqual({ time: expect.any(String), message: 'serving' });
    expect(written('warn', 'json').map((text) => (JSON.parse(text) as { level?: string }).level)).toEqual(['warn', 'error', undefined]);
  });
});

describe("the command line's batched lines", () => {
  it("writes a lone request's line at once, the lines that follow it together once they have waited, and its own lines at once after those waiting", () => {
    vi.useFakeTimers();
    try {
      const writes: string[] = [];
      const lines = batchedLines((text) => writes.push(text));
      const log = serviceLog('info', 'text', lines.now, lines.soon);
      log.request({ method: 'POST', path: '/a', operation: 'whoami', status: 200, ms: 1 });
      expect(writes).toEqual(['200 whoami 1.0ms\n']);
      log.request({ method: 'POST', path: '/b', operation: 'get_wallets', status: 200, ms: 2 });
      log.request({ method: 'POST', path: '/c', operation: 'get_wallets', status: 200, ms: 3 });
      expect(writes).toHaveLength(1);
      vi.advanceTimersByTime(REQUEST_LINE_DELAY_MS);
      expect(writes.slice(1)).toEqual(['200 get_wallets 2.0ms\n200 get_wallets 3.0ms\n']);
      // Within the delay of that write: this one waits too, until the service's own line takes it along.
      log.request({ method: 'POST', path: '/d', operation: 'whoami', status: 200, ms: 4 });
      log.line('stopping');
      expect(writes.slice(2)).toEqual(['200 whoami 4.0ms\nstopping\n']);
      vi.advanceTimersByTime(REQUEST_LINE_DELAY_MS);
      expect(writes).toHaveLength(3);
      // Quiet for the delay since the last write: the next request's line is written at once again.
      log.request({ method: 'POST', path: '/e', operation: 'whoami', status: 200, ms: 5 });
      expect(writes.slice(3)).toEqual(['200 whoami 5.0ms\n']);
    } finally {
      vi.useRealTimers();
    }
  });
});
