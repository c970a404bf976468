/**
 * Copies the WAL back into the database file from a worker thread. SQLite's automatic checkpoint runs inside
 * whichever COMMIT crosses the threshold, on the event loop, and its fsyncs stall every request behind it for
 * milliseconds; here the writer only appends to the WAL, and a PASSIVE checkpoint (which never blocks readers
 * or the writer) runs every CHECKPOINT_INTERVAL_MS on its own connection. If the thread ever fails, the writer
 * goes back to automatic checkpoints so the WAL cannot grow without bound.
 */
import { Worker } from 'node:worker_threads';
import type { Connection } from './connection';

export const CHECKPOINT_INTERVAL_MS = 100;
/** SQLite's default automatic checkpoint threshold, in WAL pages. */
const AUTOMATIC_CHECKPOINT_PAGES = 1000;

/**
 * The worker's source, evaluated rather than loaded from a file so that bundling the service (the desktop app
 * embeds it) needs no separate worker entry point.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path, { timeout: workerData.intervalMs });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => checkpoint.get(), workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private stopping = false;

  /** `writer` must be the connection that commits; it stops checkpointing by itself from here on. */
  constructor(path: string, writer: Connection) {
    writer.exec('PRAGMA wal_autocheckpoint = 0');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, intervalMs: CHECKPOINT_INTERVAL_MS } });
    // A store that is never closed must not keep the process alive.
    this.worker.unref();
    this.worker.on('error', (error: Error) => {
      console.error(`the WAL checkpoint thread failed (${error.message}); the database checkpoints on commit again`);
    });
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', () => {
        if (!this.stopping && writer.db.isOpen) writer.exec(`PRAGMA wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`);
        resolve();
      });
    });
  }

  /** Lets a running checkpoint finish, then closes the thread's connection. */
  async stop(): Promise<void> {
    this.stopping = true;
    // Closing is awaited work: hold the process open until the thread's connection has closed.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
