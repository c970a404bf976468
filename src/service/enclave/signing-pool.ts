/**
 * The enclave's signing workers: a fixed set of worker threads (by default one per core) that run signing jobs
 * (signing-jobs.ts), so that a request with a thousand signatures or a PSBT with a thousand inputs keeps the service's
 * event loop, and so every other request, running. Jobs wait in one queue and go to the first idle worker. Workers
 * start on the first job; a worker holds the process open only while it has a job.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../node/worker-entry';
import { QkError } from '../../shared/errors';
import type { SigningJob, SigningJobResult, SigningJobResults, SigningRequest, SigningResponse } from './signing-jobs';
import type { SigningKey } from './signing';

interface Task {
  request: SigningRequest;
  transfer: ArrayBuffer[];
  resolve: (result: SigningJobResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | undefined;
}

export function defaultSigningWorkers(): number {
  return availableParallelism();
}

export class SigningPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 0;
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new QkError('INTERNAL', `a signing pool needs at least one worker, got ${size}`);
  }

  /**
   * Runs `job` with `key` on a worker. The worker receives its own copy of the secret, moved rather than copied
   * again on the way, and zeroes it when done; the caller still zeroes `key.secret` as before.
   */
  run<K extends SigningJob['kind']>(key: SigningKey, job: Extract<SigningJob, { kind: K }>): Promise<SigningJobResults[K]> {
    if (this.closed) return Promise.reject(new QkError('SANDBOX_UNAVAILABLE', 'the service is shutting down; nothing was signed'));
    const secret = new Uint8Array(key.secret);
    return new Promise<SigningJobResult>((resolve, reject) => {
      this.queue.push({
        request: { id: (this.nextId += 1), key: { curve: key.curve, secret, publicKey: key.publicKey }, job },
        transfer: [secret.buffer],
        resolve,
        reject,
      });
      this.dispatch();
    }) as Promise<SigningJobResults[K]>;
  }

  /** Stops every worker; queued jobs fail as UNAVAILABLE, and their secrets are zeroed. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) {
      task.request.key.secret.fill(0);
      task.reject(new QkError('SANDBOX_UNAVAILABLE', 'the service is shutting down; nothing was signed'));
    }
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((candidate) => candidate.task === undefined) ?? this.startWorker();
      if (slot === undefined) return;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.worker.postMessage(task.request, task.transfer);
    }
  }

  private startWorker(): Slot | undefined {
    if (this.slots.length >= this.size) return undefined;
    const { file, execArgv } = workerEntry(import.meta.url, 'signing-worker.ts', 'signing-worker.js', 'signing worker');
    const slot: Slot = { worker: new Worker(file, { execArgv }), task: undefined };
    slot.worker.unref();
    slot.worker.on('message', (response: SigningResponse) => this.finish(slot, response));
    slot.worker.on('error', (error: Error) => this.lose(slot, error));
    slot.worker.on('exit', (code) => this.lose(slot, new Error(`exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot, response: SigningResponse): void {
    const task = slot.task;
    slot.task = undefined;
    slot.worker.unref();
    if (task !== undefined) {
      if (response.ok) task.resolve(response.result);
      else task.reject(QkError.fromData(response.error));
    }
    this.dispatch();
  }

  /** A worker that died takes only its own job with it; the next job starts a new one. */
  private lose(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    slot.task?.reject(new QkError('INTERNAL', `a signing worker stopped: ${error.message}`));
    slot.task = undefined;
    void slot.worker.terminate();
    if (!this.closed) this.dispatch();
  }
}
