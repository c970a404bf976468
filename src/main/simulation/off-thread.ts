/**
 * A simulation on a worker thread (simulation-worker.ts), one thread per simulation: the EVM's work and the node's
 * answers never hold main's event loop, and a node that answers slowly or hugely costs only the thread, which is ended
 * once its time is up and cannot grow past its heap bound.
 */
import { Worker } from 'node:worker_threads';
import { workerEntry, type WorkerJobMessage } from '../../node/worker-entry';
import { QkError } from '../../shared/errors';
import type { RawSimulation, SimulationJob } from './run-transaction';

export interface SimulationBounds {
  /** The whole simulation's time: reading the node and running the EVM. */
  timeoutMs: number;
  /** The thread's heap, in MiB. */
  maxHeapMb: number;
}

export const DEFAULT_SIMULATION_BOUNDS: SimulationBounds = { timeoutMs: 20_000, maxHeapMb: 256 };

const WHAT = 'simulation worker';

export function simulateOffThread(job: SimulationJob, bounds: SimulationBounds = DEFAULT_SIMULATION_BOUNDS): Promise<RawSimulation> {
  const entry = workerEntry(import.meta.url, 'simulation-worker.ts', 'simulation-worker.js', WHAT);
  const worker = new Worker(entry.file, {
    execArgv: entry.execArgv,
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: bounds.maxHeapMb, maxYoungGenerationSizeMb: Math.min(64, bounds.maxHeapMb / 4) },
  });
  return new Promise<RawSimulation>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      void worker.terminate();
    };
    const timer = setTimeout(
      () => settle(() => reject(new QkError('TIMEOUT', `the node and the EVM took longer than ${bounds.timeoutMs / 1000} s`))),
      bounds.timeoutMs,
    );
    worker.on('message', (message: WorkerJobMessage<RawSimulation>) =>
      settle(() => (message.kind === 'done' ? resolve(message.value) : reject(QkError.fromData(message.error)))),
    );
    worker.on('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new QkError('LIMIT_EXCEEDED', `the simulation needed more than ${bounds.maxHeapMb} MiB`)
            : new QkError('INTERNAL', `the ${WHAT} failed: ${error.message}`),
        ),
      ),
    );
    worker.on('exit', (code) => settle(() => reject(new QkError('INTERNAL', `the ${WHAT} exited (code ${code}) before it answered`))));
  });
}
