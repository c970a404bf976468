/**
 * Issue 35, item 8a: the policy templates do what their notes say against a real service. "Any 1 of these users"
 * counts the proposer's own approval, so one of them proposing completes it alone; "one approver other than the
 * proposer" waits for someone else, whose vote completes it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Approvals } from '../../src/main/approvals/approvals';
import { Policies } from '../../src/main/policies/policies';
import { anotherApproverTemplate, anyOfUsersTemplate } from '../../src/renderer/src/policy/templates';
import type { PolicyDraft } from '../../src/renderer/src/policy/draft';
import { rejection } from '../support/assertions';
import { startTestBed, type TestBed } from './helpers';

const CREATE_WALLET = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** Root, alone in the root quorum, and two more users; `draft` is the one policy besides it. */
async function organizationWith(draft: (ids: { proposer: string; other: string }) => PolicyDraft): Promise<TestBed> {
  const started = await startTestBed(3);
  const [root, proposer, other] = started.operators;
  await started.setRootQuorum(1, [root!.userId]);
  const { name, effect, condition, consensus, notes } = draft({ proposer: proposer!.userId, other: other!.userId });
  const created = await new Policies(root!.client).create({ name, effect, condition, consensus, notes });
  expect(created.state).toBe('completed');
  return started;
}

function approvalsOf(testBed: TestBed, index: number): Approvals {
  const operator = testBed.operators[index]!;
  return new Approvals({ client: operator.client, stamper: operator.stamper, credential: { apiKeyName: 'operator' }, now: testBed.clock.now });
}

describe('policy templates against the service', () => {
  it('"any 1 of these users": the proposer’s own approval is the one', async () => {
    bed = await organizationWith(({ proposer, other }) =>
      anyOfUsersTemplate(
        [
          { id: proposer, name: 'Proposer' },
          { id: other, name: 'Other' },
        ],
        1,
        CREATE_WALLET,
      ),
    );
    const proposal = await bed.operators[1]!.client.submit('create_wallet', { walletName: 'alone', accounts: [] });
    expect(proposal.state).toBe('completed');
  });

  it('"one approver other than the proposer": the proposer alone cannot complete it, another user’s vote does', async () => {
    bed = await organizationWith(() => anotherApproverTemplate(CREATE_WALLET));
    const proposal = await bed.operators[1]!.client.submit('create_wallet', { walletName: 'two people', accounts: [] });
    expect(proposal.state).toBe('consensus-needed');
    // Approving their own proposal again adds nothing: it is refused, and the activity still waits.
    expect((await rejection(approvalsOf(bed, 1).approve(proposal.activity.fingerprint))).code).toBe('ALREADY_VOTED');
    const [waiting] = await approvalsOf(bed, 2).pending();
    expect(waiting).toMatchObject({ fingerprint: proposal.activity.fingerprint, approvals: 1, canApprove: true });

    const approved = await approvalsOf(bed, 2).approve(proposal.activity.fingerprint);
    expect(approved.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await bed.operators[2]!.client.query('list_wallets', {})).wallets.map((wallet) => wallet.walletName)).toEqual(['two people']);
  });
});
