/**
 * The Sandbox's log (docs/sandbox.md#logs): one line per request, and the service's own lines, as text or as JSON
 * lines, on one stream. A request's line is at `info` when it was answered, `warn` when it was refused (4xx: a
 * denial, a bad stamp, a bad body) and `error` when it failed (5xx); `--log-level` keeps that level and above.
 * Lines below the level are never formatted, so a quiet log costs one comparison per request. The service's own
 * lines (start-up, an internal error's stack) are written at every level.
 */

export const LOG_LEVELS = ['error', 'warn', 'info'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What one request did, as the server saw it. */
export interface RequestLogEntry {
  method: string;
  path: string;
  /** The API operation (`sign_raw_payload`, `get_whoami`…) when the path is one. */
  operation?: string;
  organizationId?: string;
  activityId?: string;
  activityStatus?: string;
  /** The HTTP status answered. */
  status: number;
  /** For a refusal or failure: the error code answered (`REQUEST_NOT_AUTHORIZED`…) and its message. */
  errorCode?: string;
  reason?: string;
  /** Milliseconds from the request's arrival to its answer. */
  ms: number;
}

export interface ServiceLog {
  /** A line of the service's own (start-up, a sweep that failed, an internal error's stack). */
  line: (text: string) => void;
  request: (entry: RequestLogEntry) => void;
}

const SEVERITY: Record<LogLevel, number> = { error: 0, warn: 1, info: 2 };

function levelOf(status: number): LogLevel {
  return status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
}

function requestText(entry: RequestLogEntry): string {
  const parts = [String(entry.status), entry.operation ?? `${entry.method} ${entry.path}`];
  if (entry.organizationId !== undefined) parts.push(`org=${entry.organizationId}`);
  if (entry.activityId !== undefined) parts.push(`activity=${entry.activityId}`);
  if (entry.activityStatus !== undefined) parts.push(entry.activityStatus);
  if (entry.errorCode !== undefined) parts.push(`${entry.errorCode}: ${entry.reason ?? ''}`);
  parts.push(`${entry.ms.toFixed(1)}ms`);
  return parts.join(' ');
}

/** A log at `level` and above, in `format`, written line by line to `write` (stderr for the command line). */
export function serviceLog(level: LogLevel, format: LogFormat, write: (line: string) => void): ServiceLog {
  const threshold = SEVERITY[level];
  if (format === 'json') {
    return {
      line: (text) => write(JSON.stringify({ time: new Date().toISOString(), message: text })),
      request: (entry) => {
        const entryLevel = levelOf(entry.status);
        if (SEVERITY[entryLevel] <= threshold) write(JSON.stringify({ time: new Date().toISOString(), level: entryLevel, ...entry }));
      },
    };
  }
  return {
    line: write,
    request: (entry) => {
      if (SEVERITY[levelOf(entry.status)] <= threshold) write(requestText(entry));
    },
  };
}
