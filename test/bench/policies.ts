/**
 * Policy rehearsal throughput: 10,000 recorded activities (Ethereum transfers, wallet changes, user renames) replayed
 * against the current policies and a 50-policy draft, beside one engine decision's cost measured in the same run.
 * Goal: the 10,000 in under 3 s. Both are given in wall time and in this process's CPU time, since the machine may be
 * shared: wall time is what an operator waits, CPU time what the rehearsal costs.
 */
import { rehearse } from '../../src/main/policies/rehearsal.js';
import { conditionContextOf, decide } from '../../src/shared/policy';
import { BEA, loweredLimits, mixedHistory } from '../support/rehearsal-history';

const ACTIVITIES = 10_000;
const DRAFT_POLICIES = 50;
const SINGLE_DECISIONS = 20_000;
const GOAL_MS = 3000;

export async function run(): Promise<{ activitiesPerSecond: number; singleDecisionMicroseconds: number; withinGoal: boolean }> {
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
  return { activitiesPerSecond, singleDecisionMicroseconds, withinGoal };
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}
