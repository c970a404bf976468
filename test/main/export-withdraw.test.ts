/**
 * Withdrawing an export that waits for votes, through `dispatch` over the real composition root, the OS keychain (run
 * under test/support/with-secret-service.sh) and the Sandbox, with main's and the Sandbox's clock moved together: the
 * requester whose request still counts as their approval deletes the one-time key on main's own confirmation and the
 * activity stays open; once their approval expired and another's opened a new window, they reject it. A withdrawal
 * declined on main's surface changes nothing, and one of an unknown or no longer waiting export is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_WINDOW_MS } from '../../src/shared/approvals/voting';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import type { AppEvent } from '../../src/shared/ipc/events';
import { ApiClient } from '../../src/main/client/api-client';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_ACCOUNT } from '../support/valid-inputs';

let bed: DispatchBed;
let offsetMs = 0;
const now = () => Date.now() + offsetMs;
/** The second root quorum member, voting from her own client (not through the requester's window). */
let bea: ApiClient;
let walletId: string;
const told: AppEvent[] = [];

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

/** The root user, alone on this desktop's Sandbox profile, asks for the wallet sealed to a one-time key: it waits for Bea. */
async function askForExport(): Promise<{ id: string; fingerprint: string }> {
  const waiting = await call('exports.reveal', { subject: { kind: 'wallet', walletId }, target: { kind: 'ephemeral' } });
  if (waiting.state !== 'consensus-needed') throw new Error(`the export is ${waiting.state}`);
  return waiting.activity;
}

async function statusOf(activityId: string): Promise<string> {
  return (await bea.query('get_activity', { activityId })).activity.status;
}

async function heldKeys(): Promise<string[]> {
  return (await bed.services.keychain.listOneTimeKeys()).map((key) => key.activityId);
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-export-withdraw-', now });
  await call('sandbox.start', {});
  bed.services.events.subscribe((event) => void told.push(event));
  const wallet = await call('wallets.create', { name: 'Treasury', accounts: [ETHEREUM_ACCOUNT] });
  if (wallet.state !== 'completed') throw new Error(`wallets.create is ${wallet.state}`);
  walletId = wallet.result.walletId;
  await call('keys.generateApiKey', { name: 'bea' });
  const made = await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
  if (made.state !== 'completed') throw new Error(`users.create is ${made.state}`);
  const { userId: rootUserId } = await call('approvals.whoami', {});
  await call('organization.updateRootQuorum', { userIds: [rootUserId, made.result.userId], threshold: 2 });
  bea = new ApiClient({ profile: await bed.addSandboxProfile('Bea', 'bea'), stamper: bed.services.stamper, now });
});

afterAll(() => bed.close());

describe('exports.withdraw', () => {
  it('deletes the key on main’s confirmation while the requester’s own approval counts; the activity stays open', async () => {
    const asked = await askForExport();
    expect(await heldKeys()).toEqual([asked.id]);

    bed.answerConfirmations(false);
    expect(await bed.dispatch('exports.withdraw', { activityId: asked.id })).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    const shown = bed.confirmations.at(-1)!;
    expect(shown.title).toBe('Withdraw the export of wallet Treasury?');
    expect(shown.message).toBe(
      'Delete the one-time key this desktop holds for the export of wallet Treasury? The activity stays open on the service, and a bundle it yields can never be opened.',
    );
    expect(shown.detail).toContain(`Activity: ${asked.id}`);
    expect(shown.detail).toMatch(/Not rejected because: your approval \(your request was one\) counts until its approval window closes \(\d{4}-/);
    expect(shown.reading).toBeUndefined();
    // Declined: nothing deleted, nothing sent.
    expect(await heldKeys()).toEqual([asked.id]);
    expect((await call('exports.requests', {})).map((request) => request.activityId)).toEqual([asked.id]);

    bed.answerConfirmations(true);
    const withdrawn = await call('exports.withdraw', { activityId: asked.id });
    expect(withdrawn).toEqual({
      activityId: asked.id,
      rejected: false,
      summary:
        'The one-time key for the export of wallet Treasury was deleted; the activity stays open on the service, and a bundle it yields can never be opened.',
    });
    expect(await heldKeys()).toEqual([]);
    expect(await call('exports.requests', {})).toEqual([]);
    expect(await statusOf(asked.id)).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(told.filter((event) => event.type === 'export')).toEqual([
      { type: 'export', change: 'withdrawn', organizationId: expect.any(String), activityId: asked.id },
    ]);
    const { entries } = await call('journal.list', { action: 'export.withdrawn' });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      activityId: asked.id,
      activityFingerprint: asked.fingerprint,
      profileName: 'Sandbox',
      reading: { title: 'Export request withdrawn', summary: withdrawn.summary, verdict: 'one-time key deleted; the activity stays open' },
    });

    // Bea can still approve it, and the wallet is exported, but this desktop can never open the bundle.
    expect((await bea.submit('approve_activity', { fingerprint: asked.fingerprint })).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(
      await bed.dispatch('exports.reveal', { subject: { kind: 'completed-export', activityId: asked.id }, target: { kind: 'ephemeral' } }),
    ).toMatchObject({
      ok: false,
      error: { code: 'KEY_NOT_FOUND' },
    });
  });

  it('rejects it with the profile’s key once the requester may vote again, after their approval expired', async () => {
    const asked = await askForExport();
    // A day later Bea approves, opening a new approval window in which the requester's approval no longer counts.
    offsetMs += APPROVAL_WINDOW_MS + 60 * 60_000;
    bed.services.sandbox.syncClock();
    expect((await bea.submit('approve_activity', { fingerprint: asked.fingerprint })).activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect((await call('exports.requests', {})).map((request) => request.activityId)).toEqual([asked.id]);

    // The rejection is a vote: main's confirmation of it reads the export and names the held key it deletes.
    bed.answerConfirmations(false);
    expect(await bed.dispatch('exports.withdraw', { activityId: asked.id })).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    const shown = bed.confirmations.at(-1)!;
    expect(shown.reading).toMatchObject({ action: 'reject', activityType: 'ACTIVITY_TYPE_EXPORT_WALLET', fingerprint: asked.fingerprint });
    expect(shown.message).toContain('Treasury to the one-time key this desktop holds for it');
    expect(shown.detail).toContain('Sealed to: the one-time key this desktop holds for it');
    expect(shown.reading?.warnings).toContain(
      'This desktop asked for this export and holds the one-time key it is sealed to: rejecting it deletes that key, so the bundle can never be opened.',
    );
    expect(await heldKeys()).toEqual([asked.id]);
    expect(await statusOf(asked.id)).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');

    bed.answerConfirmations(true);
    const before = told.length;
    const withdrawn = await call('exports.withdraw', { activityId: asked.id });
    expect(withdrawn).toEqual({
      activityId: asked.id,
      rejected: true,
      summary: 'The export of wallet Treasury was rejected, and the one-time key held for it deleted: its bundle can never be opened.',
    });
    expect(await statusOf(asked.id)).toBe('ACTIVITY_STATUS_REJECTED');
    expect(await heldKeys()).toEqual([]);
    expect(await call('exports.requests', {})).toEqual([]);
    // Told once, as withdrawn: the rejection it made is not reported as an end.
    await expect
      .poll(() => told.slice(before).filter((event) => event.type === 'export'))
      .toEqual([{ type: 'export', change: 'withdrawn', organizationId: expect.any(String), activityId: asked.id }]);
    // Journaled as the vote it is, with the reading confirmed; no separate withdrawal entry.
    const { entries } = await call('journal.list', { action: 'vote' });
    expect(entries.find((entry) => entry.activityId === asked.id)).toMatchObject({
      action: 'vote.rejected',
      reading: { warnings: expect.arrayContaining([expect.stringContaining('rejecting it deletes that key')]) },
    });
    expect((await call('journal.list', { action: 'export.withdrawn' })).entries.map((entry) => entry.activityId)).not.toContain(asked.id);
  });

  it('refuses an unknown activity, and one that no longer waits, with what to do', async () => {
    expect(await bed.dispatch('exports.withdraw', { activityId: 'no-such-export' })).toMatchObject({
      ok: false,
      error: {
        code: 'NOT_FOUND',
        message:
          'profile "Sandbox" asked for no export from this desktop under activity "no-such-export"; Wallets → Exports you asked for lists those you can withdraw',
      },
    });

    // Rejected by Bea before the requester withdrew it: it ended, and its key went with it.
    const asked = await askForExport();
    await bea.submit('reject_activity', { fingerprint: asked.fingerprint });
    const before = bed.confirmations.length;
    expect(await bed.dispatch('exports.withdraw', { activityId: asked.id })).toMatchObject({
      ok: false,
      error: {
        code: 'FAILED_PRECONDITION',
        message: 'the export of wallet Treasury already ended (rejected) and is no longer listed; there is nothing to withdraw',
      },
    });
    expect(bed.confirmations.length).toBe(before);
    expect(await heldKeys()).toEqual([]);
  });
});
