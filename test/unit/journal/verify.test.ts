import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../../src/shared/crypto/encoding';
import {
  canonicalJson,
  GENESIS_PREV,
  JOURNAL_STARTED,
  signCheckpoint,
  sha256Hex,
  signEntry,
  type JournalEntry,
  type JournalSigner,
} from '../../../src/shared/journal/format';
import { verifyAppended, verifyJournal } from '../../../src/shared/journal/verify';

const reading = (title: string) => ({
  title,
  summary: `${title}, in one line`,
  facts: [{ label: 'Amount', value: '1 ETH' }],
  warnings: [],
  verdict: 'completed',
});

function journalKey() {
  const secret = p256.utils.randomSecretKey();
  const sign: JournalSigner = (message) => p256.sign(message, secret, { format: 'compact' });
  return { publicKey: bytesToHex(p256.getPublicKey(secret, false)), sign };
}

/** A journal of `count` entries (the first one names the key), as lines. */
async function buildJournal(
  count: number,
  key = journalKey(),
): Promise<{ lines: string[]; entries: JournalEntry[]; key: ReturnType<typeof journalKey> }> {
  const lines: string[] = [];
  const entries: JournalEntry[] = [];
  let prev = GENESIS_PREV;
  for (let seq = 0; seq < count; seq++) {
    const { entry, line, hash } = await signEntry(
      {
        v: 1,
        seq,
        at: new Date(Date.UTC(2026, 10, 26, 12, 0, seq)).toISOString(),
        prev,
        ...(seq === 0
          ? { action: JOURNAL_STARTED, journalKey: key.publicKey, reading: reading('Journal started') }
          : { action: 'vote.approved' as const, activityId: `activity-${seq}`, reading: reading(`Vote ${seq}`) }),
      },
      key.sign,
    );
    lines.push(line);
    entries.push(entry);
    prev = hash;
  }
  return { lines, entries, key };
}

const text = (lines: string[]) => `${lines.join('\n')}\n`;

describe('journal verification', () => {
  it('accepts an untouched journal and reports its head', async () => {
    const { lines, key } = await buildJournal(6);
    const verdict = verifyJournal(text(lines));
    expect(verdict.problem).toBeUndefined();
    expect(verdict).toMatchObject({ valid: true, journalKey: key.publicKey, tornTail: false });
    expect(verdict.entries).toHaveLength(6);
  });

  it('names an edited field: the signature of that entry no longer verifies', async () => {
    const { lines, entries } = await buildJournal(6);
    lines[3] = canonicalJson({ ...entries[3], reading: { ...entries[3]!.reading, facts: [{ label: 'Amount', value: '100 ETH' }] } });
    expect(verifyJournal(text(lines)).problem).toMatchObject({ kind: 'signature', seq: 3, line: 4 });
  });

  it('verifies the lines after a verified end as it verifies them within the whole file', async () => {
    const { lines, entries, key } = await buildJournal(8);
    const whole = verifyJournal(text(lines));
    const end = { count: 4, lastSeq: 3, head: sha256Hex(lines[3]!), journalKey: key.publicKey };
    const after = verifyAppended(end, text(lines.slice(4)));
    expect(after).toMatchObject({ valid: true, head: whole.head, journalKey: key.publicKey, tornTail: false });
    expect(after.entries).toEqual(entries.slice(4));

    const tampered = [...lines];
    tampered.splice(5, 1);
    expect(verifyAppended(end, text(tampered.slice(4))).problem).toEqual(verifyJournal(text(tampered)).problem);
    expect(verifyAppended(end, text(tampered.slice(4))).problem).toMatchObject({ kind: 'deleted', seq: 6, line: 6 });
    // An end that is not where these lines continue from: their first entry's prev does not match.
    expect(verifyAppended({ ...end, head: sha256Hex(lines[2]!) }, text(lines.slice(4))).problem).toMatchObject({ kind: 'chain', seq: 4, line: 5 });
  });

  it('names a deleted entry', async () => {
    const { lines } = await buildJournal(6);
    lines.splice(2, 1);
    const { problem } = verifyJournal(text(lines));
    expect(problem).toMatchObject({ kind: 'deleted', seq: 3, line: 3 });
    expect(problem?.message).toContain('entry 2 was deleted');
  });

  it('names an inserted entry, a copy of a signed one', async () => {
    const { lines } = await buildJournal(6);
    lines.splice(4, 0, lines[1]!);
    expect(verifyJournal(text(lines)).problem).toMatchObject({ kind: 'inserted', seq: 1, line: 5 });
  });

  it('names an inserted entry that was never signed by the journal key', async () => {
    const { lines, entries } = await buildJournal(6);
    const forged = await signEntry({ ...entries[3]!, reading: reading('Forged') }, journalKey().sign);
    lines.splice(3, 0, forged.line);
    expect(verifyJournal(text(lines)).problem).toMatchObject({ kind: 'signature', seq: 3, line: 4 });
  });

  it('names reordered entries', async () => {
    const { lines } = await buildJournal(6);
    [lines[2], lines[3]] = [lines[3]!, lines[2]!];
    expect(verifyJournal(text(lines)).problem).toMatchObject({ kind: 'reordered', seq: 3, line: 3 });
  });

  it('names a truncation after a checkpoint', async () => {
    const { lines, key } = await buildJournal(6);
    const checkpoint = await checkpointOf(lines, key);
    const { problem } = verifyJournal(text(lines.slice(0, 4)), { checkpoint });
    expect(problem).toMatchObject({ kind: 'truncated' });
    expect(problem?.message).toContain('entries 4-5 were cut off');
  });

  it('accepts a later journal that extends an older checkpoint, and refuses one that diverged from it', async () => {
    const { lines, entries, key } = await buildJournal(8);
    const older = await checkpointOf(lines.slice(0, 5), key);
    expect(verifyJournal(text(lines), { checkpoint: older }).valid).toBe(true);
    // The same key re-signs a different history from entry 4 on: it verifies alone, but not against the checkpoint.
    const rewritten = await signEntry({ ...withoutSig(entries[4]!), reading: reading('Rewritten') }, key.sign);
    const forked = [...lines.slice(0, 4), rewritten.line];
    expect(verifyJournal(text(forked)).valid).toBe(true);
    expect(verifyJournal(text(forked), { checkpoint: older }).problem).toMatchObject({ kind: 'diverged', seq: 4, line: 5 });
  });

  it('names a replaced public key in entry 0', async () => {
    const { lines, entries } = await buildJournal(4);
    lines[0] = canonicalJson({ ...entries[0], journalKey: journalKey().publicKey });
    expect(verifyJournal(text(lines)).problem).toMatchObject({ kind: 'signature', seq: 0, line: 1 });
  });

  it('names a journal re-signed throughout with another key, against a checkpoint of the original', async () => {
    const original = await buildJournal(4);
    const checkpoint = await checkpointOf(original.lines, original.key);
    const resigned = await buildJournal(4);
    expect(verifyJournal(text(resigned.lines)).valid).toBe(true);
    const { problem } = verifyJournal(text(resigned.lines), { checkpoint });
    expect(problem).toMatchObject({ kind: 'key-replaced', seq: 0, line: 1 });
  });

  it('names one entry re-signed with another key', async () => {
    const { lines, entries } = await buildJournal(5);
    lines[2] = (await signEntry({ ...withoutSig(entries[2]!), reading: reading('Edited') }, journalKey().sign)).line;
    expect(verifyJournal(text(lines)).problem).toMatchObject({ kind: 'signature', seq: 2, line: 3 });
  });

  it('names an entry rewritten in another JSON layout', async () => {
    const { lines, entries } = await buildJournal(3);
    lines[1] = JSON.stringify(entries[1], null, 0).replace('{', '{ ');
    expect(verifyJournal(text(lines)).problem).toMatchObject({ kind: 'not-canonical', line: 2 });
  });

  it('reports a torn last line and verifies the entries before it', async () => {
    const { lines } = await buildJournal(4);
    const verdict = verifyJournal(`${text(lines)}${lines[1]!.slice(0, 40)}`);
    expect(verdict).toMatchObject({ valid: true, tornTail: true });
    expect(verdict.entries).toHaveLength(4);
  });

  it('verifies a slice only with the checkpoint of its last entry', async () => {
    const { lines, key } = await buildJournal(8);
    const slice = lines.slice(3, 6);
    const checkpoint = await checkpointOf(lines.slice(0, 6), key);
    expect(verifyJournal(text(slice)).problem).toMatchObject({ kind: 'slice-without-checkpoint', seq: 3 });
    expect(verifyJournal(text(slice), { checkpoint }).valid).toBe(true);
    expect(verifyJournal(text(slice.slice(0, 2)), { checkpoint }).problem).toMatchObject({ kind: 'truncated' });
  });

  it('refuses a checkpoint whose signature does not verify', async () => {
    const { lines, key } = await buildJournal(3);
    const checkpoint = JSON.parse(await checkpointOf(lines, key)) as Record<string, unknown>;
    const { problem } = verifyJournal(text(lines), { checkpoint: JSON.stringify({ ...checkpoint, count: 2 }) });
    expect(problem).toMatchObject({ kind: 'checkpoint-invalid' });
  });
});

function withoutSig({ sig: _sig, ...entry }: JournalEntry) {
  return entry;
}

async function checkpointOf(lines: string[], key: ReturnType<typeof journalKey>): Promise<string> {
  return canonicalJson(
    await signCheckpoint(
      { count: lines.length, head: sha256Hex(lines.at(-1)!), at: '2026-11-26T13:00:00.000Z', journalKey: key.publicKey },
      key.sign,
    ),
  );
}
