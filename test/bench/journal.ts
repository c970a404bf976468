/**
 * The journal: appends per second through main's Journal (each one signed, written and fsynced), and verifying a
 * journal of 100,000 entries through it (from the start, on its worker thread), each beside its bound: the raw ECDSA
 * P-256 signatures (node:crypto) the same work needs; then verifying it again after one more append, which checks only
 * that entry once the verified bytes are found unchanged; what main holds in memory for that journal once verified; the
 * peak memory of a verification a line at a time against one of the whole file as one text; and listing its newest
 * entries as the Journal screen does. QK_BENCH_JOURNAL_ENTRIES sets a smaller journal.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import { JOURNAL_LIST_LIMIT } from '../../src/shared/ipc/journal.js';
import { Journal, JOURNAL_FILE } from '../../src/main/journal/journal.js';
import { journalHandlers } from '../../src/main/journal/journal.ipc.js';
import { JOURNAL_KEY_ACCOUNT } from '../../src/main/journal/journal-key.js';
import { GENESIS_PREV, JOURNAL_STARTED, signEntry, type JournalSigner } from '../../src/shared/journal/format.js';
import { MemoryStore } from '../support/memory-secret-store.js';

const APPENDS = 300;
const VERIFIED_ENTRIES = Number(process.env.QK_BENCH_JOURNAL_ENTRIES) || 100_000;
const LISTS = 5;
const RAW_SIGNATURES = 5_000;
const execFileAsync = promisify(execFile);

const reading = (index: number) => ({
  title: 'Send 1.5 ETH to 0x4838…5f97',
  summary: `Transfer ${index} from Treasury`,
  facts: [
    { label: 'From', value: 'Treasury (0x71C7656EC7ab88b098defB751B7401B5f6d8976F)' },
    { label: 'To', value: '0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97' },
    { label: 'Value', value: '1.5 ETH' },
  ],
  warnings: ['This organization has never sent to this address.'],
  verdict: 'completed',
});

/** What main holds after a full garbage collection: its JS heap, and ArrayBuffers' memory (outside that heap). */
function memoryAfterGc(): { heapUsed: number; arrayBuffers: number } {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heapUsed, arrayBuffers };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function perSecond(count: number, milliseconds: number): string {
  return `${Math.round((count / milliseconds) * 1000).toLocaleString('en-US')}/s`;
}

async function appends(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'qk-bench-journal-'));
  try {
    const journal = new Journal({ dataDir, secrets: new MemoryStore() });
    await journal.record({ action: 'activity.submitted', reading: reading(0) });
    const started = performance.now();
    for (let index = 1; index <= APPENDS; index++)
      await journal.record({ action: 'vote.approved', activityId: `activity-${index}`, reading: reading(index) });
    const elapsed = performance.now() - started;
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const message = Buffer.from(JSON.stringify(reading(1)));
    const signStarted = performance.now();
    for (let index = 0; index < RAW_SIGNATURES; index++) sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const signElapsed = performance.now() - signStarted;
    console.log(`append (sign, write, fsync)  ${perSecond(APPENDS, elapsed)}   bound: raw P-256 signing ${perSecond(RAW_SIGNATURES, signElapsed)}`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function verification(): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer: JournalSigner = (message) => sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const jwk = publicKey.export({ format: 'jwk' });
  const journalKey = `04${Buffer.from(jwk.x!, 'base64url').toString('hex')}${Buffer.from(jwk.y!, 'base64url').toString('hex')}`;
  const lines: string[] = [];
  let prev = GENESIS_PREV;
  for (let seq = 0; seq < VERIFIED_ENTRIES; seq++) {
    const at = new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString();
    const { line, hash } = await signEntry(
      seq === 0
        ? { v: 1, seq, at, prev, action: JOURNAL_STARTED, journalKey, reading: reading(seq) }
        : { v: 1, seq, at, prev, action: 'vote.approved', activityId: `activity-${seq}`, reading: reading(seq) },
      signer,
    );
    lines.push(line);
    prev = hash;
  }
  const text = `${lines.join('\n')}\n`;
  const dataDir = await mkdtemp(join(tmpdir(), 'qk-bench-journal-verify-'));
  const secrets = new MemoryStore();
  await secrets.set(JOURNAL_KEY_ACCOUNT, Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'));
  const journalFile = join(dataDir, JOURNAL_FILE);
  await writeFile(journalFile, text);
  const leastHeap = { streamed: await leastHeapToVerify(journalFile, 'streamed'), whole: await leastHeapToVerify(journalFile, 'whole') };
  const before = memoryAfterGc();
  const journal = new Journal({ dataDir, secrets });
  const started = performance.now();
  const verdict = await journal.verify();
  const elapsed = performance.now() - started;
  if (!verdict.valid) throw new Error(`the bench journal does not verify: ${verdict.problem?.message ?? ''}`);
  const after = memoryAfterGc();
  const verifyStarted = performance.now();
  for (let round = 0; round < LISTS; round++) await journal.verify();
  const verifyElapsed = (performance.now() - verifyStarted) / LISTS;
  const list = journalHandlers({ journal, profiles: { list: async () => [] }, journalExportsDir: join(dataDir, 'exports') })['journal.list'];
  let listed = 0;
  const listStarted = performance.now();
  for (let round = 0; round < LISTS; round++) listed = (await list({})).entries.length;
  const listElapsed = (performance.now() - listStarted) / LISTS;
  if (listed !== Math.min(JOURNAL_LIST_LIMIT, VERIFIED_ENTRIES)) throw new Error(`the list answered ${listed} entries`);
  await journal.record({ action: 'vote.approved', activityId: `activity-${VERIFIED_ENTRIES}`, reading: reading(VERIFIED_ENTRIES) });
  const againStarted = performance.now();
  const again = await journal.verify();
  const againElapsed = performance.now() - againStarted;
  await rm(dataDir, { recursive: true, force: true });
  if (again.count !== VERIFIED_ENTRIES + 1) throw new Error(`the appended entry did not verify: ${again.problem?.message ?? ''}`);
  const message = Buffer.from(lines[1]!);
  const signature = sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const rawStarted = performance.now();
  for (let index = 0; index < RAW_SIGNATURES; index++) verify('sha256', message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  const rawElapsed = performance.now() - rawStarted;
  console.log(
    `verify ${VERIFIED_ENTRIES.toLocaleString('en-US')} entries (${(text.length / 1e6).toFixed(0)} MB, worker)  ${(elapsed / 1000).toFixed(1)} s, ${perSecond(VERIFIED_ENTRIES, elapsed)}   bound: raw P-256 verification ${perSecond(RAW_SIGNATURES, rawElapsed)}`,
  );
  console.log(
    `verify after 1 append to a verified ${VERIFIED_ENTRIES.toLocaleString('en-US')}-entry journal  ${againElapsed.toFixed(0)} ms   bound: 1 signature, and SHA-256 over the ${(text.length / 1e6).toFixed(0)} MB verified`,
  );
  console.log(
    `main's memory held after verifying ${VERIFIED_ENTRIES.toLocaleString('en-US')} entries  heap ${megabytes(after.heapUsed - before.heapUsed)}, ArrayBuffers ${megabytes(after.arrayBuffers - before.arrayBuffers)}   (the journal file: ${(text.length / 1e6).toFixed(0)} MB)`,
  );
  console.log(
    `least heap (--max-old-space-size) to verify ${VERIFIED_ENTRIES.toLocaleString('en-US')} entries  a line at a time ${leastHeap.streamed} MB   baseline: as one text ${leastHeap.whole} MB, ${(leastHeap.whole / leastHeap.streamed).toFixed(0)}× as much`,
  );
  console.log(
    `journal.list of the newest ${listed.toLocaleString('en-US')} of ${VERIFIED_ENTRIES.toLocaleString('en-US')} entries  ${listElapsed.toFixed(0)} ms (mean of ${LISTS})   bound: the verification it starts with, finding nothing new, ${verifyElapsed.toFixed(0)} ms`,
  );
}

/** Heap limits tried, in MB: the least one a verification completes in is what it needs, to within a factor of 2. */
const HEAP_LIMITS_MB = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/** The least of HEAP_LIMITS_MB that a process verifying `file` (journal-verify-process.ts) completes in. */
async function leastHeapToVerify(file: string, mode: 'streamed' | 'whole'): Promise<number> {
  const child = join(import.meta.dirname, 'journal-verify-process.ts');
  for (const limit of HEAP_LIMITS_MB) {
    const completed = await execFileAsync(process.execPath, [`--max-old-space-size=${limit}`, '--import', 'tsx', child, file, mode]).then(
      () => true,
      () => false,
    );
    if (completed) return limit;
  }
  throw new Error(`verifying ${file} ${mode} did not complete within a heap of ${HEAP_LIMITS_MB.at(-1)} MB`);
}

export async function run(): Promise<void> {
  await appends();
  await verification();
}
