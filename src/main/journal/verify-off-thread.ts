/**
 * A journal verification on a worker thread (verify-worker.ts), so checking a large journal's signatures (about a
 * millisecond each) leaves main's event loop serving everything else. One thread per verification: they are rare,
 * as every later verification continues after the prefix this one leaves. The entries stay in the worker; main gets
 * their index rows, typed arrays transferred rather than copied or decoded.
 */
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../node/worker-entry';
import { QkError, type ErrorData } from '../../shared/errors';
import type { RememberedBootProofs } from '../../shared/journal/attestations';
import type { FileVerification, VerifiedPrefix } from './verify-file';

export interface WorkerJob {
  file: string;
  known: VerifiedPrefix | undefined;
}

/** A verification by the worker, with the boot proofs it verified. */
export type OffThreadVerification = FileVerification & { bootProofs: RememberedBootProofs };

export type WorkerMessage = ({ kind: 'done' } & OffThreadVerification) | { kind: 'failed'; error: ErrorData };

/**
 * Verifies `file` on a worker thread, continuing after `known` when the file still begins with it and from the start
 * otherwise (the answer's `continued` says which).
 */
export function verifyJournalFileOffThread(file: string, known: VerifiedPrefix | undefined): Promise<OffThreadVerification> {
  const { file: entry, execArgv } = workerEntry(import.meta.url, 'verify-worker.ts', 'journal-verify-worker.js', 'journal verification worker');
  const job: WorkerJob = { file, known };
  const worker = new Worker(entry, { execArgv, workerData: job });
  return new Promise<OffThreadVerification>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
      void worker.terminate();
    };
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'failed') settle(() => reject(QkError.fromData(message.error)));
      else {
        const { kind: _kind, ...verification } = message;
        settle(() => resolve(verification));
      }
    });
    worker.on('error', (error: Error) => settle(() => reject(new QkError('INTERNAL', `the journal verification worker failed: ${error.message}`))));
    worker.on('exit', (code) =>
      settle(() => reject(new QkError('INTERNAL', `the journal verification worker exited (code ${code}) before it answered`))),
    );
  });
}
