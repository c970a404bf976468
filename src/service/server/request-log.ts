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

/**
 * A log at `level` and above, in `format`, written line by line to `write` (stderr for the command line); requests'
 * lines go to `writeRequestLine` when given (batchedLines' `soon`).
 */
export function serviceLog(
  level: LogLevel,
  format: LogFormat,
  write: (line: string) => void,
  writeRequestLine: (line: string) => void = write,
): ServiceLog {
  const threshold = SEVERITY[level];
  if (format === 'json') {
    return {
      line: (text) => write(JSON.stringify({ time: new Date().toISOString(), message: text })),
      request: (entry) => {
        const entryLevel = levelOf(entry.status);
        if (SEVERITY[entryLevel] <= threshold) writeRequestLine(JSON.stringify({ time: new Date().toISOString(), level: entryLevel, ...entry }));
      },
    };
  }
  return {
    line: write,
    request: (entry) => {
      if (SEVERITY[levelOf(entry.status)] <= threshold) writeRequestLine(requestText(entry));
    },
  };
}

/** How long a request's line may wait to be written with the lines of other requests. */
export const REQUEST_LINE_DELAY_MS = 20;
/** Waiting lines beyond this many characters are written at once. */
const MAX_WAITING_CHARACTERS = 64 * 1024;

/**
 * Lines for `write`, a batch at a time. Stderr on a pipe is written synchronously, a system call per write that also
 * wakes the reader: one per request cost the event loop more than the rest of a request's logging. `soon` writes a
 * line at once when nothing was written in the last REQUEST_LINE_DELAY_MS (a lone request's line is in the log before
 * its answer leaves: a CI job that copies the log when its tests fail finds it), and otherwise keeps it up to that long
 * and writes it with the lines of the requests that followed; `now` writes the lines waiting and its own at once (the
 * service's own lines, rare, which a reader may be waiting for). Whatever waits is written before the process exits.
 */
export function batchedLines(write: (text: string) => void): { now: (line: string) => void; soon: (line: string) => void } {
  let waiting = '';
  let timer: NodeJS.Timeout | undefined;
  let lastWrittenAt = -Infinity;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting === '') return;
    const text = waiting;
    waiting = '';
    lastWrittenAt = Date.now();
    write(text);
  };
  process.on('exit', flush);
  return {
    now: (line) => {
      waiting += `${line}\n`;
      flush();
    },
    soon: (line) => {
      waiting += `${line}\n`;
      const quietSinceLastWrite = timer === undefined && Date.now() - lastWrittenAt >= REQUEST_LINE_DELAY_MS;
      if (quietSinceLastWrite || waiting.length >= MAX_WAITING_CHARACTERS) flush();
      else timer ??= setTimeout(flush, REQUEST_LINE_DELAY_MS).unref();
    },
  };
}
