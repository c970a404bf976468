/**
 * Issue 36, finding 4: the lock between processes appending to one journal (the app and the CLI). A lock left by a
 * process that died holding it must be taken by one appender only, and a lock held by a live process (a keychain
 * prompt nobody answers yet) must never be taken, however long it has been held; otherwise two appenders extend the
 * same entry and the journal never verifies again.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readdir, readFile, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, JOURNAL_FILE } from '../../src/main/journal/journal';
import { verifyJournal } from '../../src/shared/journal/verify';
import { builtEntry } from '../support/built-entries';
import { FileSecretStore } from './fixtures/file-secret-store';

const repo = join(import.meta.dirname, '../..');
const TRIALS = 40;
const APPENDS_EACH = 3;

/** A child running fixtures/journal-racer.ts (built for the run), with its stdout as a queue of lines. */
function racer(...args: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [builtEntry('journal-racer'), ...args], {
    cwd: repo,
  });
  children.push(child);
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const next = waiting.shift();
    if (next === undefined) lines.push(line);
    else next(line);
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  return {
    child,
    exited,
    send: (line: string) => child.stdin.write(`${line}\n`),
    next: () =>
      Promise.race([
        lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise<string>((resolve) => waiting.push(resolve)),
        exited.then((signal) => Promise.reject(new Error(`the racer exited (${signal ?? 'no signal'}) before answering: ${stderr}`))),
      ]),
  };
}

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function journalText(dataDir: string): Promise<string> {
  return readFile(join(dataDir, JOURNAL_FILE), 'utf8');
}

describe('finding 4: the journal does not fork after a crash', () => {
  it(`two processes taking a lock left by a dead process never both extend the same entry (${TRIALS} trials)`, async () => {
    const work = await mkdtemp(join(tmpdir(), 'qk-journal-fork-'));
    const keys = join(work, 'keys');
    const dirs = Array.from({ length: TRIALS }, (_, trial) => join(work, `trial-${trial}`));
    // One process takes the lock of every trial's journal and is killed holding them all.
    const holder = racer('hold', keys, ...dirs);
    expect(await holder.next()).toBe('holding');
    holder.child.kill('SIGKILL');
    expect(await holder.exited).toBe('SIGKILL');

    const first = racer('append', keys);
    const second = racer('append', keys);
    const outcomes: Array<{ trial: number; valid: boolean; count: number; problem: string | undefined }> = [];
    for (const [trial, dataDir] of dirs.entries()) {
      // Both at once, as the app and the CLI starting after the crash.
      first.send(`${dataDir} ${APPENDS_EACH}`);
      second.send(`${dataDir} ${APPENDS_EACH}`);
      expect(await Promise.all([first.next(), second.next()])).toEqual([`done ${dataDir}`, `done ${dataDir}`]);
      const verdict = verifyJournal(await journalText(dataDir));
      outcomes.push({ trial, valid: verdict.valid, count: verdict.entries.length, problem: verdict.problem?.message });
    }
    // Entry 0, the holder's first entry, and every append of the two processes, in one chain.
    const expected = 2 + 2 * APPENDS_EACH;
    expect(outcomes.filter((outcome) => !outcome.valid || outcome.count !== expected)).toEqual([]);
  }, 90_000);

  it('never takes a lock from a live holder, however long it has held it (a keychain prompt)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'qk-journal-live-lock-'));
    const keys = join(dataDir, 'keys');
    const holder = racer('hold', keys, dataDir);
    expect(await holder.next()).toBe('holding');
    // The holder has held the lock for a minute, as far as any file's time says.
    const aMinuteAgo = new Date(Date.now() - 60_000);
    for (const name of await readdir(dataDir)) if (name.includes('lock')) await utimes(join(dataDir, name), aMinuteAgo, aMinuteAgo);

    const journal = new Journal({ dataDir, secrets: new FileSecretStore(keys) });
    const appended = journal.record({
      action: 'app.unlocked',
      reading: { title: 'Waiting', summary: '', facts: [], warnings: [], verdict: 'unlocked' },
    });
    // It waits: nothing is appended while the holder holds the lock.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await journalText(dataDir)).split('\n')).toHaveLength(2 + 1);

    holder.send('release');
    expect(await holder.next()).toBe('appended 2');
    expect((await appended).seq).toBe(3);
    const verdict = verifyJournal(await journalText(dataDir));
    expect(verdict.problem).toBeUndefined();
    expect(verdict.entries.map((entry) => entry.reading.title)).toEqual(['Journal started', 'before the holder', 'by the holder', 'Waiting']);
  }, 30_000);
});
