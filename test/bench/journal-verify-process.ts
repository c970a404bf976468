/**
 * One verification of a journal file in a process of its own, for the journal benches, which run it under a bounded
 * heap (--max-old-space-size) to find the least each way needs, or measure its peak memory. `streamed` verifies as
 * main's worker does, a line at a time; `whole` reads and checks the file as one text, as it was verified before (the
 * baseline); `cli` verifies as `journal verify` does, a line at a time up to the CLI's size limit. It prints, as JSON,
 * the time to the verdict, the verdict's problem, and the process's peak resident memory and its memory before.
 */
import { readFile } from 'node:fs/promises';
import { nodeJournalVerifier } from '../../src/main/journal/journal-key.js';
import { verifyJournalFile, verifyWholeFile } from '../../src/main/journal/verify-file.js';
import { FILE_LIMITS } from '../../src/main/storage/bounded-file.js';
import { verifyJournal } from '../../src/shared/journal/verify.js';

const [file, mode] = process.argv.slice(2);
if (file === undefined || (mode !== 'streamed' && mode !== 'whole' && mode !== 'cli')) {
  throw new Error('usage: journal-verify-process.ts FILE streamed|whole|cli');
}
const verifySignature = nodeJournalVerifier();
const restRss = process.memoryUsage().rss;
const started = performance.now();
let verdict;
if (mode === 'whole') verdict = verifyJournal(await readFile(file, 'utf8'), { verifySignature });
else if (mode === 'cli') verdict = (await verifyWholeFile(file, { verifySignature }, FILE_LIMITS.journal)).verdict;
else {
  const verification = await verifyJournalFile(file, undefined, { verifySignature });
  if (typeof verification === 'string') throw new Error(`the verification answered ${verification}`);
  verdict = verification.verdict;
}
const elapsedMs = performance.now() - started;
console.log(JSON.stringify({ elapsedMs, problem: verdict.problem ?? null, peakRss: process.resourceUsage().maxRSS * 1024, restRss }));
