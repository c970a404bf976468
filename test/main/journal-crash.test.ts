import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/main/journal/journal';
import { verifyJournal } from '../../src/shared/journal/verify';
import { builtEntry } from '../support/built-entries';
import { FileSecretStore } from './fixtures/file-secret-store';

const repo = join(import.meta.dirname, '../..');

/** Starts the appender and kills it (SIGKILL, no chance to tidy up) once it has appended `entries` entries. */
function appendThenKill(dataDir: string, keys: string, entries: number, extraMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtEntry('journal-appender'), dataDir, keys], { cwd: repo });
    let seen = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString().split('\n').filter(Boolean).length;
      if (seen >= entries && !child.killed) setTimeout(() => child.kill('SIGKILL'), extraMs);
    });
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`the appender exited by itself (${signal ?? 'no signal'})`)),
    );
    child.on('error', reject);
  });
}

describe('journal after a crash', () => {
  it('a process killed while appending leaves a verifiable prefix, and the next append continues it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'qk-journal-crash-'));
    const keys = join(dataDir, 'keys');
    for (const [round, extraMs] of [3, 7, 11].entries()) {
      await appendThenKill(dataDir, keys, 4 * (round + 1), extraMs);
      const afterKill = verifyJournal(await readFile(join(dataDir, 'journal.jsonl'), 'utf8'));
      expect(afterKill.problem).toBeUndefined();
      expect(afterKill.entries.length).toBeGreaterThanOrEqual(4 * (round + 1));
      const journal = new Journal({ dataDir, secrets: new FileSecretStore(keys) });
      const next = await journal.record({
        action: 'app.unlocked',
        reading: { title: 'After the crash', summary: '', facts: [], warnings: [], verdict: 'unlocked' },
      });
      const afterAppend = await journal.verify();
      expect(afterAppend).toMatchObject({ valid: true, tornTail: false });
      expect(afterAppend.count).toBe(next.seq + 1);
      expect(next.seq).toBe(afterKill.entries.length);
    }
  }, 120_000);

  it('cuts off a torn last line before appending, and verification reported it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'qk-journal-torn-'));
    const journal = new Journal({ dataDir, secrets: new FileSecretStore(join(dataDir, 'keys')) });
    const reading = { title: 'Entry', summary: '', facts: [], warnings: [], verdict: 'completed' };
    await journal.record({ action: 'activity.submitted', reading });
    await appendFile(join(dataDir, 'journal.jsonl'), '{"action":"activity.submitted","at":"2026-');
    expect(await journal.verify()).toMatchObject({ valid: true, tornTail: true });
    // A fresh Journal, as after a restart: it has to find the torn line in the file.
    const restarted = new Journal({ dataDir, secrets: new FileSecretStore(join(dataDir, 'keys')) });
    const next = await restarted.record({ action: 'activity.submitted', reading });
    expect(next.seq).toBe(2);
    const verdict = await restarted.verify();
    expect(verdict).toMatchObject({ valid: true, tornTail: false });
    expect(verdict.count).toBe(3);
    expect((await restarted.list({}, 10)).entries.map((entry) => entry.seq)).toEqual([2, 1, 0]);
  });
});
