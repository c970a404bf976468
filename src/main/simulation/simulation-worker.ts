/**
 * Entry of the thread that simulates one transaction (off-thread.ts starts one per simulation): it reads the node and
 * runs the EVM, and sends back what changed. Built as its own file beside main (electron.vite.config.ts), run from
 * source under tsx otherwise.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { QkError } from '../../shared/errors';
import type { WorkerJobMessage } from '../../node/worker-entry';
import { simulateTransaction, type RawSimulation, type SimulationJob } from './run-transaction';

const post = (message: WorkerJobMessage<RawSimulation>) => parentPort!.postMessage(message);

simulateTransaction(workerData as SimulationJob).then(
  (value) => post({ kind: 'done', value }),
  (error: unknown) =>
    post({
      kind: 'failed',
      error: error instanceof QkError ? error.toData() : { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) },
    }),
);
