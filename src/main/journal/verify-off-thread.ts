/**
 * A journal verification on a worker thread (verify-worker.ts), so checking a large journal's signatures (about a
 * millisecond each) leaves main's event loop serving everything else. One thread per verification: they are rare,
 * as every later verification continues after the prefix this one leaves. The entries stay in the worker; main gets
 * their index rows, typed arrays transferred rather than copied or decoded.
 */
import { runWorkerJob, workerEntry } from '../../node/worker-entry';
import type { RememberedBootProofs } from '../../shared/journal/attestations';
import type { FileVerification, VerifiedPrefix } from './verify-file';

export interface WorkerJob {
  file: string;
  known: VerifiedPrefix | undefined;
}

/** A verification by the worker, with the boot proofs it verified. */
export type OffThreadVerification = FileVerification & { bootProofs: RememberedBootProofs };

/**
 * Verifies `file` on a worker thread, continuing after `known` when the file still begins with it and from the start
 * otherwise (the answer's `continued` says which).
 */
export function verifyJournalFileOffThread(file: string, known: VerifiedPrefix | undefined): Promise<OffThreadVerification> {
  const what = 'journal verification worker';
  const job: WorkerJob = { file, known };
  return runWorkerJob(workerEntry(import.meta.url, 'verify-worker.ts', 'journal-verify-worker.js', what), job, what);
}
