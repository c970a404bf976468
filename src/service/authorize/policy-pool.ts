/**
 * The service's policy workers: worker threads that answer the policy jobs (policy-jobs.ts) too costly for the event
 * loop, so that a decision at the whole step budget (tens of milliseconds) holds up no other client. A fixed number
 * of workers, started on the first job; jobs wait in one bounded queue and go to the first idle worker. A worker holds
 * the process open only while it has a job.
 */
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../node/worker-entry';
import { QkError, type ErrorData } from '../../shared/errors';
import { jobForTransfer, type PolicyAnswer, type PolicyJob } from './policy-jobs';

/** What the pool asks a worker, and what the worker answers. */
export interface PolicyRequest {
  id: number;
  job: PolicyJob;
}
export type PolicyResponse = { id: number; ok: true; answer: PolicyAnswer } | { id: number; ok: false; error: ErrorData };

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

interface Task {
  request: PolicyRequest;
  resolve: (answer: PolicyAnswer) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | undefined;
}

export interface PolicyPoolOptions {
  size?: number;
  maxQueued?: number;
  /** The workers' entry file (workerEntry's answer); the service's own policy worker by default. */
  entry?: { file: URL; execArgv: string[] };
}

export class PolicyPool implements PolicyJobRunner {
  readonly size: number;
  readonly maxQueued: number;
  private readonly entry: { file: URL; execArgv: string[] } | undefined;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 0;
  private closed = false;

  constructor(options: PolicyPoolOptions = {}) {
    this.size = options.size ?? POLICY_WORKERS;
    this.maxQueued = options.maxQueued ?? MAX_QUEUED_POLICY_JOBS;
    this.entry = options.entry;
    if (!Number.isInteger(this.size) || this.size < 1) throw new QkError('INTERNAL', `a policy pool needs at least one worker, got ${this.size}`);
  }

  run<K extends PolicyJob['kind']>(job: Extract<PolicyJob, { kind: K }>): Promise<PolicyAnswer<K>> {
    if (this.closed) return Promise.reject(new QkError('SANDBOX_UNAVAILABLE', 'the service is shutting down; the policies were not evaluated'));
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(
        new QkError('SANDBOX_UNAVAILABLE', `${this.queue.length} costly policy decisions are already waiting for a policy worker; try again shortly`),
      );
    }
    return new Promise<PolicyAnswer>((resolve, reject) => {
      this.queue.push({ request: { id: (this.nextId += 1), job: jobForTransfer(job) }, resolve, reject });
      this.dispatch();
    }) as Promise<PolicyAnswer<K>>;
  }

  /** Stops every worker; a queued or running job fails as UNAVAILABLE. */
  async close(): Promise<void> {
    this.closed = true;
    const shuttingDown = () => new QkError('SANDBOX_UNAVAILABLE', 'the service is shutting down; the policies were not evaluated');
    for (const task of this.queue.splice(0)) task.reject(shuttingDown());
    const slots = this.slots.splice(0);
    for (const slot of slots) slot.task?.reject(shuttingDown());
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((candidate) => candidate.task === undefined) ?? this.startWorker();
      if (slot === undefined) return;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.worker.postMessage(task.request);
    }
  }

  private startWorker(): Slot | undefined {
    if (this.slots.length >= this.size) return undefined;
    const { file, execArgv } = this.entry ?? workerEntry(import.meta.url, 'policy-worker.ts', 'policy-worker.js', 'policy worker');
    const slot: Slot = { worker: new Worker(file, { execArgv }), task: undefined };
    slot.worker.unref();
    slot.worker.on('message', (response: PolicyResponse) => this.finish(slot, response));
    slot.worker.on('error', (error: Error) => this.lose(slot, error));
    slot.worker.on('exit', (code) => this.lose(slot, new Error(`it exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot, response: PolicyResponse): void {
    const task = slot.task;
    slot.task = undefined;
    slot.worker.unref();
    if (task !== undefined) {
      if (response.ok) task.resolve(response.answer);
      else task.reject(QkError.fromData(response.error));
    }
    this.dispatch();
  }

  /** A worker that died takes only its own job with it; the next job starts a new one. */
  private lose(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    // Not the request's fault, and nothing of it was recorded: answered as unavailable, so the client may send it again.
    slot.task?.reject(
      new QkError('SANDBOX_UNAVAILABLE', `the policy worker deciding this request stopped (${error.message}); nothing was recorded; send it again`),
    );
    slot.task = undefined;
    void slot.worker.terminate();
    if (!this.closed) this.dispatch();
  }
}
