/**
 * The journal end to end through `dispatch`, over the real composition root, the OS keychain (run under
 * test/support/with-secret-service.sh) and the Sandbox: what a vote, an export and its reveal, a policy change and an
 * offline stamp leave in it, its channels, and the CLI verifying what the app exported.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { SANDBOX_RESET_PHRASE } from '../../src/shared/ipc/contract';
import { JOURNAL_EXPORTS_DIR } from '../../src/main/services';
import { AWS_NITRO_ROOT } from '../../src/shared/journal/attestations';
import { runCli } from '../cli/helpers';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';

let bed: DispatchBed;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-journal-' });
  await call('sandbox.start', {});
});

afterAll(() => bed.close());

describe('the journal', () => {
  it('records votes, exports and reveals, policy changes and offline stamps with their readings, and never a secret', async () => {
    const policy = await call('policies.create', { name: 'treasury limit', effect: 'EFFECT_ALLOW', condition: 'false' });
    expect(policy.state).toBe('completed');

    // A second root-quorum member: the root's next change waits for Bea's vote, cast here from her profile.
    await call('keys.generateApiKey', { name: 'bea' });
    const made = await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
    const beaId = made.state === 'completed' ? made.result.userId : '';
    const { users } = await call('organization.lookup', {});
    const root = users.find((user) => user.userName === 'Root user')!.userId;
    await call('organization.updateRootQuorum', { userIds: [root, beaId], threshold: 2 });
    const rename = await call('policies.update', {
      policyId: policy.state === 'completed' ? policy.result.policyId : '',
      changes: { name: 'treasury cap' },
    });
    expect(rename.state).toBe('consensus-needed');
    const sandboxProfile = (await bed.services.profiles.getActive())!;
    const bea = await bed.addSandboxProfile('Bea', 'bea');
    await bed.services.profiles.setActive(bea.id);
    await call('approvals.stampToFile', { fingerprint: rename.activity.fingerprint, file: 'bea-vote.json' });
    await call('approvals.approve', { fingerprint: rename.activity.fingerprint });
    // Back to the root alone, so that the export below needs no second vote.
    const quorum = await call('organization.updateRootQuorum', { userIds: [root], threshold: 1 });
    await bed.services.profiles.setActive(sandboxProfile.id);
    await call('approvals.approve', { fingerprint: quorum.activity.fingerprint });

    await call('keys.generateEncryptionKey', { name: 'offline desk' });
    const wallet = await call('wallets.create', {
      name: 'treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    });
    const walletId = wallet.state === 'completed' ? wallet.result.walletId : '';
    const revealed = await call('exports.reveal', {
      subject: { kind: 'wallet', walletId },
      target: { kind: 'encryption-key', name: 'offline desk' },
    });
    if (revealed.state !== 'revealed' || revealed.secret.kind !== 'mnemonic') throw new Error('the export was not revealed');
    await call('app.setSettings', { captureProtection: false });

    const { entries, verification } = await call('journal.list', {});
    expect(verification).toMatchObject({ valid: true, tornTail: false });
    expect(verification.journalKey).toMatch(/^04[0-9a-f]{128}$/);
    const vote = entries.find((entry) => entry.action === 'vote.approved' && entry.activityId === rename.activity.id);
    expect(vote).toMatchObject({ profileName: 'Bea', userId: beaId, activityFingerprint: rename.activity.fingerprint });
    expect(vote?.apiKeyFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The reading as Bea confirmed it on main's surface: the change before → after, and what her vote completed.
    expect(vote?.reading.facts).toContainEqual({ label: 'Name', value: 'treasury limit → treasury cap' });
    expect(vote?.reading.facts).toContainEqual({ label: 'Outcome', value: 'completed' });
    expect(entries.find((entry) => entry.action === 'vote.stamped-offline')).toMatchObject({
      profileName: 'Bea',
      activityFingerprint: rename.activity.fingerprint,
    });
    expect(entries.find((entry) => entry.action === 'export.revealed')).toMatchObject({
      activityId: revealed.activityId,
      reading: { verdict: 'revealed' },
    });
    expect(entries.find((entry) => entry.action === 'activity.submitted' && entry.activityId === revealed.activityId)?.reading.title).toMatch(
      /export/i,
    );
    expect(entries.find((entry) => entry.action === 'settings.widened')?.reading.facts).toContainEqual({
      label: 'Capture protection',
      value: 'on → off',
    });

    // The service's app proofs are kept with each entry, under the Sandbox's own root, which its profile pins.
    const { attestationRoot } = await bed.services.profiles.get(sandboxProfile.id);
    expect(attestationRoot).toMatch(/^[0-9a-f]{64}$/);
    expect(verification.pinnedRoots.map((pin) => pin.fingerprint)).toEqual([AWS_NITRO_ROOT.fingerprint, attestationRoot]);
    const sandboxRoot = {
      fingerprint: attestationRoot,
      subject: expect.stringContaining('QuorumKey Sandbox'),
      pinnedAs: "Sandbox, this desktop's own service",
    };
    const created = entries.find((entry) => entry.action === 'activity.submitted' && entry.activityId === policy.activity.id);
    expect(created?.appProofCount).toBeGreaterThan(0);
    expect(created?.vouchedBy).toEqual([sandboxRoot]);
    expect(vote?.vouchedBy).toEqual([sandboxRoot]);
    expect(entries.find((entry) => entry.action === 'settings.widened')?.vouchedBy).toEqual([]);

    const votesOnly = await call('journal.list', { action: 'vote' });
    expect(new Set(votesOnly.entries.map((entry) => entry.action))).toEqual(new Set(['vote.approved', 'vote.stamped-offline']));
    expect((await call('journal.list', { profileId: bea.id })).entries.every((entry) => entry.profileId === bea.id)).toBe(true);
    expect((await call('journal.list', { from: '2999-01-01T00:00:00Z' })).entries).toEqual([]);

    const journalText = await readFile(join(bed.dataDir, 'journal.jsonl'), 'utf8');
    expect(journalText).not.toContain(revealed.secret.mnemonic);
    expect(journalText).not.toContain(revealed.secret.mnemonic.split(' ').slice(0, 4).join(' '));
  });

  it('exports with its checkpoint, and the CLI verifies it offline, names a tampered entry, and refuses bad usage', async () => {
    const exported = await call('journal.export', { file: 'audit.jsonl' });
    expect(exported.file).toBe(join(bed.dataDir, JOURNAL_EXPORTS_DIR, 'audit.jsonl'));
    const checkpoint = await call('journal.checkpoint', { file: 'head.json' });
    expect(checkpoint.count).toBe(exported.count);
    const otherDir = join(bed.dataDir, 'elsewhere');

    // The Sandbox's root is not one an auditor pins unless told: its proofs verify, and are named as not pinned.
    const { attestationRoot } = (await bed.services.profiles.list()).find((profile) => profile.kind === 'sandbox')!;
    const unpinned = await runCli(otherDir, ['journal', 'verify', exported.file, '--checkpoint', checkpoint.file]);
    expect(unpinned.code).toBe(0);
    expect(unpinned.stderr).toContain(`chain to root ${attestationRoot} (`);
    expect(unpinned.stderr).toContain(`which is not pinned; pass --attestation-root ${attestationRoot} if you trust it`);
    expect(JSON.parse(unpinned.stdout)).toMatchObject({
      valid: true,
      entries: exported.count,
      head: checkpoint.head,
      attestationRoots: [{ fingerprint: attestationRoot, pinnedAs: null }],
    });
    const valid = await runCli(otherDir, [
      'journal',
      'verify',
      exported.file,
      '--checkpoint',
      checkpoint.file,
      '--attestation-root',
      attestationRoot!,
    ]);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({
      attestationRoots: [{ fingerprint: attestationRoot, pinnedAs: 'given with --attestation-root' }],
    });
    expect((await runCli(otherDir, ['journal', 'verify', exported.file, '--attestation-root', 'abc'])).code).toBe(2);

    const lines = (await readFile(exported.file, 'utf8')).split('\n');
    lines[3] = lines[3]!.replace('"title":"', '"title":"Not ');
    const tamperedFile = join(bed.dataDir, 'tampered.jsonl');
    await writeFile(tamperedFile, lines.join('\n'));
    const tampered = await runCli(otherDir, ['journal', 'verify', tamperedFile]);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain('entry 3 (line 4)');

    expect((await runCli(otherDir, ['journal', 'verify'])).code).toBe(2);
    expect((await runCli(otherDir, ['journal', 'export', '--from', 'yesterday', '--output', join(otherDir, 'x.jsonl')])).code).toBe(2);
  }, 60_000);

  it('exports a date range as a slice that verifies only with the checkpoint exported beside it', async () => {
    const { entries } = await call('journal.list', {});
    // From the third entry on: a slice that does not start at entry 0.
    const from = [...entries].reverse()[2]!.at;
    const slice = await call('journal.export', { from, file: 'range.jsonl' });
    const lines = (await readFile(slice.file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(slice.count);
    expect(lines.every((line) => (JSON.parse(line) as { at: string }).at >= from)).toBe(true);
    expect((JSON.parse(lines[0]!) as { seq: number }).seq).toBeGreaterThan(0);
    const otherDir = join(bed.dataDir, 'elsewhere');

    const withCheckpoint = await runCli(otherDir, ['journal', 'verify', slice.file, '--checkpoint', slice.checkpointFile]);
    expect(withCheckpoint.code).toBe(0);
    expect(JSON.parse(withCheckpoint.stdout)).toMatchObject({ valid: true, entries: slice.count });
    const alone = await runCli(otherDir, ['journal', 'verify', slice.file]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('it is an exported slice; verify it with the checkpoint exported beside it');
  }, 120_000);

  it('survives a Sandbox reset and carries on the same chain', async () => {
    const before = await call('journal.verify', {});
    await call('sandbox.reset', { confirmation: SANDBOX_RESET_PHRASE });
    await call('policies.create', { name: 'after reset', effect: 'EFFECT_ALLOW', condition: 'false' });
    const after = await call('journal.verify', {});
    expect(after).toMatchObject({ valid: true, journalKey: before.journalKey, pinnedRoots: before.pinnedRoots });
    expect(after.count).toBe(before.count + 1);
    // The reset Sandbox keeps its service secret, so its proofs still chain to the root pinned before.
    const [created] = (await call('journal.list', { action: 'activity' })).entries;
    expect(created?.vouchedBy.map((root) => root.pinnedAs)).toEqual(["Sandbox, this desktop's own service"]);
  });
});
