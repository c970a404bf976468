/**
 * `journal verify` of files as large as the CLI takes (FILE_LIMITS.journal, 1 GiB), each written to a temp dir and
 * deleted once measured: the time to the verdict and the peak resident memory of a process verifying it
 * (journal-verify-process.ts, as the CLI does, under a 64 MB heap limit), beside that process's memory before it began. A journal wrong at line
 * 1 and followed by a gigabyte of entries, and entry 0 followed by one gigabyte-long line, are judged from their first
 * bytes in the memory of a line; a valid journal of the same size verifies in that memory too (the limit is one the
 * verifier reaches), its throughput beside the raw P-256 verification bound. QK_BENCH_HOSTILE_MB sets a smaller size.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FILE_LIMITS } from '../../src/main/storage/bounded-file.js';
import { GENESIS_PREV, JOURNAL_STARTED, signEntry, type JournalSigner } from '../../src/shared/journal/format.js';

const execFileAsync = promisify(execFile);
const SIZE = (Number(process.env.QK_BENCH_HOSTILE_MB) || FILE_LIMITS.journal.bytes / 1024 / 1024) * 1024 * 1024;
/** Each entry of the valid journal carries this much reading (ten facts of 100,000 characters, the most a fact holds). */
const FACTS = Array.from({ length: 10 }, (_, index) => ({ label: `Fact ${index}`, value: `${index}`.repeat(100_000) }));
const RAW_SIGNATURES = 5_000;

function journalKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer: JournalSigner = (message) => sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    signer,
    privateKey,
    publicKey,
    hex: `04${Buffer.from(jwk.x!, 'base64url').toString('hex')}${Buffer.from(jwk.y!, 'base64url').toString('hex')}`,
  };
}

/** Writes `file` from `lines` (each without its newline) until it holds `size` bytes, cutting the last line short. */
async function writeUpTo(file: string, size: number, lines: (index: number) => Promise<Buffer> | Buffer): Promise<number> {
  const handle = await open(file, 'wx');
  let written = 0;
  let count = 0;
  try {
    while (written < size) {
      const line = await lines(count++);
      const bytes = line.subarray(0, Math.min(line.length, size - written));
      await handle.write(bytes);
      written += bytes.length;
    }
  } finally {
    await handle.close();
  }
  return count;
}

interface Measured {
  elapsedMs: number;
  problem: { message: string } | null;
  peakRss: number;
  restRss: number;
}

/** The verifying process's heap limit: it completes within it (or aborts, out of memory), whatever the file's size. */
const HEAP_MB = 64;

async function measure(file: string): Promise<Measured> {
  const child = join(import.meta.dirname, 'journal-verify-process.ts');
  const { stdout } = await execFileAsync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--import', 'tsx', child, file, 'cli'], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as Measured;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

function report(what: string, { elapsedMs, problem, peakRss, restRss }: Measured, bound: string): void {
  const verdict = problem === null ? 'valid' : problem.message.slice(0, 60);
  console.log(
    `journal verify, ${megabytes(SIZE)} ${what}  verdict (${verdict}) in ${elapsedMs.toFixed(0)} ms, peak RSS ${megabytes(peakRss)} (${megabytes(peakRss - restRss)} above the process before it; heap limit ${HEAP_MB} MB)   ${bound}`,
  );
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'qk-bench-journal-hostile-'));
  const key = journalKey();
  const at = (seq: number) => new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString();
  const started = await signEntry(
    {
      v: 1,
      seq: 0,
      at: at(0),
      prev: GENESIS_PREV,
      action: JOURNAL_STARTED,
      journalKey: key.hex,
      reading: { title: 'Journal started', summary: '', facts: [], warnings: [], verdict: 'started' },
    },
    key.signer,
  );
  const entry0 = Buffer.from(`${started.line}\n`);
  try {
    let prev = started.hash;
    const bulky = async (seq: number) => {
      const { line, hash } = await signEntry(
        {
          v: 1,
          seq,
          at: at(seq),
          prev,
          action: 'vote.approved',
          activityId: `activity-${seq}`,
          reading: { title: `Vote ${seq}`, summary: '', facts: FACTS, warnings: [], verdict: 'completed' },
        },
        key.signer,
      );
      prev = hash;
      return Buffer.from(`${line}\n`);
    };

    // A valid journal as large as the limit allows, bar the last entry that would not fit.
    const valid = join(dir, 'valid.jsonl');
    const entryBytes = (await bulky(1)).length;
    prev = started.hash;
    const entries = Math.floor((SIZE - entry0.length) / entryBytes);
    await writeUpTo(valid, entry0.length + entries * entryBytes, (index) => (index === 0 ? entry0 : bulky(index)));
    const validMeasured = await measure(valid);
    await rm(valid);
    const message = Buffer.from('a message of a typical entry');
    const signature = sign('sha256', message, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
    const rawStarted = performance.now();
    for (let index = 0; index < RAW_SIGNATURES; index++) verify('sha256', message, { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, signature);
    const rawPerSecond = (RAW_SIGNATURES / (performance.now() - rawStarted)) * 1000;
    const perSecond = ((entries + 1) / validMeasured.elapsedMs) * 1000;
    report(
      `valid (${(entries + 1).toLocaleString('en-US')} entries of ${megabytes(entryBytes)})`,
      validMeasured,
      `${Math.round(perSecond)} entries/s, ${((SIZE / 1024 / 1024 / validMeasured.elapsedMs) * 1000).toFixed(0)} MB/s   bound: raw P-256 verification ${Math.round(rawPerSecond).toLocaleString('en-US')}/s (these entries are read, parsed and hashed, not signature-bound)`,
    );

    // Line 1 edited, then a gigabyte of entries: the verdict needs line 1 only.
    const wrongFirst = join(dir, 'wrong-at-line-1.jsonl');
    const edited = Buffer.from(entry0.toString().replace('"Journal started"', '"Journal begun!!"'));
    const copy = await bulky(1);
    await writeUpTo(wrongFirst, SIZE, (index) => (index === 0 ? edited : copy));
    report('wrong at line 1', await measure(wrongFirst), 'bound: reading and checking line 1');
    await rm(wrongFirst);

    // Entry 0, then one line as long as the rest of the file: refused once it is longer than an entry may be.
    const endless = join(dir, 'one-long-line.jsonl');
    const filler = Buffer.alloc(16 << 20, 'x');
    await writeUpTo(endless, SIZE, (index) => (index === 0 ? entry0 : filler));
    report('of entry 0 and one endless line', await measure(endless), 'bound: reading MAX_ENTRY_BYTES (16 MiB) of line 2');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
