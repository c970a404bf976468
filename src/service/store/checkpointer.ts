/**
 * Copies the WAL back into the database file from a worker thread. SQLite's automatic checkpoint runs inside
 * whichever COMMIT crosses the threshold, on the event loop, and its fsyncs stall every request behind it for
 * milliseconds; here the writer only appends to the WAL, and a PASSIVE checkpoint (which never blocks readers
 * or the writer) runs every CHECKPOINT_INTERVAL_MS on its own connection. If the thread ever fails, the writer
 * goes back to automatic checkpoints so the WAL cannot grow without bound.
 *
 * SQLite writes the WAL from its start again only when a write transaction begins with every frame copied back,
 * which commits arriving while a checkpoint runs prevent: under steady writes the WAL grew by every commit (246 MB
 * in the service bench's 5,500 activities), and each commit paid the file system for new blocks. So once the WAL
 * holds more than RESTART_AFTER_FRAMES, the store lets no transaction begin while the thread checkpoints once more
 * (`pauseWrites`), and the next transaction starts the WAL over; queries go on meanwhile.
 */
import { Worker } from 'node:worker_threads';
import type { Connection } from './connection';

export const CHECKPOINT_INTERVAL_MS = 100;
/** SQLite's default automatic checkpoint threshold, in WAL pages. */
const AUTOMATIC_CHECKPOINT_PAGES = 1000;
/**
 * WAL frames (a page each, 4 KiB by default) beyond which writes pause for a checkpoint that lets it start over. Each
 * pause holds every write 4 to 8 ms: at 64 MB they come about every thousand activities rather than every 250, and
 * the WAL's blocks, once allocated, are written over again.
 */
export const RESTART_AFTER_FRAMES = 16_384;

/** The worker asks for a pause with this message; the store's answer is CHECKPOINT_NOW, once no transaction is open. */
const RESTART_WANTED = 'restart-wanted';
const CHECKPOINT_NOW = 'checkpoint';
const STOP = 'stop';

/**
 * The worker's source, evaluated rather than loaded from a file so that bundling the service (the desktop app
 * embeds it) needs no separate worker entry point.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path, { timeout: workerData.intervalMs });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let restartWanted = false;
const timer = setInterval(() => {
  const { log } = checkpoint.get();
  if (log > workerData.restartAfterFrames && !restartWanted) {
    restartWanted = true;
    parentPort.postMessage(${JSON.stringify(RESTART_WANTED)});
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === ${JSON.stringify(CHECKPOINT_NOW)}) {
    checkpoint.get();
    restartWanted = false;
    parentPort.postMessage(${JSON.stringify(CHECKPOINT_NOW)});
    return;
  }
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private stopping = false;
  private hasExited = false;
  /** Resolves the checkpoint the store's pause waits for. */
  private checkpointDone: (() => void) | undefined;

  /**
   * `writer` must be the connection that commits; it stops checkpointing by itself from here on. `pauseWrites` runs
   * its task once no transaction is open and begins none until the task's promise settles.
   */
  constructor(path: string, writer: Connection, pauseWrites: (task: () => Promise<void>) => Promise<void>) {
    writer.exec('PRAGMA wal_autocheckpoint = 0');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, intervalMs: CHECKPOINT_INTERVAL_MS, restartAfterFrames: RESTART_AFTER_FRAMES },
    });
    this.worker.on('message', (message: unknown) => {
      if (message === RESTART_WANTED) void pauseWrites(() => this.checkpointNow());
      else if (message === CHECKPOINT_NOW) this.settleCheckpoint();
    });
    // A store that is never closed must not keep the process alive. After the listener: adding one holds the thread.
    this.worker.unref();
    this.worker.on('error', (error: Error) => {
      console.error(`the WAL checkpoint thread failed (${error.message}); the database checkpoints on commit again`);
    });
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', () => {
        this.hasExited = true;
        this.settleCheckpoint();
        if (!this.stopping && writer.db.isOpen) writer.exec(`PRAGMA wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`);
        resolve();
      });
    });
  }

  /**
   * One checkpoint on the thread, now; settles at once if the thread has stopped. The thread holds the process open
   * meanwhile: the transactions waiting for it would otherwise be dropped by a process that has nothing else to do.
   */
  private checkpointNow(): Promise<void> {
    if (this.stopping || this.hasExited) return Promise.resolve();
    this.worker.ref();
    return new Promise((resolve) => {
      this.checkpointDone = resolve;
      this.worker.postMessage(CHECKPOINT_NOW);
    });
  }

  private settleCheckpoint(): void {
    const done = this.checkpointDone;
    if (done === undefined) return;
    this.checkpointDone = undefined;
    if (!this.stopping) this.worker.unref();
    done();
  }

  /** Lets a running checkpoint finish, then closes the thread's connection. */
  async stop(): Promise<void> {
    this.stopping = true;
    // Closing is awaited work: hold the process open until the thread's connection has closed.
    this.worker.ref();
    this.worker.postMessage(STOP);
    await this.exited;
  }
}
