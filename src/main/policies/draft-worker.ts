/**
 * Entry of the thread that evaluates a policy draft (off-thread.ts starts one per job): a rehearsal of the recorded
 * history, or a dry run's standing. Built as its own file beside main (electron.vite.config.ts), run from source
 * under tsx otherwise.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toQkError } from '../../shared/errors';
import type { WorkerJobMessage } from '../../node/worker-entry';
import { standingIn, type PolicyStanding } from '../signing/policy-standing';
import type { DraftJob } from './off-thread';
import { rehearse, type RehearsalReport } from './rehearsal';

const post = (message: WorkerJobMessage<RehearsalReport | PolicyStanding>) => parentPort!.postMessage(message);
const job = workerData as DraftJob;
try {
  post({ kind: 'done', value: job.kind === 'rehearse' ? rehearse(job.history, job.draft) : standingIn(job.snapshot, job.request, job.policies) });
} catch (error) {
  post({ kind: 'failed', error: toQkError(error).toData() });
}
