/**
 * Engine errors at the last click: one table of activity types × policies (reading `eth.`/`solana.` or not, allow and
 * deny, evaluating and failing), on which the service's decision (`decide`, which its `authorize` calls), the
 * rehearsal, the dry run's and the card's standing, and "Still to vote" agree row by row, a policy that cannot be
 * evaluated not applying in every one, said without the evaluator's words.
 */
import { describe, expect, it } from 'vitest';
import { verdictInWords } from '../../src/main/approvals/vote-reading';
import { rehearse } from '../../src/main/policies/rehearsal';
import { policyStanding } from '../../src/main/signing/policy-standing';
import type { Activity, Policy, Tag } from '../../src/shared/api';
import { decodeEthereumTransaction } from '../../src/shared/chains/ethereum';
import { conditionContextOf, decide, type Authorization, type PolicyOutcome } from '../../src/shared/policy';
import { ACCOUNT, BEA, ROOT, fixturePolicy, recordedActivity, recordedTransfer, rehearsalHistory } from '../support/rehearsal-history';

type Decision = Authorization['decision'];

const ACTIVITIES: Record<string, () => Activity> = {
  export: () => recordedActivity('ACTIVITY_TYPE_EXPORT_WALLET', { walletId: 'wallet-1', targetPublicKey: '04ab' }),
  'new policy': () =>
    recordedActivity('ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName: 'p', effect: 'EFFECT_ALLOW', condition: 'true', consensus: '', notes: '' }),
  'sub-organization': () =>
    recordedActivity('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7', { subOrganizationName: 'sub', rootUsers: [], rootQuorumThreshold: 1 }),
  'user rename': () => recordedActivity('ACTIVITY_TYPE_UPDATE_USER_NAME', { userId: BEA, userName: 'Bea 2' }),
  'transfer of 5 wei': () => recordedTransfer(5n),
};

const ops = "approvers.any(u, u.tags.contains('ops'))";
const anyone = 'approvers.count() >= 1';
const allowAll = fixturePolicy('allow all', 'true', anyone);

const POLICIES: Record<string, Policy[]> = {
  none: [],
  'allow small signing (guarded eth)': [fixturePolicy('small', "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value < 10", ops)],
  'allow small (bare eth)': [fixturePolicy('bare', 'eth.tx.value < 10', anyone)],
  'deny solana, allow all': [fixturePolicy('no solana', 'solana.tx.transfers.count() > 0', '', 'EFFECT_DENY'), allowAll],
  'deny exports or solana, allow all': [
    fixturePolicy('no exports', "activity.action == 'EXPORT' || solana.tx.transfers.count() > 0", '', 'EFFECT_DENY'),
    allowAll,
  ],
  'deny any value, allow all': [fixturePolicy('no value', 'eth.tx.value > 0', '', 'EFFECT_DENY'), allowAll],
  'two approvers unless small': [fixturePolicy('two', "activity.action != 'SIGN' || eth.tx.value < 10", 'approvers.count() >= 2')],
};

/** What the service decides for bea's proposal, per policies and activity (in ACTIVITIES' order). */
const EXPECTED: Record<string, [Decision, Decision, Decision, Decision, Decision]> = {
  none: ['deny', 'deny', 'deny', 'deny', 'deny'],
  'allow small signing (guarded eth)': ['deny', 'deny', 'deny', 'deny', 'allow'],
  'allow small (bare eth)': ['deny', 'deny', 'deny', 'deny', 'allow'],
  'deny solana, allow all': ['allow', 'allow', 'allow', 'allow', 'allow'],
  'deny exports or solana, allow all': ['deny', 'allow', 'allow', 'allow', 'allow'],
  'deny any value, allow all': ['allow', 'allow', 'allow', 'allow', 'deny'],
  'two approvers unless small': ['consensus-needed', 'consensus-needed', 'consensus-needed', 'consensus-needed', 'consensus-needed'],
};

const TAGS: Tag[] = [
  { tagId: 'ops', tagName: 'ops', tagType: 'TAG_TYPE_USER', createdAt: { seconds: '0', nanos: '0' }, updatedAt: { seconds: '0', nanos: '0' } },
];

const VERDICT_OF_OUTCOME: Record<PolicyOutcome, string> = {
  OUTCOME_ALLOW: 'allow',
  OUTCOME_DENY_EXPLICIT: 'deny',
  OUTCOME_REQUIRES_CONSENSUS: 'needs consensus',
  OUTCOME_NOT_APPLICABLE: 'not applicable',
  OUTCOME_ERROR: 'not applicable',
  OUTCOME_TIME_INACTIVE: 'inactive',
};
const DECISION_OF_STANDING = { ALLOW: 'allow', DENY: 'deny', NEEDS_CONSENSUS: 'consensus-needed', NO_POLICY: 'deny' } as const;
const DECISION_OF_REPLAY = { allowed: 'allow', denied: 'deny', 'consensus-needed': 'consensus-needed', 'not-replayable': 'not replayable' } as const;
const ENGINE_WORDS = /MissingField|TypeError|IndexOutOfRange|TooCostly|is not available for this request|\(at \d+:\d+\)/;

/** The condition keywords the service names beside the activity: for the transfer, its account's and the decoded view. */
function resourcesOf(activity: Activity): Record<string, unknown> {
  const params = Object.values(activity.intent)[0] as Record<string, unknown>;
  if (typeof params.unsignedTransaction !== 'string') return {};
  const tx = { ...decodeEthereumTransaction(params.unsignedTransaction, () => undefined).policy, from: ACCOUNT };
  return { wallet: { id: 'wallet-1', imported: false, exported: false, label: 'Treasury' }, wallet_account: { address: ACCOUNT }, eth: { tx } };
}

const rows = Object.entries(POLICIES).flatMap(([policiesName, policies]) =>
  Object.keys(ACTIVITIES).map((activityName, column) => ({ policiesName, policies, activityName, expected: EXPECTED[policiesName]![column]! })),
);

describe('engine errors at the last click: every reading agrees with the service on every row', () => {
  it.each(rows)('$policiesName × $activityName: $expected', ({ policies, activityName, expected }) => {
    const activity = ACTIVITIES[activityName]!();
    const history = rehearsalHistory([activity], policies);
    const params = Object.values(activity.intent)[0] as Record<string, unknown>;
    const resources = resourcesOf(activity);
    const bea = history.users.find((user) => user.userId === BEA)!;
    const nowMs = Number(activity.createdAt.seconds) * 1000;

    const service = decide({
      policies: policies.map((policy) => ({ ...policy, id: policy.policyId, name: policy.policyName, time: '' })),
      activityType: activity.type,
      params,
      condition: conditionContextOf(activity.type, params, resources, undefined),
      approvers: [
        {
          user: { id: BEA, tags: bea.userTags, alias: bea.userName },
          credential: { id: `key-${BEA}`, user_id: BEA, type: 'CREDENTIAL_TYPE_API_KEY_P256', public_key: `pub-${BEA}` },
        },
      ],
      rootQuorum: history.rootQuorum,
      now: nowMs,
    });
    expect(service.decision).toBe(expected);

    // The rehearsal replays the activity, recorded as completed: it lists it only where its replay is not an allow.
    const replayed = rehearse(history, []).unreproduced.find((entry) => entry.activityId === activity.id)?.replayed ?? 'allowed';
    expect(DECISION_OF_REPLAY[replayed]).toBe(expected);

    // The dry run and the card read the standing; the confirmation and the journal word its verdict (main reads a
    // request that signs nothing without resources, as here).
    const signs = Object.keys(resources).length > 0;
    const standing = policyStanding({
      activityType: activity.type,
      params,
      resources: signs ? resources : {},
      policies,
      users: history.users,
      tags: TAGS,
      approverIds: [BEA],
      viewerId: ROOT,
      rootQuorum: history.rootQuorum,
      nowMs,
    });
    expect(DECISION_OF_STANDING[standing.outcome]).toBe(expected);
    expect(standing.evaluations.map((evaluation) => evaluation.verdict)).toEqual(
      service.evaluations.map((evaluation) => VERDICT_OF_OUTCOME[evaluation.outcome]),
    );
    const words = [...standing.evaluations.map((evaluation) => evaluation.reason ?? ''), ...standing.failedPolicies.map((policy) => policy.reason)];
    for (const said of words) expect(said).not.toMatch(ENGINE_WORDS);
    expect(standing.failedPolicies).toEqual([]);

    // "Still to vote" is the standing's own list, which main's vote reading passes on; its verdict is in words.
    if (expected === 'consensus-needed') expect(standing.stillToVote.length).toBeGreaterThan(0);
    expect(verdictInWords(standing)).not.toMatch(ENGINE_WORDS);
  });
});
