/**
 * The service's proofs in the journal (docs/formats.md#journal, step 8 and "Who vouches"): an entry keeps the app
 * proofs of its activity and the boot proof of the key that signed them, and verification checks both, names the
 * root they chain to, and names the entry when any of it was swapped, dropped or edited. The proofs are real ones, from
 * a running local service; the journal key is a test key, so each tampered entry is re-signed and only the proof
 * check can catch it.
 */
import { p256 } from '@noble/curves/nist.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityRecord, recordPostedActivity, type PostedAnswer } from '../../src/main/journal/activity-entry';
import type { AppProof } from '../../src/shared/crypto/app-proof';
import type { BootProof } from '../../src/shared/crypto/attestation';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import { BootProofCheck, rootsSummary } from '../../src/shared/journal/attestations';
import { GENESIS_PREV, JOURNAL_STARTED, signEntry, type JournalRecord, type JournalSigner } from '../../src/shared/journal/format';
import { verifyJournal } from '../../src/shared/journal/verify';
import { provenPolicy } from '../support/app-proofs';
import { startTestService, type TestService } from '../support/service';

let service: TestService;
let other: TestService;

beforeAll(async () => {
  [service, other] = await Promise.all([startTestService(), startTestService()]);
});
afterAll(async () => {
  await Promise.all([service.close(), other.close()]);
});

function journalKey() {
  const secret = p256.utils.randomSecretKey();
  const sign: JournalSigner = (message) => p256.sign(message, secret, { format: 'compact' });
  return { publicKey: bytesToHex(p256.getPublicKey(secret, false)), sign };
}

/** A journal of entry 0 and one entry per record, signed with a test key: only the proof check can fault them. */
async function journalOf(records: JournalRecord[]): Promise<string> {
  const key = journalKey();
  const lines: string[] = [];
  let prev = GENESIS_PREV;
  const all: (JournalRecord & { journalKey?: string })[] = [
    { action: JOURNAL_STARTED, journalKey: key.publicKey, reading: reading('Journal started') },
    ...records,
  ];
  for (const [seq, record] of all.entries()) {
    const { line, hash } = await signEntry({ ...record, v: 1, seq, at: new Date(Date.UTC(2026, 10, 27, 9, 0, seq)).toISOString(), prev }, key.sign);
    lines.push(line);
    prev = hash;
  }
  return `${lines.join('\n')}\n`;
}

function reading(title: string) {
  return { title, summary: title, facts: [], warnings: [], verdict: 'completed' };
}

function proven(activityId: string, appProofs: AppProof[], bootProofs: BootProof[]): JournalRecord {
  return { action: 'activity.submitted', activityId, reading: reading('Create policy'), appProofs, bootProofs };
}

describe('app proofs and boot proofs in the journal', () => {
  it('verifies an entry whose proofs chain to the service root, and names that root as pinned only when it is', async () => {
    const { activity, appProofs, bootProof } = await provenPolicy(service, 'kept');
    const text = await journalOf([proven(activity.id, appProofs, [bootProof])]);
    const bootProofs = new BootProofCheck();
    const verdict = verifyJournal(text, { bootProofs });
    expect(verdict.problem).toBeUndefined();
    const root = service.info.attestationRootFingerprint;
    expect(rootsSummary(verdict.entries, bootProofs, [])).toEqual([
      { fingerprint: root, subject: expect.stringContaining('QuorumKey Sandbox'), pinnedAs: undefined, entries: 1 },
    ]);
    expect(rootsSummary(verdict.entries, bootProofs, [{ fingerprint: root, name: 'our Sandbox' }])[0]?.pinnedAs).toBe('our Sandbox');
    // Another service (another secret) has another root: pinning one says nothing of the other.
    expect(other.info.attestationRootFingerprint).not.toBe(root);
  });

  it('remembers the boot proofs it verified, and another check adopts them instead of verifying them again', async () => {
    const { bootProof } = await provenPolicy(service, 'remembered');
    const worker = new BootProofCheck();
    const attested = worker.verify(bootProof);
    expect(worker.verify({ ...bootProof })).toBe(attested);
    const main = new BootProofCheck();
    main.adopt(worker.remembered());
    expect(main.verify({ ...bootProof })).toBe(attested);
    expect(new BootProofCheck().verify(bootProof)).not.toBe(attested);
  });

  it('names the entry whose proofs lost their boot proof, gained a stray one, or came from another activity', async () => {
    const first = await provenPolicy(service, 'first');
    const second = await provenPolicy(service, 'second');
    const cases: [JournalRecord, string][] = [
      [proven(first.activity.id, first.appProofs, []), 'app proof 1: the entry holds no boot proof for its ephemeral key'],
      [
        proven(first.activity.id, first.appProofs, [first.bootProof, (await provenPolicy(other, 'other')).bootProof]),
        'boot proof 2 vouches for no app proof',
      ],
      [
        proven(first.activity.id, second.appProofs, [second.bootProof]),
        `app proof 1 is for activity ${second.activity.id}, not ${first.activity.id}`,
      ],
    ];
    for (const [record, message] of cases) {
      const verdict = verifyJournal(await journalOf([record]));
      expect(verdict.problem).toMatchObject({ kind: 'app-proof', line: 2, seq: 1 });
      expect(verdict.problem?.message).toContain(`entry 1 (line 2): ${message}`);
    }
  });

  it('names the entry whose boot proof was edited or taken from another service', async () => {
    const { activity, appProofs, bootProof } = await provenPolicy(service, 'edited');
    const foreign = (await provenPolicy(other, 'foreign')).bootProof;
    const edits: BootProof[] = [
      // The manifest no longer hashes to the attested user_data.
      { ...bootProof, qosManifestB64: Buffer.from('{"namespace":"elsewhere"}').toString('base64') },
      // Another service's attestation, relabelled with this service's key: it attests another key.
      { ...foreign, ephemeralPublicKeyHex: bootProof.ephemeralPublicKeyHex },
      { ...bootProof, awsAttestationDocB64: 'not an attestation' },
    ];
    for (const edited of edits) {
      const verdict = verifyJournal(await journalOf([proven(activity.id, appProofs, [edited])]));
      expect(verdict.problem).toMatchObject({ kind: 'app-proof', seq: 1 });
      expect(verdict.problem?.message).toContain('entry 1 (line 2): app proof 1: its boot proof does not verify: ');
    }
  });

  it('records an activity with its proofs and their boot proof, or with neither when the boot proof cannot be had', async () => {
    const { answer, activity } = await provenPolicy(service, 'recorded');
    const posted: PostedAnswer = { path: '/public/v1/submit/create_policy', stampHeader: '', stampedHere: true, answer };
    const profile = { id: 'profile-1', name: 'Sandbox', apiKeyName: 'root' };
    const records: JournalRecord[] = [];
    const journal = { record: async (record: JournalRecord) => void records.push(record) };
    const client = (bootProofs: 'answered' | 'refused') => ({
      query: (async (name: string, request: Record<string, unknown>) => {
        if (name === 'get_boot_proof' && bootProofs === 'refused') throw new Error('the service is unreachable');
        return (await service.query(name, request)).body;
      }) as never,
    });

    await recordPostedActivity(journal as never, profile, posted, client('answered'));
    expect(records[0]?.appProofs).toEqual(activity.appProofs);
    expect(records[0]?.bootProofs).toHaveLength(1);
    expect(verifyJournal(await journalOf([records[0]!])).valid).toBe(true);

    await recordPostedActivity(journal as never, profile, posted, client('refused'));
    expect(records[1]).not.toHaveProperty('appProofs');
    expect(records[1]).not.toHaveProperty('bootProofs');
    expect(records[1]).toEqual(activityRecord(profile, posted, (answer as { activity: never }).activity));
  });
});
