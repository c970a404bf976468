/**
 * Entry of the thread that verifies a large journal (verify-off-thread.ts starts one per verification): it verifies
 * the file, continuing after the prefix it was given when the file still begins with it, and sends the verified
 * entries back in batches, then the rest of the verdict. Built as its own file beside main (electron.vite.config.ts),
 * run from source under tsx otherwise.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { QkError } from '../../shared/errors';
import { nodeJournalVerifier } from './journal-key';
import { verifyJournalFile } from './verify-file';
import { ENTRY_BATCH, type WorkerJob, type WorkerMessage } from './verify-off-thread';

const post = (message: WorkerMessage) => parentPort!.postMessage(message);

async function run({ file, known }: WorkerJob): Promise<void> {
  const verifySignature = nodeJournalVerifier();
  const continued = await verifyJournalFile(file, known, { verifySignature });
  const result =
    continued === 'prefix-changed' || continued === 'too-large' ? await verifyJournalFile(file, undefined, { verifySignature }) : continued;
  if (typeof result === 'string') throw new QkError('INTERNAL', `the journal verification answered ${result} with no bound set; this is a bug`);
  const { entries, ...verdict } = result.verdict;
  // Batches keep each message's decoding on main short.
  for (let start = 0; start < entries.length; start += ENTRY_BATCH) post({ kind: 'entries', entries: entries.slice(start, start + ENTRY_BATCH) });
  post({ kind: 'done', continued: result.continued, verdict: { ...verdict, entries: [] }, prefix: result.prefix });
}

run(workerData as WorkerJob).catch((error: unknown) => {
  post({
    kind: 'failed',
    error: error instanceof QkError ? error.toData() : { code: 'INTERNAL', message: `the journal verification failed: ${String(error)}` },
  });
});
