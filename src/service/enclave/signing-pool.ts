/**
 * The enclave's signing workers: a fixed set of worker threads (by default one per core) that run signing jobs
 * (signing-jobs.ts), so that a request with a thousand signatures or a PSBT with a thousand inputs keeps the service's
 * event loop, and so every other request, running. Jobs wait in one queue; an idle worker takes its share of them,
 * up to JOBS_PER_MESSAGE, in one message. Workers start on the first job; a worker holds the process open only while
 * it has a job.
 */
import { availableParallelism } from 'node:os';
import { workerEntry } from '../../node/worker-entry';
import { WorkerPool } from '../../node/worker-pool';
import { QkError } from '../../shared/errors';
import type { SigningJob, SigningJobResult, SigningJobResults, SigningRequest } from './signing-jobs';
import type { SigningKey } from './signing';

/**
 * Most jobs a worker takes in one message: one-payload signatures waiting together share a message's cost (about 60
 * µs of the 480 µs a signature costs the process on its own), and a job waits for at most seven others.
 */
const JOBS_PER_MESSAGE = 8;

export function defaultSigningWorkers(): number {
  return availableParallelism();
}

export class SigningPool {
  private readonly pool: WorkerPool<SigningRequest, SigningJobResult>;

  constructor(readonly size: number) {
    this.pool = new WorkerPool({
      what: 'signing worker',
      size,
      batch: JOBS_PER_MESSAGE,
      entry: () => workerEntry(import.meta.url, 'signing-worker.ts', 'signing-worker.js', 'signing worker'),
      closing: () => new QkError('SANDBOX_UNAVAILABLE', 'the service is shutting down; nothing was signed'),
      lost: (reason) => new QkError('INTERNAL', `a signing worker stopped: ${reason}`),
      // A request that never reached a worker still holds its copy of the secret.
      dropped: (request) => request.key.secret.fill(0),
    });
  }

  /**
   * Runs `job` with `key` on a worker. The worker receives its own copy of the secret, moved rather than copied
   * again on the way, and zeroes it when done; the caller still zeroes `key.secret` as before.
   */
  run<K extends SigningJob['kind']>(key: SigningKey, job: Extract<SigningJob, { kind: K }>): Promise<SigningJobResults[K]> {
    return this.pool.run((id) => {
      const secret = new Uint8Array(key.secret);
      return { request: { id, key: { curve: key.curve, secret, publicKey: key.publicKey }, job }, transfer: [secret.buffer] };
    }) as Promise<SigningJobResults[K]>;
  }

  /** Stops every worker; waiting and running jobs fail as UNAVAILABLE, and the secrets of waiting ones are zeroed. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
