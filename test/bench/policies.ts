/**
 * Policy rehearsal throughput: 10,000 recorded activities (Ethereum transfers, wallet changes, user renames) replayed
 * against the current policies and a 50-policy draft, beside one engine decision's cost measured in the same run, and
 * the most one policy field can cost: an evaluation that runs out the step budget (MAX_EVALUATION_STEPS).
 * Goal: the 10,000 in under 3 s. Both are given in wall time and in this process's CPU time, since the machine may be
 * shared: wall time is what an operator waits, CPU time what the rehearsal costs.
 */
import { rehearse } from '../../src/main/policies/rehearsal.js';
import { MAX_EVALUATION_STEPS, conditionContextOf, decide, type DecisionRequest } from '../../src/shared/policy';
import { BEA, loweredLimits, mixedHistory } from '../support/rehearsal-history';

const ACTIVITIES = 10_000;
const DRAFT_POLICIES = 50;
const SINGLE_DECISIONS = 20_000;
const GOAL_MS = 3000;
const BUDGET_DECISIONS = 50;

export async function run(): Promise<{
  activitiesPerSecond: number;
  singleDecisionMicroseconds: number;
  budgetDecisionMilliseconds: number;
  withinGoal: boolean;
}> {
  const history = mixedHistory({ activities: ACTIVITIES, limits: DRAFT_POLICIES });
  // The draft rewrites all 50 limits: every transfer is decided by a changed policy.
  const draft = loweredLimits(DRAFT_POLICIES);

  const started = performance.now();
  const startedCpu = process.cpuUsage();
  const report = rehearse(history, draft);
  const rehearsalMs = performance.now() - started;
  const rehearsalCpuMs = cpuMsSince(startedCpu);

  // Each decision gets its own contexts, as each request to the service does: nothing is shared between runs.
  const approver = history.users.find((user) => user.userId === BEA)!;
  const approverKey = approver.apiKeys[0]!;
  const policies = history.policies.map((p) => ({
    id: p.policyId,
    name: p.policyName,
    effect: p.effect,
    condition: p.condition,
    consensus: p.consensus,
    time: '',
  }));
  const request = () => ({
    policies,
    activityType: 'ACTIVITY_TYPE_UPDATE_WALLET',
    params: { walletId: 'wallet-1' },
    condition: conditionContextOf(
      'ACTIVITY_TYPE_UPDATE_WALLET',
      { walletId: 'wallet-1' },
      { wallet: { id: 'wallet-1', label: 'Treasury' } },
      undefined,
    ),
    approvers: [
      {
        user: { id: approver.userId, tags: approver.userTags },
        credential: {
          id: approverKey.apiKeyId,
          user_id: approver.userId,
          type: approverKey.credential.type,
          public_key: approverKey.credential.publicKey,
        },
      },
    ],
    rootQuorum: history.rootQuorum,
    now: Date.now(),
  });
  const singleStarted = performance.now();
  const singleStartedCpu = process.cpuUsage();
  for (let i = 0; i < SINGLE_DECISIONS; i += 1) decide(request());
  const singleDecisionMicroseconds = ((performance.now() - singleStarted) * 1000) / SINGLE_DECISIONS;
  const singleDecisionCpuMicroseconds = (cpuMsSince(singleStartedCpu) * 1000) / SINGLE_DECISIONS;

  const activitiesPerSecond = Math.round((report.replayed / rehearsalMs) * 1000);
  const withinGoal = rehearsalMs < GOAL_MS;
  console.log(
    `rehearsal: ${report.replayed} activities × (current + ${DRAFT_POLICIES}-policy draft) in ${rehearsalMs.toFixed(0)} ms wall, ${rehearsalCpuMs.toFixed(0)} ms CPU ` +
      `= ${activitiesPerSecond} activities/s (${report.changes.length} changed, ${report.unreproduced.length} unreproduced) — goal < ${GOAL_MS} ms: ${withinGoal ? 'met' : 'MISSED'}`,
  );
  console.log(
    `single decision over ${policies.length} policies: ${singleDecisionMicroseconds.toFixed(1)} µs wall, ${singleDecisionCpuMicroseconds.toFixed(1)} µs CPU (${SINGLE_DECISIONS} runs)`,
  );
  const budgetDecisionMilliseconds = budgetExhaustingDecisionMs();
  return { activitiesPerSecond, singleDecisionMicroseconds, budgetDecisionMilliseconds, withinGoal };
}

/**
 * One decision over a single policy whose condition runs out the step budget: nested comprehensions over a list the
 * request supplies (no static cost can refuse them), the most work one policy field can make a decision do.
 */
function budgetExhaustingDecisionMs(): number {
  const list = Array.from({ length: 10 }, (_, index) => BigInt(index));
  let condition = 'true';
  for (const variable of ['a', 'b', 'c', 'd', 'e', 'f']) condition = `activity.params.list.all(${variable}, ${condition})`;
  const request: DecisionRequest = {
    policies: [{ id: 'costly', name: 'costly', effect: 'EFFECT_ALLOW', condition, consensus: '', time: '' }],
    activityType: 'T',
    params: {},
    condition: { activity: { type: 'T', kind: 'T', params: { list } } },
    approvers: [],
    rootQuorum: { userIds: ['root'], threshold: 1 },
    now: Date.now(),
  };
  // A fresh context per decision, as each request to the service has: no result is remembered between them.
  const decideOnce = () => decide({ ...request, condition: { activity: { type: 'T', kind: 'T', params: { list } } } });
  if (decideOnce().evaluations[0]?.outcome !== 'OUTCOME_ERROR') throw new Error('the costly policy did not run out the step budget');
  const started = performance.now();
  const startedCpu = process.cpuUsage();
  for (let i = 0; i < BUDGET_DECISIONS; i += 1) decideOnce();
  const wallMs = (performance.now() - started) / BUDGET_DECISIONS;
  const cpuMs = cpuMsSince(startedCpu) / BUDGET_DECISIONS;
  console.log(
    `a decision whose one policy runs out the ${MAX_EVALUATION_STEPS.toLocaleString('en-US')}-step budget: ${wallMs.toFixed(1)} ms wall, ${cpuMs.toFixed(1)} ms CPU (${BUDGET_DECISIONS} runs)`,
  );
  return wallMs;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}
