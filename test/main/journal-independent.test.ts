/**
 * A journal written by the app, verified by a verifier written only from docs/formats.md#journal (and #boot-proofs for
 * the service's proofs): @noble/curves, @noble/hashes, canonicalize, cborg and @peculiar/x509, nothing of the app's.
 * If the two disagree, the description is not precise enough (or the app does not follow it).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import * as x509 from '@peculiar/x509';
import canonicalize from 'canonicalize';
import { decode as decodeCbor, encode as encodeCbor } from 'cborg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/main/journal/journal';
import { provenPolicy } from '../support/app-proofs';
import { startTestService, type TestService } from '../support/service';
import { FileSecretStore } from './fixtures/file-secret-store';

let service: TestService;
beforeAll(async () => {
  x509.cryptoProvider.set(globalThis.crypto);
  service = await startTestService();
});
afterAll(() => service.close());

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
  'credential',
  'activityId',
  'activityFingerprint',
  'reading',
  'appProofs',
  'bootProofs',
  'sig',
]);

type Json = Record<string, unknown>;

/**
 * Checks an entry's app proofs as step 8 says, each boot proof as "Boot proofs" says; answers the SHA-256 of each
 * root certificate the proofs chain to.
 */
async function independentProofRoots(entry: Json): Promise<string[]> {
  const appProofs = (entry.appProofs ?? []) as Json[];
  const bootProofs = (entry.bootProofs ?? []) as Json[];
  const roots = new Set<string>();
  for (const proof of appProofs) {
    const key = hexToBytes(String(proof.publicKey));
    const digest = sha256(utf8ToBytes(String(proof.proofPayload)));
    if (!p256.verify(hexToBytes(String(proof.signature)), digest, key.slice(65), { prehash: false, lowS: false, format: 'compact' })) {
      throw new Error('app proof signature');
    }
    if ((JSON.parse(String(proof.proofPayload)) as Json).activityId !== entry.activityId) throw new Error('app proof activity');
    const boot = bootProofs.find((candidate) => candidate.ephemeralPublicKeyHex === proof.publicKey);
    if (boot === undefined) throw new Error('no boot proof');
    roots.add(await independentBootProofRoot(boot));
  }
  if (bootProofs.some((boot) => !appProofs.some((proof) => proof.publicKey === boot.ephemeralPublicKeyHex))) throw new Error('stray boot proof');
  return [...roots];
}

async function independentBootProofRoot(boot: Json): Promise<string> {
  const [protectedHeader, , payload, signature] = decodeCbor(Buffer.from(String(boot.awsAttestationDocB64), 'base64'), { useMaps: true }) as [
    Uint8Array,
    unknown,
    Uint8Array,
    Uint8Array,
  ];
  if ((decodeCbor(protectedHeader, { useMaps: true }) as Map<number, number>).get(1) !== -35) throw new Error('not ES384');
  const document = decodeCbor(payload, { useMaps: true }) as Map<string, unknown>;
  const certificateOf = (der: Uint8Array) => new x509.X509Certificate(Uint8Array.from(der));
  const leaf = certificateOf(document.get('certificate') as Uint8Array);
  const chain = (document.get('cabundle') as Uint8Array[]).map(certificateOf);
  const signed = encodeCbor(['Signature1', protectedHeader, new Uint8Array(0), payload]);
  const leafKey = await leaf.publicKey.export({ name: 'ECDSA', namedCurve: 'P-384' }, ['verify']);
  if (!(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-384' }, leafKey, Uint8Array.from(signature), Uint8Array.from(signed)))) {
    throw new Error('document signature');
  }
  for (const [index, certificate] of [...chain, leaf].entries()) {
    const issuer = chain[Math.max(index - 1, 0)]!;
    if (!(await certificate.verify({ publicKey: issuer.publicKey, signatureOnly: true }))) throw new Error(`certificate ${index} signature`);
  }
  const manifest = Buffer.from(String(boot.qosManifestB64), 'base64');
  if (bytesToHex(document.get('user_data') as Uint8Array) !== bytesToHex(sha256(manifest))) throw new Error('manifest hash');
  if (bytesToHex(document.get('public_key') as Uint8Array) !== String(boot.ephemeralPublicKeyHex).toLowerCase()) throw new Error('attested key');
  return bytesToHex(sha256(new Uint8Array(chain[0]!.rawData)));
}

/** Answers the number of entries and the roots their proofs chain to, or throws naming the first line that fails. */
async function independentVerify(text: string, checkpointText?: string): Promise<{ entries: number; roots: string[] }> {
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
  const roots = new Set<string>();
  for (const [index, line] of lines.entries()) {
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
    try {
      for (const root of await independentProofRoots(entry)) roots.add(root);
    } catch (error) {
      throw fail((error as Error).message);
    }
    prev = hashOf(line);
  }
  if (checkpoint !== undefined) {
    const count = Number(checkpoint.count);
    if (count > lines.length) throw new Error('truncated');
    if (hashOf(lines[count - 1]!) !== checkpoint.head) throw new Error('diverged');
  }
  return { entries: lines.length, roots: [...roots] };
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
    expect(await independentVerify(text, JSON.stringify(checkpoint))).toEqual({ entries: 3, roots: [] });
    await expect(independentVerify(text.replace('1.5 ETH', '15 ETH'))).rejects.toThrow('line 2: signature');
    await expect(independentVerify(text.split('\n').slice(0, 1).join('\n') + '\n', JSON.stringify(checkpoint))).rejects.toThrow('truncated');
  });

  it("checks the service's app proofs and boot proofs as described, and finds the root the app names", async () => {
    const { activity, bootProof } = await provenPolicy(service, 'proven');
    const dataDir = await mkdtemp(join(tmpdir(), 'qk-journal-independent-proofs-'));
    const journal = new Journal({ dataDir, secrets: new FileSecretStore(join(dataDir, 'keys')) });
    const reading = { title: 'Create policy proven', summary: 'allow nothing', facts: [], warnings: [], verdict: 'completed' };
    await journal.record({ action: 'activity.submitted', activityId: activity.id, reading, appProofs: activity.appProofs, bootProofs: [bootProof] });
    expect((await journal.verify()).valid).toBe(true);
    const text = await readFile(journal.file, 'utf8');
    expect(await independentVerify(text)).toEqual({ entries: 2, roots: [service.info.attestationRootFingerprint] });
    const [proven] = (await journal.list({ action: 'activity.submitted' }, 1)).entries;
    expect(journal.proofRoots(proven!).map((root) => root.fingerprint)).toEqual([service.info.attestationRootFingerprint]);

    // A boot proof whose manifest was swapped, signed into the journal by its own key: both verifiers refuse it.
    const swapped = { ...bootProof, qosManifestB64: Buffer.from('{"namespace":"elsewhere"}').toString('base64') };
    await journal.record({ action: 'activity.submitted', activityId: activity.id, reading, appProofs: activity.appProofs, bootProofs: [swapped] });
    expect((await journal.verify()).problem).toMatchObject({ kind: 'app-proof', seq: 2 });
    await expect(independentVerify(await readFile(journal.file, 'utf8'))).rejects.toThrow('line 3: manifest hash');
  });
});
