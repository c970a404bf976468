/**
 * A policy worker that dies on the job of activity type CRASH_THE_POLICY_WORKER and answers every other as the
 * service's own worker does: test/service/authorize/policy-workers.test.ts starts a PolicyPool on it.
 */
import { parentPort } from 'node:worker_threads';
import { answerInFull, jobReceived } from '../../src/service/authorize/policy-jobs';
import type { PolicyRequest } from '../../src/service/authorize/policy-pool';

parentPort!.on('message', ({ id, job }: PolicyRequest) => {
  if (job.kind === 'decide' && job.request.activityType === 'CRASH_THE_POLICY_WORKER') process.exit(70);
  parentPort!.postMessage({ id, ok: true, result: answerInFull(jobReceived(job)) });
});
