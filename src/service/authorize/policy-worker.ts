/**
 * Entry of one policy worker thread (policy-pool.ts starts them): answers each job its parent sends, one at a time,
 * within the whole step budget. Built as its own file beside the service (vite.sandbox.config.ts,
 * electron.vite.config.ts), run from source under tsx otherwise.
 */
import { parentPort } from 'node:worker_threads';
import { lowerThisThreadPriority } from '../../node/thread-priority';
import { toQkError } from '../../shared/errors';
import { answerInFull, jobReceived } from './policy-jobs';
import type { PolicyRequest, PolicyResponse } from './policy-pool';

// A costly decision must not take the CPU from the event loop that serves every other client when both want it: it
// gets what the event loop leaves.
lowerThisThreadPriority(19);

parentPort!.on('message', ({ id, job }: PolicyRequest) => {
  let response: PolicyResponse;
  try {
    response = { id, ok: true, result: answerInFull(jobReceived(job)) };
  } catch (error) {
    response = { id, ok: false, error: toQkError(error).toData() };
  }
  parentPort!.postMessage(response);
});
