/**
 * The journal's verification over real files: incremental (only what was appended since is checked, an edit inside
 * what already verified is still found), a large journal verified on a worker thread while main's event loop runs,
 * and callers arriving during a verification sharing the next one rather than starting their own. Then what main
 * keeps of it, an index: lists and exports read from the file the lines they answer, and refuse a line that changed.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import { access, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/main/journal/journal';
import { journalHandlers } from '../../src/main/journal/journal.ipc';
import type { IndexFilter } from '../../src/main/journal/journal-index';
import { nodeJournalVerifier } from '../../src/main/journal/journal-key';
import { verifyJournalFile } from '../../src/main/journal/verify-file';
import { verifyJournalFileOffThread } from '../../src/main/journal/verify-off-thread';
import { sha256Hex, type JournalEntry, type JournalRecord, type JournalSignatureVerifier } from '../../src/shared/journal/format';
import { verifyJournal } from '../../src/shared/journal/verify';
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

/**
 * node:crypto's verifier, counting the signatures it checks on this (main's) thread; `beforeNextCheck` runs a step
 * just before the next check, as when another process writes to the file in the middle of a verification.
 */
function countingVerifier() {
  const verify = nodeJournalVerifier();
  let checks = 0;
  let before: (() => void) | undefined;
  const verifySignature: JournalSignatureVerifier = (signature, message, publicKey) => {
    checks += 1;
    const step = before;
    before = undefined;
    step?.();
    return verify(signature, message, publicKey);
  };
  return { verifySignature, checks: () => checks, beforeNextCheck: (step: () => void) => (before = step) };
}

interface JournalSetup {
  /** The record appended as entry `index` (a vote on `activity-<index>` by default). */
  record?: (index: number) => JournalRecord;
  now?: () => number;
}

const voteRecord = (index: number): JournalRecord => ({ action: 'vote.approved', activityId: `activity-${index}`, reading: reading(index) });

/** A journal of `records` entries after entry 0, and a way to open it again as a restarted app would. */
async function journalWith(records: number, { record = voteRecord, now = Date.now }: JournalSetup = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'qk-journal-verify-'));
  const secrets = new MemoryStore();
  const writer = new Journal({ dataDir, secrets, now });
  for (let index = 1; index <= records; index++) await writer.record(record(index));
  const reopen = () => {
    const counter = countingVerifier();
    return { journal: new Journal({ dataDir, secrets, now, verifySignature: counter.verifySignature }), ...counter };
  };
  return { file: writer.file, dataDir, reopen };
}

/** The file's text with entry `seq`'s summary rewritten in place: same length, still canonical JSON, no longer signed. */
function editedText(text: string, seq: number): string {
  const lines = text.split('\n');
  const edited = lines[seq]!.replace(`"Transfer ${seq} from Treasury"`, `"Transfer ${seq} from Treasurx"`);
  expect(edited).not.toBe(lines[seq]);
  lines[seq] = edited;
  return lines.join('\n');
}

async function editEntry(file: string, seq: number): Promise<void> {
  await writeFile(file, editedText(await readFile(file, 'utf8'), seq));
}

/** The same edit at once, for a step inside a verification. */
function editEntryNow(file: string, seq: number): void {
  writeFileSync(file, editedText(readFileSync(file, 'utf8'), seq));
}

/** The file's complete lines. */
async function fileLines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return text.slice(0, text.lastIndexOf('\n')).split('\n');
}

/** What a list should answer, worked out from the file's text alone: the newest `limit` matches, newest first. */
async function expectedList(file: string, { action, profileId, fromMs = -Infinity, toMs = Infinity }: IndexFilter, limit: number) {
  const entries = (await fileLines(file)).map((line) => JSON.parse(line) as JournalEntry);
  return entries
    .filter(
      (entry) =>
        (action === undefined || entry.action === action || entry.action.startsWith(`${action}.`)) &&
        (profileId === undefined || entry.profileId === profileId) &&
        Date.parse(entry.at) >= fromMs &&
        Date.parse(entry.at) <= toMs,
    )
    .reverse()
    .slice(0, limit);
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
    expect(first.count).toBe(6);
    expect(checks()).toBe(6);

    const appended = await journal.record({ action: 'app.unlocked', reading: reading(6) });
    // The append checked the journal's end before extending it: entry 0, which names the key, and the last entry.
    expect(checks()).toBe(6 + 2);
    const second = await journal.verify();
    expect(checks()).toBe(6 + 2 + 1);
    expect(second.valid).toBe(true);
    expect(second.count).toBe(7);
    const { entries } = await journal.list({}, 10);
    expect(entries.map((entry) => entry.seq)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(entries[0]).toEqual(appended);

    expect(await journal.verify()).toEqual(second);
    expect(checks()).toBe(6 + 2 + 1);
  });

  it('still finds and names an edit inside the part that already verified', async () => {
    const { file, reopen } = await journalWith(5);
    const { journal, checks } = reopen();
    expect((await journal.verify()).valid).toBe(true);
    await editEntry(file, 2);
    const verdict = await journal.verify();
    expect(verdict.valid).toBe(false);
    expect(verdict.problem).toMatchObject({ kind: 'signature', seq: 2, line: 3 });
    expect(verdict.count).toBe(2);
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
    expect(verdict.count).toBe(LARGE + 1);
    expect(seen).toEqual({ workers: 1, timersFiredWhileRunning: 1 });
    expect(checks()).toBe(0);

    await journal.record({ action: 'app.unlocked', reading: reading(LARGE + 1) });
    expect((await journal.verify()).count).toBe(LARGE + 2);
    // The append's check of the journal's end (2), and the new entry.
    expect(checks()).toBe(2 + 1);
    // The worker's rows and the one main added (the index grown to take it) list as the file reads.
    expect((await journal.list({}, 1000)).entries).toEqual(await expectedList(file, {}, 1000));
    expect(seen.workers).toBe(1);

    await editEntry(file, 40);
    settled = false;
    const edited = await journal.verify().finally(() => (settled = true));
    expect(edited.problem).toMatchObject({ kind: 'signature', seq: 40, line: 41 });
    expect(edited.count).toBe(40);
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
    expect(verdicts[0]?.count).toBe(LARGE + 1);
  });
});

/** A clock that moves an hour on each reading, from 1 November 2026. */
function hourlyClock(): () => number {
  let ticks = 0;
  return () => Date.UTC(2026, 10, 1) + 3_600_000 * ticks++;
}

const ACTIONS = ['vote.approved', 'vote.rejected', 'export.revealed', 'app.unlocked'] as const;
const PROFILES = ['p-treasury', 'p-ops', undefined] as const;

/** Entry `index`: an action and a profile (or none) in turn. */
const variedRecord = (index: number): JournalRecord => {
  const profileId = PROFILES[index % PROFILES.length];
  return { action: ACTIONS[index % ACTIONS.length]!, ...(profileId === undefined ? {} : { profileId }), reading: reading(index) };
};

/** Entry `index` carrying a reading of some 90 KB: a few of them span the chunks the journal is read in. */
const bulkyRecord = (index: number): JournalRecord => ({
  action: 'export.revealed',
  activityId: `activity-${index}`,
  reading: { ...reading(index), facts: [{ label: 'Bundle', value: `${index}`.padEnd(90_000, 'ab') }] },
});

describe('the journal index', () => {
  it('lists after appends, here and by another process, the same entries as a fresh verification', async () => {
    const { file, reopen } = await journalWith(5);
    const { journal, checks } = reopen();
    await journal.verify();
    const cli = reopen().journal;
    for (let round = 0; round < 3; round++) {
      await cli.record(voteRecord(100 + round));
      await journal.record({ action: 'app.unlocked', reading: reading(200 + round) });
      expect((await journal.list({}, 100)).entries).toEqual(await expectedList(file, {}, 100));
    }
    // Each entry's signature was checked once by a verification, and each of this Journal's appends checked the end it
    // extended (entry 0 and the last entry).
    expect(checks()).toBe(6 + 2 * 3 + 2 * 3);
    const fresh = reopen().journal;
    const listed = await journal.list({}, 100);
    expect(listed).toEqual(await fresh.list({}, 100));
    expect(listed.entries.map((entry) => entry.seq)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(listed.verdict).toMatchObject({ valid: true, count: 12 });
  });

  it('filters by action family or action, profile and date, newest first up to the limit', async () => {
    const { file, reopen } = await journalWith(24, { record: variedRecord, now: hourlyClock() });
    const { journal } = reopen();
    const hour = (count: number) => Date.UTC(2026, 10, 1) + 3_600_000 * count;
    const filters: Array<[IndexFilter, number]> = [
      [{}, 100],
      [{}, 5],
      [{ action: 'vote' }, 100],
      [{ action: 'vote.rejected' }, 100],
      [{ action: 'vote.stamped-offline' }, 100],
      [{ action: 'export' }, 3],
      [{ profileId: 'p-ops' }, 100],
      [{ profileId: 'p-nobody' }, 100],
      [{ fromMs: hour(6), toMs: hour(12) }, 100],
      [{ action: 'vote', profileId: 'p-treasury', fromMs: hour(3) }, 100],
      [{ toMs: hour(0) }, 100],
    ];
    for (const [filter, limit] of filters) {
      const { entries } = await journal.list(filter, limit);
      expect(entries, JSON.stringify(filter)).toEqual(await expectedList(file, filter, limit));
    }
    expect((await journal.list({ action: 'vote' }, 100)).entries).toHaveLength(12);
    expect((await journal.list({ profileId: 'p-ops' }, 100)).entries).toHaveLength(8);
    expect((await journal.list({ fromMs: hour(6), toMs: hour(12) }, 100)).entries.map((entry) => entry.seq)).toEqual([12, 11, 10, 9, 8, 7, 6]);
    expect((await journal.list({ profileId: 'p-nobody' }, 100)).entries).toEqual([]);

    // The channel maps its dates and answers the same entries, as the Journal screen shows them.
    const channel = journalHandlers({ journal, profiles: { list: async () => [] }, journalExportsDir: join(tmpdir(), 'unused') })['journal.list'];
    const answer = await channel({ action: 'vote', from: new Date(hour(4)).toISOString(), to: new Date(hour(20)).toISOString() });
    const expected = await expectedList(file, { action: 'vote', fromMs: hour(4), toMs: hour(20) }, 100);
    expect(answer.entries.map((entry) => [entry.seq, entry.action, entry.reading])).toEqual(
      expected.map((entry) => [entry.seq, entry.action, entry.reading]),
    );
    expect(answer.verification).toMatchObject({ valid: true, count: 25 });
  });

  it('refuses to show an entry whose line changed after it verified, then names the edit', async () => {
    const { file, reopen } = await journalWith(5);
    const { journal, beforeNextCheck } = reopen();
    expect((await journal.list({}, 100)).entries).toHaveLength(6);
    await journal.record({ action: 'app.unlocked', reading: reading(6) });
    // The edit lands while the list's verification checks the new entry, after the verified bytes were found unchanged.
    beforeNextCheck(() => editEntryNow(file, 2));
    const refused = journal.list({}, 100);
    await expect(refused).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    await expect(refused).rejects.toThrow(`${file} changed after it verified: entry 2 (line 3) is no longer the entry that verified`);
    // The next look verifies again from the start and names the edit; only the entries before it are shown.
    const after = await journal.list({}, 100);
    expect(after.verdict).toMatchObject({ valid: false, count: 2, problem: { kind: 'signature', seq: 2, line: 3 } });
    expect(after.entries.map((entry) => entry.seq)).toEqual([1, 0]);
    // Nor does the journal key sign a checkpoint of a journal that was edited.
    await expect(journal.checkpoint()).rejects.toThrow('the journal does not verify, so no checkpoint is signed: entry 2 (line 3)');
  });

  it('signs a checkpoint of the head as it verified', async () => {
    const { file, reopen } = await journalWith(5);
    const { journal } = reopen();
    const lines = await fileLines(file);
    const checkpoint = await journal.checkpoint();
    expect(checkpoint).toMatchObject({ count: 6, head: sha256Hex(lines[5]!), journalKey: JSON.parse(lines[0]!).journalKey });
    expect(verifyJournal(`${lines.join('\n')}\n`, { checkpoint: JSON.stringify(checkpoint) })).toMatchObject({ valid: true });
  });

  it('exports a range as exactly the lines of the file, read in chunks, with a checkpoint that verifies it', async () => {
    const { file, dataDir, reopen } = await journalWith(24, { record: bulkyRecord, now: hourlyClock() });
    const { journal } = reopen();
    const lines = await fileLines(file);
    expect(lines.join('\n').length).toBeGreaterThan(2 * 1024 * 1024);
    const hour = (count: number) => Date.UTC(2026, 10, 1) + 3_600_000 * count;

    const slice = await journal.writeExport({ fromMs: hour(7), toMs: hour(19) }, join(dataDir, 'slice.jsonl'));
    expect(slice.count).toBe(13);
    const sliceText = await readFile(slice.file, 'utf8');
    expect(sliceText).toBe(`${lines.slice(7, 20).join('\n')}\n`);
    const checkpointText = await readFile(slice.checkpointFile, 'utf8');
    expect(JSON.parse(checkpointText)).toMatchObject({ count: 20, head: sha256Hex(lines[19]!) });
    expect(verifyJournal(sliceText, { checkpoint: checkpointText })).toMatchObject({ valid: true });

    const whole = await journal.writeExport({}, join(dataDir, 'whole.jsonl'));
    expect(await readFile(whole.file, 'utf8')).toBe(await readFile(file, 'utf8'));
    await expect(journal.writeExport({ fromMs: hour(30) }, join(dataDir, 'none.jsonl'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(access(join(dataDir, 'none.jsonl'))).rejects.toThrow();
  });

  it('refuses an export when the journal changes while it is copied, and leaves no file', async () => {
    const { file, dataDir, reopen } = await journalWith(5);
    const { journal, beforeNextCheck } = reopen();
    await journal.verify();
    await journal.record({ action: 'app.unlocked', reading: reading(6) });
    beforeNextCheck(() => editEntryNow(file, 2));
    const target = join(dataDir, 'audit.jsonl');
    await expect(journal.writeExport({}, target)).rejects.toThrow(`${file} changed while it was being exported; export again`);
    await expect(access(target)).rejects.toThrow();
    await expect(access(join(dataDir, 'audit.checkpoint.json'))).rejects.toThrow();
  });

  it('indexes a journal verified on a worker thread exactly as one verified on main', async () => {
    const { file, reopen } = await journalWith(LARGE);
    const verifySignature = nodeJournalVerifier();
    const inline = await verifyJournalFile(file, undefined, { verifySignature });
    if (typeof inline === 'string') throw new Error(`verification answered ${inline}`);
    // Its entries carry no app proofs, so the worker verified no boot proof to hand over.
    expect(await verifyJournalFileOffThread(file, undefined)).toEqual({ ...inline, bootProofs: [] });
    // The rows say where each line is and hash it as the file does.
    const lines = await fileLines(file);
    const offsets = lines.map((_, seq) => lines.slice(0, seq).reduce((bytes, line) => bytes + Buffer.byteLength(line) + 1, 0));
    expect([...inline.rows.offsets]).toEqual(offsets);
    expect(Buffer.from(inline.rows.hashes).toString('hex')).toBe(lines.map(sha256Hex).join(''));
    expect(inline.rows.end).toBe(inline.prefix?.bytes);

    // Continuing after what verified, too.
    const { journal } = reopen();
    for (let index = 0; index < 60; index++) await journal.record(voteRecord(LARGE + 1 + index));
    const continuedInline = await verifyJournalFile(file, inline.prefix, { verifySignature });
    if (typeof continuedInline === 'string') throw new Error(`verification answered ${continuedInline}`);
    expect(continuedInline).toMatchObject({ continued: true, prefix: { count: LARGE + 61 } });
    expect(continuedInline.rows.offsets[0]).toBe(inline.prefix?.bytes);
    expect(await verifyJournalFileOffThread(file, inline.prefix)).toEqual({ ...continuedInline, bootProofs: [] });
  });

  it('verifies the file a line at a time as the text in one piece, naming the first line that does not verify', async () => {
    const { file } = await journalWith(40, { record: (index) => ({ ...voteRecord(index), profileId: `profile-${index % 3}` }) });
    const verifySignature = nodeJournalVerifier();
    const lines = await fileLines(file);
    const verifyWith = async (text: string) => {
      await writeFile(file, text);
      const verification = await verifyJournalFile(file, undefined, { verifySignature });
      if (typeof verification === 'string') throw new Error(`verification answered ${verification}`);
      return verification;
    };
    const swapped = [...lines];
    [swapped[10], swapped[30]] = [swapped[30]!, swapped[10]!];
    const malformed = editedText(lines.join('\n'), 5).split('\n');
    malformed[35] = '{';
    const cases = {
      intact: `${lines.join('\n')}\n`,
      'torn tail': `${lines.join('\n')}\n${lines[1]!.slice(0, 50)}`,
      'edited late': `${editedText(lines.join('\n'), 33)}\n`,
      // Entry 30 moved before entry 10: only the lines after the gap say it was reordered rather than deleted.
      reordered: `${swapped.join('\n')}\n`,
      deleted: `${lines.filter((_, seq) => seq !== 20).join('\n')}\n`,
      'malformed after an edit': `${malformed.join('\n')}\n`,
    };
    for (const [name, text] of Object.entries(cases)) {
      const { entries, ...whole } = verifyJournal(text, { verifySignature });
      const streamed = await verifyWith(text);
      expect(streamed.verdict, name).toEqual(whole);
      expect(streamed.rows.offsets.length, name).toBe(entries.length);
      expect(streamed.prefix?.count, name).toBe(entries.length);
    }
    expect((await verifyWith(cases.reordered)).verdict.problem).toMatchObject({ kind: 'reordered', seq: 30, line: 11 });
    expect((await verifyWith(cases.deleted)).verdict.problem).toMatchObject({ kind: 'deleted', seq: 21, line: 21 });
    // The first line that does not verify is named, whatever follows it.
    expect((await verifyWith(cases['malformed after an edit'])).verdict.problem).toMatchObject({ kind: 'signature', seq: 5, line: 6 });
    expect((await verifyWith(cases.intact)).rows.profileIds.sort()).toEqual(['profile-0', 'profile-1', 'profile-2']);
  });

  it('reads the file as it checks it: an edit made while the first entries are checked is found further on', async () => {
    const { file } = await journalWith(24, { record: bulkyRecord });
    expect((await readFile(file)).length).toBeGreaterThan(2 * 1024 * 1024);
    const counter = countingVerifier();
    counter.beforeNextCheck(() => editEntryNow(file, 20));
    const verification = await verifyJournalFile(file, undefined, { verifySignature: counter.verifySignature });
    expect(typeof verification !== 'string' && verification.verdict.problem).toMatchObject({ kind: 'signature', seq: 20 });
  });
});
