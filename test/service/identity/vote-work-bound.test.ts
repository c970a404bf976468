/**
 * Who may vote is searched by evaluating a policy's consensus over many sets of the organization's users
 * (docs/service.md#who-may-vote): the whole search shares one budget of steps, and a policy whose search runs out
 * gives no vote.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eligibilitySearch, voteEligibility } from '../../../src/service/authorize';
import { searchVoteEligibility } from '../../../src/service/authorize/vote-search';
import { MAX_DECISION_STEPS, StepBudget, checkPolicyExpression } from '../../../src/shared/policy';
import { recordingPolicyWorkers } from '../../support/policy-workers';
import { refusal, startTestService, type TestKey, type TestService } from '../../support/service';
import { countingSteps } from '../../unit/policy/step-count';

let t: TestService;
let dave: { userId: string; key: TestKey };
let erin: { userId: string; key: TestKey };

beforeEach(async () => {
  t = await startTestService();
  dave = await t.addUser({ name: 'dave' });
  erin = await t.addUser({ name: 'erin' });
  // An organization at its limit of 100 users.
  for (let index = 0; index < 97; index += 1) await t.addUser({ name: `user ${index}` });
});
afterEach(async () => {
  await t.close();
});

/** About 4 × n² steps over n approvers: just within one evaluation's budget with all 100 users approving. */
const PAIRWISE = "approvers.count() >= 2 && approvers.all(a, approvers.all(b, b.id != ''))";

async function allowPolicies(consensus: string): Promise<void> {
  await t.store.transaction((tx) =>
    tx.policies.insert({
      id: 'policy-wallets',
      organizationId: t.info.organizationId,
      name: 'two approve wallets',
      effect: 'EFFECT_ALLOW',
      condition: "activity.resource == 'WALLET'",
      consensus,
      time: '',
      notes: '',
      now: t.clock.now(),
    }),
  );
}

function request() {
  return {
    store: t.store.read,
    organization: t.store.read.organizations.get(t.info.organizationId)!,
    activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
    params: {},
    resources: {},
    now: t.clock.now(),
  };
}

/** The search of whether dave may vote, within one decision's budget, and the lines it logs. */
function daveSearched(): { result: ReturnType<typeof searchVoteEligibility>; steps: number; logged: string[] } {
  const logged: string[] = [];
  const search = eligibilitySearch(request(), dave.userId)!;
  const { result, steps } = countingSteps(() => searchVoteEligibility(search, new StepBudget(MAX_DECISION_STEPS), (line) => logged.push(line)));
  return { result, steps, logged };
}

describe('policy evaluation has no work bound', () => {
  it('one vote’s eligibility search over 100 users stays within one decision’s budget, and gives no vote when it runs out', async () => {
    expect(checkPolicyExpression(PAIRWISE, 'consensus').ok).toBe(true);
    await allowPolicies(PAIRWISE);
    const { result, steps, logged } = daveSearched();
    // Each evaluation is within its own budget, but dropping the users one by one evaluates it about 100 times.
    expect(steps).toBeLessThanOrEqual(MAX_DECISION_STEPS + 1); // the one step that found the budget spent
    expect(result).toEqual({ eligible: false, tooCostly: ['policy-wallets'] });
    expect(logged).toEqual([
      `policy policy-wallets (two approve wallets): working out who may vote on this activity took more than ${MAX_DECISION_STEPS} steps; it gives no vote`,
    ]);
  });

  it('an ordinary consensus over the same 100 users decides as before, well within the budget', async () => {
    await allowPolicies('approvers.count() >= 2');
    const { result, steps } = daveSearched();
    expect(result).toEqual({ eligible: true });
    expect(steps).toBeLessThan(MAX_DECISION_STEPS / 10);
  });

  it('the service searches an ordinary consensus on its event loop, and one that outgrows the slice on a policy worker, with the same answer', async () => {
    await allowPolicies('approvers.count() >= 2');
    const workers = recordingPolicyWorkers();
    const logged: string[] = [];
    const service = { ...request(), log: (line: string) => logged.push(line), policyWorkers: workers };
    expect(await voteEligibility(service, dave.userId)).toEqual({ eligible: true });
    expect(workers.jobs).toEqual([]);

    await t.store.transaction((tx) => tx.policies.delete(t.info.organizationId, 'policy-wallets'));
    await allowPolicies(PAIRWISE);
    expect(await voteEligibility(service, dave.userId)).toEqual(daveSearched().result);
    expect(workers.jobs.map((job) => job.kind)).toEqual(['vote-eligibility']);
    // The worker's log lines reach the service's log, and the slice's never do.
    expect(logged).toEqual(daveSearched().logged);
  });

  it('a vote the search cannot work out is refused, naming the policy that was too costly', async () => {
    await allowPolicies(PAIRWISE);
    const proposed = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'w', accounts: [] }, { key: dave.key });
    expect(proposed.body.activity?.status, JSON.stringify(proposed.body)).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const vote = await t.submit(
      'approve_activity',
      'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      { fingerprint: proposed.body.activity.fingerprint },
      { key: erin.key },
    );
    expect(refusal(vote)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect(vote.body.message).toContain('policies policy-wallets were too costly to work out who may vote');
  });
});
