/**
 * One verification of a journal file in a process of its own, for the journal bench, which runs it under a bounded
 * heap (--max-old-space-size) to find the least each way needs. `batched` verifies as main's worker does, a batch of
 * lines at a time; `whole` reads and checks the file in one piece, as it did before (the baseline). It prints the time
 * taken, as JSON; a heap too small ends it with V8's out-of-memory abort.
 */
import { nodeJournalVerifier } from '../../src/main/journal/journal-key.js';
import { verifyJournalFile } from '../../src/main/journal/verify-file.js';

const [file, mode] = process.argv.slice(2);
if (file === undefined || (mode !== 'batched' && mode !== 'whole')) throw new Error('usage: journal-verify-process.ts FILE batched|whole');
const started = performance.now();
const verification = await verifyJournalFile(file, undefined, {
  verifySignature: nodeJournalVerifier(),
  ...(mode === 'whole' ? { batchBytes: Infinity } : {}),
});
if (typeof verification === 'string' || !verification.verdict.valid) throw new Error(`the journal did not verify: ${JSON.stringify(verification)}`);
console.log(JSON.stringify({ elapsedMs: performance.now() - started }));
