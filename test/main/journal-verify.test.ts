/**
 * The journal's verification over real files: incremental (only what was appended since is checked, an edit inside
 * what already verified is still found), a large journal verified on a worker thread while main's event loop runs,
 * and callers arriving during a verification sharing the next one rather than starting their own.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/main/journal/journal';
import { nodeJournalVerifier } from '../../src/main/journal/journal-key';
import type { JournalSignatureVerifier } from '../../src/shared/journal/format';
import { MemoryStore } from '../support/memory-secret-store';

/** Enough entries that their bytes exceed what main verifies itself, so they go to a worker thread. */
const LARGE = 150;

const reading = (index: number) => ({
  title: `Send 1.5 ETH, transfer ${index}`,
  summary: `Transfer ${index} from Treasury`,
  facts: [
    { label: 'From', value: 'Treasury (0x71C7656EC7ab88b098defB751B7401B5f6d8976F)' },
    { label: 'To', value: '0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97' },
  ],
  warnings: [],
  verdict: 'completed',
});

/** node:crypto's verifier, counting the signatures it checks on this (main's) thread. */
function countingVerifier(): { verifySignature: JournalSignatureVerifier; checks: () => number } {
  const verify = nodeJournalVerifier();
  let checks = 0;
  return {
    verifySignature: (signature, message, publicKey) => {
      checks += 1;
      return verify(signature, message, publicKey);
    },
    checks: () => checks,
  };
}

/** A journal of `records` entries after entry 0, and a way to open it again as a restarted app would. */
async function journalWith(records: number) {
  const dataDir = await mkdtemp(join(tmpdir(), 'qk-journal-verify-'));
  const secrets = new MemoryStore();
  const writer = new Journal({ dataDir, secrets });
  for (let index = 1; index <= records; index++)
    await writer.record({ action: 'vote.approved', activityId: `activity-${index}`, reading: reading(index) });
  const reopen = () => {
    const counter = countingVerifier();
    return { journal: new Journal({ dataDir, secrets, verifySignature: counter.verifySignature }), checks: counter.checks };
  };
  return { file: writer.file, reopen };
}

/** Rewrites entry `seq`'s summary in place: same length, still canonical JSON, no longer what was signed. */
async function editEntry(file: string, seq: number): Promise<void> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const edited = lines[seq]!.replace(`"Transfer ${seq} from Treasury"`, `"Transfer ${seq} from Treasurx"`);
  expect(edited).not.toBe(lines[seq]);
  lines[seq] = edited;
  await writeFile(file, lines.join('\n'));
}

/** Counts the worker threads started, and for each, whether a timer set as it started fired before `settled()`. */
function watchWorkers(settled: () => boolean) {
  const seen = { workers: 0, timersFiredWhileRunning: 0 };
  const onWorker = () => {
    seen.workers += 1;
    setTimeout(() => {
      if (!settled()) seen.timersFiredWhileRunning += 1;
    }, 0);
  };
  subscribe('worker_threads', onWorker);
  stopWatching = () => unsubscribe('worker_threads', onWorker);
  return seen;
}
let stopWatching = () => {};
afterEach(() => stopWatching());

describe('journal verification', () => {
  it('checks only the entries appended since the last verification', async () => {
    const { reopen } = await journalWith(5);
    const { journal, checks } = reopen();
    const first = await journal.verify();
    expect(first).toMatchObject({ valid: true, tornTail: false });
    expect(first.entries).toHaveLength(6);
    expect(checks()).toBe(6);

    const appended = await journal.record({ action: 'app.unlocked', reading: reading(6) });
    const second = await journal.verify();
    expect(checks()).toBe(7);
    expect(second.valid).toBe(true);
    expect(second.entries.map((entry) => entry.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(second.entries.at(-1)).toEqual(appended);

    expect(await journal.verify()).toEqual(second);
    expect(checks()).toBe(7);
  });

  it('still finds and names an edit inside the part that already verified', async () => {
    const { file, reopen } = await journalWith(5);
    const { journal, checks } = reopen();
    expect((await journal.verify()).valid).toBe(true);
    await editEntry(file, 2);
    const verdict = await journal.verify();
    expect(verdict.valid).toBe(false);
    expect(verdict.problem).toMatchObject({ kind: 'signature', seq: 2, line: 3 });
    expect(verdict.entries).toHaveLength(2);
    // Verified again from the start: entries 0 and 1, and the edited one.
    expect(checks()).toBe(6 + 3);
    // The entry stays named while the edit stays, however often it is asked.
    expect((await journal.verify()).problem).toEqual(verdict.problem);
  });

  it('verifies a large journal on a worker thread while the event loop keeps running, then continues on main', async () => {
    const { file, reopen } = await journalWith(LARGE);
    const { journal, checks } = reopen();
    let settled = false;
    const seen = watchWorkers(() => settled);
    const verdict = await journal.verify().finally(() => (settled = true));
    expect(verdict.valid).toBe(true);
    expect(verdict.entries).toHaveLength(LARGE + 1);
    expect(seen).toEqual({ workers: 1, timersFiredWhileRunning: 1 });
    expect(checks()).toBe(0);

    await journal.record({ action: 'app.unlocked', reading: reading(LARGE + 1) });
    expect((await journal.verify()).entries).toHaveLength(LARGE + 2);
    expect(checks()).toBe(1);
    expect(seen.workers).toBe(1);

    await editEntry(file, 40);
    settled = false;
    const edited = await journal.verify().finally(() => (settled = true));
    expect(edited.problem).toMatchObject({ kind: 'signature', seq: 40, line: 41 });
    expect(edited.entries).toHaveLength(40);
    expect(seen).toEqual({ workers: 2, timersFiredWhileRunning: 2 });
  });

  it('shares one verification among callers arriving while it runs', async () => {
    const { reopen } = await journalWith(LARGE);
    const { journal, checks } = reopen();
    const seen = watchWorkers(() => false);
    const workerStarted = new Promise<void>((resolve) =>
      subscribe('worker_threads', function started() {
        unsubscribe('worker_threads', started);
        resolve();
      }),
    );
    const first = journal.verify();
    const alongside = journal.verify();
    await workerStarted;
    const during = [journal.verify(), journal.verify()];
    const verdicts = await Promise.all([first, alongside, ...during]);
    expect(seen.workers).toBe(1);
    // The callers that came during it share the one after it, which found nothing new to check.
    expect(checks()).toBe(0);
    for (const verdict of verdicts) expect(verdict).toEqual(verdicts[0]);
    expect(verdicts[0]?.entries).toHaveLength(LARGE + 1);
  });
});
