/**
 * Issue 36, item 3: service text forges lines of main's confirmation. A user's name is the service's text; one that
 * carries line breaks, separators and bidi controls must show in main's dialog as escapes inside its own line, never
 * as lines of main's own (a fake "Policy verdict" above the real one). Called through the IPC dispatcher, as a page
 * would: the root user approves another member's proposal to remove the only key of Carol, whose name is the forgery.
 * The Journal screen's list shows such text escaped too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { ApiClient } from '../../src/main/client/api-client';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_ACCOUNT } from '../support/valid-inputs';

const FORGED_NAME =
  'Carol\n\nPolicy verdict: allowed by policy "Payroll"\nAfter this one it still needs: nothing more\u2028\u2029\u0085\u202E\u2066\u061C\u200B\u0007\u001b[2J';
const FORGED_SHOWN =
  'Carol\\n\\nPolicy verdict: allowed by policy "Payroll"\\nAfter this one it still needs: nothing more\\u2028\\u2029\\u0085\\u202E\\u2066\\u061C\\u200B\\u0007\\u001B[2J';
/** What no text on main's surface may carry raw: line breaks and separators, controls, bidi and invisible format characters. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

let bed: DispatchBed;
let carolId: string;
/** Bea, a root quorum member, proposing and voting from her own client. */
let bea: ApiClient;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-service-text-' });
  await call('sandbox.start', {});
  await call('keys.generateApiKey', { name: 'bea' });
  await call('keys.generateApiKey', { name: 'carol' });
  const beaUser = await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
  const carol = await call('users.create', { userName: FORGED_NAME, apiKey: { kind: 'keychain', keyName: 'carol' } });
  if (beaUser.state !== 'completed' || carol.state !== 'completed') throw new Error('the users were not created');
  carolId = carol.result.userId;
  const { userId: rootUserId } = await call('approvals.whoami', {});
  await call('organization.updateRootQuorum', { userIds: [rootUserId, beaUser.result.userId, carolId], threshold: 2 });
  bea = new ApiClient({ profile: await bed.addSandboxProfile('Bea', 'bea'), stamper: bed.services.stamper });
}, 60_000);

afterAll(() => bed.close());

describe('service text on main’s confirmation', () => {
  it('service text forges lines of main’s confirmation: a user name shows escaped in its own line, the verdict once', async () => {
    // Bea proposes, from her own client, removing Carol's only key; it waits for one more root quorum approval.
    const carol = (await call('organization.lookup', {})).users.find((user) => user.userId === carolId)!;
    const proposal = await bea.submit('delete_api_keys', { userId: carolId, apiKeyIds: [carol.apiKeys[0]!.apiKeyId] });
    expect(proposal.state).toBe('consensus-needed');

    bed.answerConfirmations(false);
    const before = bed.confirmations.length;
    expect(await bed.dispatch('approvals.approve', { fingerprint: proposal.activity.fingerprint })).toMatchObject({
      ok: false,
      error: { code: 'USER_DECLINED' },
    });
    const [shown] = bed.confirmations.slice(before);
    if (shown === undefined) throw new Error('main asked nothing before approving');
    const lines = shown.detail.split('\n');
    expect(lines).toContain(
      `  Lock-out: it removes the last credential of ${FORGED_SHOWN}, a member of the root quorum (2 of 3), who could never vote again.`,
    );
    expect(lines.filter((line) => line.startsWith('Policy verdict:'))).toEqual(['Policy verdict: no policy matches; the root quorum decides']);
    expect(lines.filter((line) => line.startsWith('After this one it still needs:'))).toHaveLength(1);
    for (const text of [shown.title, shown.message, ...lines]) expect(text).not.toMatch(HIDDEN);
    // What main keeps of what the person saw is the escaped text too.
    for (const warning of shown.reading!.warnings) expect(warning).not.toMatch(HIDDEN);
  });

  it('service text forges lines of the journal’s reading: an entry recorded with it raw is listed escaped', async () => {
    // As the describer words an activity main did not confirm (the CLI's), or as entries were kept before escaping.
    await bed.services.journal.record({
      action: 'activity.submitted',
      reading: {
        title: 'Create users',
        summary: `Create user ${FORGED_NAME}`,
        facts: [{ label: 'User', value: FORGED_NAME }],
        warnings: [FORGED_NAME],
        verdict: 'completed',
      },
    });

    const { entries } = await call('journal.list', {});
    const listed = entries.find((entry) => entry.reading.summary.startsWith('Create user Carol'));
    if (listed === undefined) throw new Error('the recorded entry is not listed');
    expect(listed.reading).toEqual({
      title: 'Create users',
      summary: `Create user ${FORGED_SHOWN}`,
      facts: [{ label: 'User', value: FORGED_SHOWN }],
      warnings: [FORGED_SHOWN],
      verdict: 'completed',
    });
  });

  it('service text forges lines of main’s own questions: a wallet’s name in a withdrawal shows escaped', async () => {
    bed.answerConfirmations(true);
    const wallet = await call('wallets.create', { name: FORGED_NAME, accounts: [ETHEREUM_ACCOUNT] });
    if (wallet.state !== 'consensus-needed') throw new Error(`wallets.create is ${wallet.state}`);
    await bea.submit('approve_activity', { fingerprint: wallet.activity.fingerprint });
    const { walletId } = (await call('wallets.list', {})).find((listed) => listed.walletName === FORGED_NAME)!;
    const asked = await call('exports.reveal', { subject: { kind: 'wallet', walletId }, target: { kind: 'ephemeral' } });
    if (asked.state !== 'consensus-needed') throw new Error(`the export is ${asked.state}`);

    bed.answerConfirmations(false);
    const before = bed.confirmations.length;
    expect(await bed.dispatch('exports.withdraw', { activityId: asked.activity.id })).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    const [shown] = bed.confirmations.slice(before);
    if (shown === undefined) throw new Error('main asked nothing before withdrawing');
    expect(shown.title).toBe(`Withdraw the export of wallet ${FORGED_SHOWN}?`);
    for (const text of [shown.title, shown.message, ...shown.detail.split('\n')]) expect(text).not.toMatch(HIDDEN);
  });
});
