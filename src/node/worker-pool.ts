/**
 * A fixed set of worker threads answering requests in order of arrival, for the service's signing and policy workers.
 * Workers start on the first request; requests wait in one queue (bounded when `maxQueued` is given) and go to the
 * first idle worker. A worker holds the process open only while it has a request. A worker that dies fails only the
 * requests it was answering, and the next request starts a new one.
 *
 * A pool with `batch` hands an idle worker up to that many waiting requests in one message (an array, answered with
 * an array), sharing them out among the idle workers: each message costs both threads a wake-up and its handling,
 * about a sixth of a one-payload signature's CPU, which requests waiting together then share.
 */
import { Worker } from 'node:worker_threads';
import { QkError, type ErrorData } from '../shared/errors';

/** What a pool's worker answers a request `{ id, … }` with. */
export type WorkerResponse<Result> = { id: number; ok: true; result: Result } | { id: number; ok: false; error: ErrorData };

export interface WorkerPoolOptions<Request> {
  /** Names the workers in errors: "signing worker". */
  what: string;
  size: number;
  /** The workers' entry file (workerEntry's answer), asked for when the first worker starts. */
  entry: () => { file: URL; execArgv: string[] };
  /** Most waiting requests sent to a worker in one message; absent, one request a message, sent as it is. */
  batch?: number;
  /** Requests that may wait for a worker; more are refused with `overfull`. Unbounded when absent. */
  maxQueued?: number;
  /** The error of a request made, waiting or running when the pool closes. */
  closing: () => QkError;
  /** The error of a request refused because `waiting` requests already wait. */
  overfull?: (waiting: number) => QkError;
  /** The error of the request a worker was answering when it died, with why it did. */
  lost: (reason: string) => QkError;
  /** Told of each request that never reached a worker, so it can wipe what it carries. */
  dropped?: (request: Request) => void;
}

interface Task<Request, Result> {
  request: Request;
  transfer: ArrayBuffer[];
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
}

interface Slot<Request, Result> {
  worker: Worker;
  /** What the worker is answering; empty when it is idle. */
  tasks: Task<Request, Result>[];
}

export class WorkerPool<Request extends { id: number }, Result> {
  readonly size: number;
  private readonly slots: Slot<Request, Result>[] = [];
  private readonly queue: Task<Request, Result>[] = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions<Request>) {
    this.size = options.size;
    if (!Number.isInteger(this.size) || this.size < 1) {
      throw new QkError('INTERNAL', `a ${options.what} pool needs at least one worker, got ${this.size}`);
    }
  }

  /** Sends the request `build` makes with its id (moving `transfer`'s buffers) to a worker, and answers its result. */
  run(build: (id: number) => { request: Request; transfer?: ArrayBuffer[] }): Promise<Result> {
    const { maxQueued, overfull } = this.options;
    if (this.closed) return Promise.reject(this.options.closing());
    if (maxQueued !== undefined && overfull !== undefined && this.queue.length >= maxQueued) {
      return Promise.reject(overfull(this.queue.length));
    }
    const { request, transfer = [] } = build((this.nextId += 1));
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ request, transfer, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every worker; a waiting or running request fails with `closing`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) {
      this.options.dropped?.(task.request);
      task.reject(this.options.closing());
    }
    const slots = this.slots.splice(0);
    for (const slot of slots) for (const task of slot.tasks) task.reject(this.options.closing());
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    const { batch } = this.options;
    while (this.queue.length > 0) {
      const slot = this.slots.find((candidate) => candidate.tasks.length === 0) ?? this.startWorker();
      if (slot === undefined) return;
      slot.tasks = this.queue.splice(0, batch === undefined ? 1 : Math.min(batch, Math.ceil(this.queue.length / this.freeWorkers())));
      const requests = slot.tasks.map((task) => task.request);
      slot.worker.ref();
      slot.worker.postMessage(
        batch === undefined ? requests[0] : requests,
        slot.tasks.flatMap((task) => task.transfer),
      );
    }
  }

  /** The workers that could take requests now: the idle ones and those not started yet, which share what waits. */
  private freeWorkers(): number {
    return this.slots.filter((slot) => slot.tasks.length === 0).length + this.size - this.slots.length;
  }

  private startWorker(): Slot<Request, Result> | undefined {
    if (this.slots.length >= this.size) return undefined;
    const { file, execArgv } = this.options.entry();
    const slot: Slot<Request, Result> = { worker: new Worker(file, { execArgv }), tasks: [] };
    slot.worker.unref();
    slot.worker.on('message', (answer: WorkerResponse<Result> | WorkerResponse<Result>[]) => this.finish(slot, [answer].flat()));
    slot.worker.on('error', (error: Error) => this.lose(slot, error.message));
    slot.worker.on('exit', (code) => this.lose(slot, `it exited with code ${code}`));
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot<Request, Result>, responses: WorkerResponse<Result>[]): void {
    const tasks = slot.tasks;
    slot.tasks = [];
    slot.worker.unref();
    for (const response of responses) {
      const task = tasks.find((candidate) => candidate.request.id === response.id);
      if (task === undefined) continue;
      if (response.ok) task.resolve(response.result);
      else task.reject(QkError.fromData(response.error));
    }
    this.dispatch();
  }

  private lose(slot: Slot<Request, Result>, reason: string): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    for (const task of slot.tasks) task.reject(this.options.lost(reason));
    slot.tasks = [];
    void slot.worker.terminate();
    if (!this.closed) this.dispatch();
  }
}
