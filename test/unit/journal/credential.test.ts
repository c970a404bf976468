/**
 * The credential an entry names (which key stamped it: keychain or PKCS#11 token) is checked by the verifier: only a
 * stamped action names one, and its key must be the stamp's. Entries written before the member existed still verify.
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../../src/shared/crypto/encoding';
import { GENESIS_PREV, JOURNAL_STARTED, signEntry, type JournalRecord } from '../../../src/shared/journal/format';
import { verifyJournal } from '../../../src/shared/journal/verify';

const reading = (title: string) => ({ title, summary: title, facts: [], warnings: [], verdict: 'completed' });
const stampKey = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true));
const otherKey = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true));
const fingerprintOf = (publicKey: string) => `sha256:${bytesToHex(sha256(hexToBytes(publicKey, 'public key')))}`;
const onToken = { kind: 'pkcs11' as const, name: 'PKCS#11 token "yk" key "ops-1"', publicKey: stampKey };

async function journalOf(records: JournalRecord[]): Promise<string> {
  const secret = p256.utils.randomSecretKey();
  const lines: string[] = [];
  let prev = GENESIS_PREV;
  const all: JournalRecord[] = [{ action: JOURNAL_STARTED, reading: reading('Journal started') }, ...records];
  for (const [seq, record] of all.entries()) {
    const { line, hash } = await signEntry(
      {
        ...record,
        ...(seq === 0 ? { journalKey: bytesToHex(p256.getPublicKey(secret, false)) } : {}),
        v: 1,
        seq,
        at: new Date(Date.UTC(2026, 10, 29, 6, 0, seq)).toISOString(),
        prev,
      },
      (message) => p256.sign(message, secret, { format: 'compact' }),
    );
    lines.push(line);
    prev = hash;
  }
  return `${lines.join('\n')}\n`;
}

describe('the credential a journal entry names', () => {
  it('verifies a vote stamped on a token beside an entry written before credentials were recorded', async () => {
    const verdict = verifyJournal(
      await journalOf([
        { action: 'vote.approved', apiKeyFingerprint: fingerprintOf(otherKey), reading: reading('An older vote') },
        { action: 'vote.approved', apiKeyFingerprint: fingerprintOf(stampKey), credential: onToken, reading: reading('Vote on a token') },
      ]),
    );
    expect(verdict.problem).toBeUndefined();
    expect(verdict.entries[2]?.credential).toEqual(onToken);
  });

  it('refuses a credential whose key is not the stamp’s', async () => {
    const verdict = verifyJournal(
      await journalOf([
        { action: 'activity.submitted', apiKeyFingerprint: fingerprintOf(otherKey), credential: onToken, reading: reading('Policy') },
      ]),
    );
    expect(verdict.problem).toMatchObject({ kind: 'credential', seq: 1, line: 2 });
    expect(verdict.problem?.message).toBe(
      `entry 1 (line 2): the credential (${onToken.name}) has key ${fingerprintOf(stampKey)}, but the stamp's key is ${fingerprintOf(otherKey)}`,
    );
  });

  it('refuses a credential on an entry of nothing stamped', async () => {
    const verdict = verifyJournal(await journalOf([{ action: 'app.unlocked', credential: onToken, reading: reading('Unlocked') }]));
    expect(verdict.problem).toMatchObject({ kind: 'credential', seq: 1 });
    expect(verdict.problem?.message).toContain('the app.unlocked entry names a stamping credential, but nothing was stamped');
  });
});
