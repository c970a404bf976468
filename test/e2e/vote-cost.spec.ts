/**
 * What one vote on the Approvals screen costs, counted at main's two edges by the host's traffic recorder: from the
 * click on Approve (main's confirmation answered Continue) until everything it set off has settled, the page makes at
 * most 3 IPC calls and main at most 4 service requests for them (the vote, the enclave's proof, at most two reads),
 * and no request asks the same question twice (same operation, same body). The pollers' own ticks are not the vote's.
 */
import type { TrafficCost } from '../support/traffic-recorder';
import {
  approveOnScreen,
  ETHEREUM_WALLET_ACCOUNT,
  openWaiting,
  VOTE_BUDGET,
  voteDesk,
  WALLET_VOTE_OUTCOME,
  walletWaitingOnBea,
} from '../support/vote-scenario';
import { done, expect, test } from './fixtures';
import { unsignedUsdcTransfer } from './usdc-transfer';

// Setting up an organization through the Sandbox takes most of a minute on a loaded two-core machine.
test.describe.configure({ timeout: 120_000 });

// Each failure prints the whole tally (docs/performance.md#what-one-vote-costs says what each call and request is).

function expectWithinBudget(cost: TrafficCost): void {
  test.info().annotations.push({ type: 'one vote', description: cost.summary });
  // The recorder saw the click's work: exactly one vote was sent.
  expect(
    cost.requests.filter(({ operation }) => operation === 'approve_activity'),
    cost.summary,
  ).toHaveLength(1);
  expect(cost.repeated, cost.summary).toEqual([]);
  expect(cost.requests.length, cost.summary).toBeLessThanOrEqual(VOTE_BUDGET.requests);
  expect(cost.calls.length, cost.summary).toBeLessThanOrEqual(VOTE_BUDGET.calls);
}

test('a vote that leaves the activity waiting: at most 3 IPC calls and 4 service requests, nothing asked twice', async ({ page, host }) => {
  await walletWaitingOnBea(page, host);
  expectWithinBudget(await approveOnScreen(page, host, WALLET_VOTE_OUTCOME));
});

test('a vote that completes a signing request: at most 3 IPC calls and 4 service requests, nothing asked twice', async ({ page, host }) => {
  const { root, rootUserId, userIds, profiles, sandbox } = await voteDesk(page, host, ['Bea']);
  const { addresses } = await done(root.submit('create_wallet', { walletName: 'Treasury', accounts: [ETHEREUM_WALLET_ACCOUNT] }));
  // Two of two, no policy: Bea proposes a transfer and the root's vote completes it.
  await done(root.submit('update_root_quorum', { threshold: 2, userIds: [rootUserId, ...userIds] }));
  await host.services.profiles.setActive(profiles[0]!.id);
  const submitted = await host.handlers['signing.submit']({
    request: {
      operation: 'sign_transaction',
      signWith: addresses[0]!,
      unsignedTransaction: unsignedUsdcTransfer(250_000_000_000n),
      type: 'TRANSACTION_TYPE_ETHEREUM',
    },
  });
  expect(submitted.state).toBe('consensus-needed');
  await openWaiting(page, host, sandbox, 'Sign an Ethereum transaction');
  expectWithinBudget(await approveOnScreen(page, host, 'Approved — Sign an Ethereum transaction is done.'));
});
