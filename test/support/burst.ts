/**
 * Runs the burst client (test/support/burst-client.ts, from its built entry) as another program on the machine, below
 * the app's priority as an SDK's client would be, and resolves with its answers, "STATUS message" each. Used by the
 * Sandbox process test and by `npm run bench -- sandbox-process`.
 */
import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { SANDBOX_PRIORITY } from '../../src/main/sandbox/service-process';

/** Each request's size: just under the service's 1 MiB body limit once wrapped in the JSON object. */
export const BURST_BYTES = 1024 * 1024 - 64;

/** `requests` POSTs of BURST_BYTES each to `url`, `inFlight` at a time. */
export function sendBurst(entry: string, url: string, { requests, inFlight }: { requests: number; inFlight: number }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const client = execFile(
      process.execPath,
      [entry, url, String(BURST_BYTES), String(requests), String(inFlight)],
      // Its answers are a line each; a megabyte holds thousands.
      { maxBuffer: 1024 * 1024 },
      (error, stdout) =>
        error === null ? resolve(JSON.parse(stdout) as string[]) : reject(new Error(`the burst client failed: ${error.message}`, { cause: error })),
    );
    if (client.pid !== undefined) setPriority(client.pid, SANDBOX_PRIORITY);
  });
}
