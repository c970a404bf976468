/**
 * A journal written by the app, verified by a verifier written only from docs/formats.md#journal: @noble/curves,
 * @noble/hashes and canonicalize, nothing of the app's. If the two disagree, the description is not precise enough
 * (or the app does not follow it).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/main/journal/journal';
import { FileSecretStore } from './fixtures/journal-appender';

const MEMBERS = new Set([
  'v',
  'seq',
  'at',
  'prev',
  'action',
  'journalKey',
  'profileId',
  'profileName',
  'organizationId',
  'userId',
  'apiKeyFingerprint',
  'activityId',
  'activityFingerprint',
  'reading',
  'appProofs',
  'sig',
]);

/** Answers the number of entries, or throws naming the first line that fails. */
function independentVerify(text: string, checkpointText?: string): number {
  const hashOf = (line: string) => bytesToHex(sha256(utf8ToBytes(line)));
  const signatureOk = (object: Record<string, unknown>, key: string) => {
    const { sig, ...unsigned } = object;
    return p256.verify(hexToBytes(String(sig)), utf8ToBytes(canonicalize(unsigned)!), hexToBytes(key), { lowS: false, format: 'compact' });
  };
  const checkpoint = checkpointText === undefined ? undefined : (JSON.parse(checkpointText) as Record<string, unknown>);
  if (checkpoint !== undefined && !signatureOk(checkpoint, String(checkpoint.journalKey))) throw new Error('checkpoint signature');
  const lines = text.slice(0, text.lastIndexOf('\n')).split('\n');
  let key = '';
  let prev = '0'.repeat(64);
  lines.forEach((line, index) => {
    const entry = JSON.parse(line) as Record<string, unknown>;
    const fail = (what: string) => new Error(`line ${index + 1}: ${what}`);
    if (canonicalize(entry) !== line) throw fail('not canonical');
    if (Object.keys(entry).some((member) => !MEMBERS.has(member)) || entry.v !== 1) throw fail('unknown member or version');
    if (entry.seq !== index) throw fail('sequence');
    if (index === 0) {
      if (entry.action !== 'journal.started' || typeof entry.journalKey !== 'string') throw fail('entry 0');
      key = entry.journalKey;
      if (checkpoint !== undefined && checkpoint.journalKey !== key) throw fail('key replaced');
    } else if ('journalKey' in entry) throw fail('second key');
    if (entry.prev !== prev) throw fail('chain');
    if (!signatureOk(entry, key)) throw fail('signature');
    prev = hashOf(line);
  });
  if (checkpoint !== undefined) {
    const count = Number(checkpoint.count);
    if (count > lines.length) throw new Error('truncated');
    if (hashOf(lines[count - 1]!) !== checkpoint.head) throw new Error('diverged');
  }
  return lines.length;
}

describe('the journal as docs/formats.md describes it', () => {
  it('verifies with a verifier written from the description alone, which also catches an edit', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'qk-journal-independent-'));
    const journal = new Journal({ dataDir, secrets: new FileSecretStore(join(dataDir, 'keys')) });
    await journal.record({
      action: 'vote.approved',
      profileId: 'p-1',
      profileName: 'Treasury desk',
      organizationId: 'org-1',
      userId: 'user-1',
      apiKeyFingerprint: `sha256:${'ab'.repeat(32)}`,
      activityId: 'activity-1',
      activityFingerprint: `sha256:${'cd'.repeat(32)}`,
      // Characters that canonical JSON must escape or must not: quotes, controls, non-ASCII, an astral symbol.
      reading: {
        title: 'Send 1.5 ETH',
        summary: 'to "Ops" — 0xabc\n\u0007 ✓ 𝄞',
        facts: [{ label: 'Value', value: '1.5 ETH' }],
        warnings: ['New recipient'],
        verdict: 'completed',
      },
    });
    const checkpoint = await journal.checkpoint();
    await journal.record({
      action: 'app.unlocked',
      reading: { title: 'Unlock passed', summary: 'Unlock with passphrase', facts: [], warnings: [], verdict: 'unlocked' },
    });
    const text = await readFile(journal.file, 'utf8');
    expect(independentVerify(text, JSON.stringify(checkpoint))).toBe(3);
    expect(() => independentVerify(text.replace('1.5 ETH', '15 ETH'))).toThrow('line 2: signature');
    expect(() => independentVerify(text.split('\n').slice(0, 1).join('\n') + '\n', JSON.stringify(checkpoint))).toThrow('truncated');
  });
});
