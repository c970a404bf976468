/**
 * Entry of the thread that verifies a large journal (verify-off-thread.ts starts one per verification): it verifies
 * the file, continuing after the prefix it was given when the file still begins with it, and sends back the verdict
 * with the index rows of the entries that verified (their buffers transferred). Built as its own file beside main
 * (electron.vite.config.ts), run from source under tsx otherwise.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { QkError } from '../../shared/errors';
import { BootProofCheck } from '../../shared/journal/attestations';
import { nodeJournalVerifier } from './journal-key';
import { rowBuffers } from './journal-index';
import { verifyJournalFile } from './verify-file';
import type { WorkerJobMessage } from '../../node/worker-entry';
import type { OffThreadVerification, WorkerJob } from './verify-off-thread';

const post = (message: WorkerJobMessage<OffThreadVerification>, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(message, transfer);

async function run({ file, known }: WorkerJob): Promise<void> {
  const checks = { verifySignature: nodeJournalVerifier(), bootProofs: new BootProofCheck() };
  const continued = await verifyJournalFile(file, known, checks);
  const result = continued === 'prefix-changed' || continued === 'too-large' ? await verifyJournalFile(file, undefined, checks) : continued;
  if (typeof result === 'string') throw new QkError('INTERNAL', `the journal verification answered ${result} with no bound set; this is a bug`);
  // The boot proofs it verified go with the answer, so main does not verify them again when it reads the entries.
  post({ kind: 'done', value: { ...result, bootProofs: checks.bootProofs.remembered() } }, rowBuffers(result.rows));
}

run(workerData as WorkerJob).catch((error: unknown) => {
  post({
    kind: 'failed',
    error: error instanceof QkError ? error.toData() : { code: 'INTERNAL', message: `the journal verification failed: ${String(error)}` },
  });
});
