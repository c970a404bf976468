/**
 * A draft's evaluations on a worker thread (draft-worker.ts): the rehearsal replays the recorded history and the dry
 * run searches sets of approvers, over expressions their author has just typed, so neither holds up main's event
 * loop (every window, channel and poll). One thread per job: both run when a person asks, not on every request.
 */
import { runWorkerJob, workerEntry } from '../../node/worker-entry';
import type { DraftEntry } from '../../shared/ipc/policy-draft';
import type { OrganizationSnapshot } from '../signing/organization';
import type { PolicyStanding, StandingPolicy, StandingRequest } from '../signing/policy-standing';
import type { RehearsalHistory, RehearsalReport } from './rehearsal';

export type DraftJob =
  | { kind: 'rehearse'; history: RehearsalHistory; draft: readonly DraftEntry[] }
  | { kind: 'standing'; snapshot: OrganizationSnapshot; request: StandingRequest; policies: readonly StandingPolicy[] };

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
  const what = 'policy draft worker';
  return runWorkerJob(workerEntry(import.meta.url, 'draft-worker.ts', 'policy-draft-worker.js', what), job, what);
}
