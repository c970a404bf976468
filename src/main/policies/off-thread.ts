/**
 * A draft's evaluations on a worker thread (draft-worker.ts): the rehearsal replays the recorded history and the dry
 * run searches sets of approvers, over expressions their author has just typed, so neither holds up main's event
 * loop (every window, channel and poll). One thread per job: both run when a person asks, not on every request.
 */
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../node/worker-entry';
import { QkError, type ErrorData } from '../../shared/errors';
import type { DraftEntry } from '../../shared/ipc/policy-draft';
import type { OrganizationSnapshot } from '../signing/organization';
import type { PolicyStanding, StandingPolicy, StandingRequest } from '../signing/policy-standing';
import type { RehearsalHistory, RehearsalReport } from './rehearsal';

export type DraftJob =
  | { kind: 'rehearse'; history: RehearsalHistory; draft: readonly DraftEntry[] }
  | { kind: 'standing'; snapshot: OrganizationSnapshot; request: StandingRequest; policies: readonly StandingPolicy[] };

export type DraftWorkerMessage = { kind: 'done'; value: RehearsalReport | PolicyStanding } | { kind: 'failed'; error: ErrorData };

/** `rehearse(history, draft)`, on a worker thread. */
export function rehearseOffThread(history: RehearsalHistory, draft: readonly DraftEntry[]): Promise<RehearsalReport> {
  return runOffThread({ kind: 'rehearse', history, draft }) as Promise<RehearsalReport>;
}

/** `standingIn(snapshot, request, policies)`, on a worker thread. */
export function standingOffThread(
  snapshot: OrganizationSnapshot,
  request: StandingRequest,
  policies: readonly StandingPolicy[],
): Promise<PolicyStanding> {
  return runOffThread({ kind: 'standing', snapshot, request, policies }) as Promise<PolicyStanding>;
}

function runOffThread(job: DraftJob): Promise<RehearsalReport | PolicyStanding> {
  const { file, execArgv } = workerEntry(import.meta.url, 'draft-worker.ts', 'policy-draft-worker.js', 'policy draft worker');
  const worker = new Worker(file, { execArgv, workerData: job });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
      void worker.terminate();
    };
    worker.on('message', (message: DraftWorkerMessage) =>
      settle(() => (message.kind === 'done' ? resolve(message.value) : reject(QkError.fromData(message.error)))),
    );
    worker.on('error', (error: Error) => settle(() => reject(new QkError('INTERNAL', `the policy draft worker failed: ${error.message}`))));
    worker.on('exit', (code) => settle(() => reject(new QkError('INTERNAL', `the policy draft worker exited (code ${code}) before it answered`))));
  });
}
