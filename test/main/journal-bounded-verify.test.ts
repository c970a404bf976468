/**
 * Issue 36, finding 8: verification judges the journal a line at a time. A file wrong at line 1 is judged at line 1,
 * however much follows (here a gigabyte, sparse so that it takes no disk); a line longer than an entry may be is
 * refused without being read to its end; and the app and the CLI decode the file with one strict UTF-8 decoder, so
 * a byte that is not UTF-8 fails both. The bound in memory and time is measured by `npm run bench -- journal-hostile`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Journal, JOURNAL_FILE } from '../../src/main/journal/journal';
import { nodeJournalVerifier } from '../../src/main/journal/journal-key';
import { verifyJournalFile, verifyWholeFile } from '../../src/main/journal/verify-file';
import { FILE_LIMITS } from '../../src/main/storage/bounded-file';
import { MAX_ENTRY_BYTES, type JournalRecord } from '../../src/shared/journal/format';
import { builtCli } from '../cli/helpers';
import { MemoryStore } from '../support/memory-secret-store';

const repo = join(import.meta.dirname, '../..');
const execFileAsync = promisify(execFile);

const record = (title: string): JournalRecord => ({
  action: 'vote.approved',
  activityId: `activity-${title}`,
  reading: { title, summary: 'a vote', facts: [], warnings: [], verdict: 'completed' },
});

/** A journal of entry 0 and `records` more, written by the app; answers its data dir and file. */
async function journalOf(...titles: string[]) {
  const dataDir = await mkdtemp(join(tmpdir(), 'qk-journal-bounded-'));
  const secrets = new MemoryStore();
  const journal = new Journal({ dataDir, secrets });
  for (const title of titles) await journal.record(record(title));
  return { dataDir, secrets, file: journal.file };
}

/** The verdict of main's verification (a new Journal, as after a launch), and of `journal verify`'s. */
async function verdicts(dataDir: string, secrets: MemoryStore) {
  const app = await new Journal({ dataDir, secrets }).verify();
  const cli = await verifyWholeFile(join(dataDir, JOURNAL_FILE), { verifySignature: nodeJournalVerifier() }, FILE_LIMITS.journal);
  return { app: app.problem, cli: cli.verdict.problem };
}

/** `journal verify FILE` in a process of its own: its exit code and stderr. */
async function cliVerify(file: string): Promise<{ code: number; stderr: string }> {
  return execFileAsync(process.execPath, [builtCli(), 'journal', 'verify', file], { cwd: repo }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

describe('finding 8: journal verification judges line 1 without reading everything', () => {
  it('names a bad line 1 of a file the size of the limit, in the app and the CLI, reading no further', async () => {
    const { dataDir, secrets, file } = await journalOf('first', 'second');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"title":"Journal started"', '"title":"Journal begun!!"'));
    // The rest of the limit is one line of zero bytes; the file holds no disk blocks for it.
    await truncate(file, FILE_LIMITS.journal.bytes);
    const expected = { kind: 'signature', line: 1, seq: 0 };
    const { app, cli } = await verdicts(dataDir, secrets);
    expect(app).toMatchObject(expected);
    expect(cli).toEqual(app);

    const command = await cliVerify(file);
    expect(command.code).toBe(1);
    expect(command.stderr).toContain(`${file} does not verify: entry 0 (line 1): the signature does not verify`);
  }, 60_000);

  it('refuses a line longer than an entry may be once that many bytes are read, not at its end', async () => {
    const { dataDir, secrets, file } = await journalOf('first', 'second');
    await truncate(file, FILE_LIMITS.journal.bytes);
    const { app, cli } = await verdicts(dataDir, secrets);
    expect(app).toEqual({
      kind: 'malformed',
      line: 4,
      seq: undefined,
      message: `line 4: longer than ${MAX_ENTRY_BYTES} bytes, more than an entry can take`,
    });
    expect(cli).toEqual(app);
    // The three entries before it verified.
    const verification = await verifyJournalFile(file, undefined, { verifySignature: nodeJournalVerifier() });
    expect(typeof verification !== 'string' && verification.prefix?.count).toBe(3);
  }, 60_000);

  it('decodes with one strict UTF-8 decoder: a U+FFFD made into a 0xFF byte fails in the app as in the CLI', async () => {
    const { dataDir, secrets, file } = await journalOf('replacement \uFFFD character', 'after it');
    const bytes = await readFile(file);
    const at = bytes.indexOf(Buffer.from('\uFFFD'));
    expect(at).toBeGreaterThan(0);
    await writeFile(file, Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at + 3)]));
    const { app, cli } = await verdicts(dataDir, secrets);
    expect(app).toEqual({ kind: 'malformed', line: 2, seq: undefined, message: 'line 2: not UTF-8 text' });
    expect(cli).toEqual(app);
  });
});
