/**
 * The service's policy workers: worker threads that answer the policy jobs (policy-jobs.ts) too costly for the event
 * loop, so that a decision at the whole step budget (tens of milliseconds) holds up no other client. A fixed number
 * of workers, started on the first job; jobs wait in one bounded queue and go to the first idle worker. A worker holds
 * the process open only while it has a job.
 */
import { workerEntry } from '../../node/worker-entry';
import { WorkerPool, type WorkerResponse } from '../../node/worker-pool';
import { QkError } from '../../shared/errors';
import { jobForTransfer, type PolicyAnswer, type PolicyJob } from './policy-jobs';

/** What the pool asks a worker, and what the worker answers. */
export interface PolicyRequest {
  id: number;
  job: PolicyJob;
}
export type PolicyResponse = WorkerResponse<PolicyAnswer>;

/** Where the pipeline sends a policy job its slice of steps on the event loop did not answer. */
export interface PolicyJobRunner {
  run<K extends PolicyJob['kind']>(job: Extract<PolicyJob, { kind: K }>): Promise<PolicyAnswer<K>>;
}

/**
 * One worker: the pipeline decides inside its one store transaction at a time, so one job at most is in flight from
 * it, and one core stays the event loop's.
 */
export const POLICY_WORKERS = 1;
/** Jobs that may wait for a worker; more is a burst no pipeline makes, refused rather than held. */
export const MAX_QUEUED_POLICY_JOBS = 64;

export interface PolicyPoolOptions {
  size?: number;
  maxQueued?: number;
  /** The workers' entry file (workerEntry's answer); the service's own policy worker by default. */
  entry?: { file: URL; execArgv: string[] };
}

const shuttingDown = () => new QkError('SANDBOX_UNAVAILABLE', 'the service is shutting down; the policies were not evaluated');

export class PolicyPool implements PolicyJobRunner {
  private readonly pool: WorkerPool<PolicyRequest, PolicyAnswer>;

  constructor(options: PolicyPoolOptions = {}) {
    this.pool = new WorkerPool({
      what: 'policy worker',
      size: options.size ?? POLICY_WORKERS,
      maxQueued: options.maxQueued ?? MAX_QUEUED_POLICY_JOBS,
      entry: () => options.entry ?? workerEntry(import.meta.url, 'policy-worker.ts', 'policy-worker.js', 'policy worker'),
      closing: shuttingDown,
      overfull: (waiting) =>
        new QkError('SANDBOX_UNAVAILABLE', `${waiting} costly policy decisions are already waiting for a policy worker; try again shortly`),
      // Not the request's fault, and nothing of it was recorded: answered as unavailable, so the client may send it again.
      lost: (reason) =>
        new QkError('SANDBOX_UNAVAILABLE', `the policy worker deciding this request stopped (${reason}); nothing was recorded; send it again`),
    });
  }

  run<K extends PolicyJob['kind']>(job: Extract<PolicyJob, { kind: K }>): Promise<PolicyAnswer<K>> {
    return this.pool.run((id) => ({ request: { id, job: jobForTransfer(job) } })) as Promise<PolicyAnswer<K>>;
  }

  /** Stops every worker; a queued or running job fails as UNAVAILABLE. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
