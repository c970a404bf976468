import { describe, expect, it } from 'vitest';
import type { Activity } from '../../../src/shared/api';
import { parseDraft } from '../../../src/main/policies/history';
import { rehearse, type RehearsalHistory } from '../../../src/main/policies/rehearsal';
import { activityClassOf, CLASSIFIED_ACTIVITY_TYPES } from '../../../src/shared/policy';
import {
  BEA,
  fixturePolicy,
  fixtureUser,
  loweredLimits,
  mixedHistory,
  recordedActivity,
  recordedTransfer,
  rehearsalHistory,
  ROOT,
} from '../../support/rehearsal-history';

const SIGN_LIMIT = fixturePolicy('limit', "activity.action == 'SIGN' && eth.tx.value <= 1000", 'true');
const WALLETS = fixturePolicy(
  'wallets',
  "activity.resource == 'WALLET' && activity.action != 'SIGN'",
  "approvers.any(user, user.tags.contains('ops'))",
);
const POLICIES = fixturePolicy('policies', "activity.resource == 'POLICY'", 'approvers.count() >= 1');
const USERS = fixturePolicy('users', "activity.resource == 'USER'", 'approvers.count() >= 2');
const NO_KEY_EXPORT = fixturePolicy('no-key-export', "activity.resource == 'PRIVATE_KEY' && activity.action == 'EXPORT'", 'true', 'EFFECT_DENY');

const history = (activities: Activity[], overrides: Partial<RehearsalHistory> = {}) =>
  rehearsalHistory(activities, [SIGN_LIMIT, WALLETS, POLICIES, USERS, NO_KEY_EXPORT], overrides);

/** One recorded activity of every class: sign, wallet create/update/delete/export, policy, user, root-only, credentials. */
function everyClass(): Activity[] {
  return [
    recordedTransfer(500n),
    recordedTransfer(900n),
    recordedActivity('ACTIVITY_TYPE_EXPORT_WALLET', { walletId: 'wallet-1', targetPublicKey: '04ab' }, 'ACTIVITY_STATUS_COMPLETED'),
    recordedActivity('ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'Ops', accounts: [] }, 'ACTIVITY_STATUS_COMPLETED'),
    recordedActivity('ACTIVITY_TYPE_UPDATE_WALLET', { walletId: 'wallet-1', walletName: 'Treasury 2' }, 'ACTIVITY_STATUS_COMPLETED'),
    recordedActivity('ACTIVITY_TYPE_DELETE_WALLETS', { walletIds: ['wallet-1'], deleteWithoutExport: true }, 'ACTIVITY_STATUS_COMPLETED'),
    recordedActivity(
      'ACTIVITY_TYPE_CREATE_POLICY_V3',
      { policyName: 'p', effect: 'EFFECT_ALLOW', condition: 'true', consensus: 'true', notes: '' },
      'ACTIVITY_STATUS_COMPLETED',
    ),
    recordedActivity('ACTIVITY_TYPE_UPDATE_USER_NAME', { userId: BEA, userName: 'Bea' }, 'ACTIVITY_STATUS_CONSENSUS_NEEDED'),
    recordedActivity('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold: 1, userIds: [ROOT] }, 'ACTIVITY_STATUS_COMPLETED', [ROOT]),
    recordedActivity('ACTIVITY_TYPE_DELETE_API_KEYS', { userId: BEA, apiKeyIds: ['key-x'] }, 'ACTIVITY_STATUS_COMPLETED'),
  ];
}

describe('policy rehearsal', () => {
  it('reproduces every recorded outcome of a history covering every activity class, and a no-op draft changes nothing', () => {
    const report = rehearse(history(everyClass()), [{ ...SIGN_LIMIT }]);
    expect(report.unreproduced).toEqual([]);
    expect(report.replayed).toBe(10);
    expect(report.changes).toEqual([]);
    expect(report.totals.unchanged).toBe(10);
  });

  it('replays a recorded activity of every type the service classifies; a draft changes exactly the classes it names', () => {
    // Votes are not activities of their own; the root quorum's own changes are approved by a root user.
    const types = CLASSIFIED_ACTIVITY_TYPES.filter((type) => !['ACTIVITY_TYPE_APPROVE_ACTIVITY', 'ACTIVITY_TYPE_REJECT_ACTIVITY'].includes(type));
    const rootOnly = (type: string) => activityClassOf(type).resource === null;
    const recorded = types.map((type) => recordedActivity(type, {}, 'ACTIVITY_STATUS_COMPLETED', rootOnly(type) ? [ROOT] : [BEA]));
    const anything = fixturePolicy('anything', "activity.kind != ''", 'approvers.count() >= 1');
    const organization = history(recorded, { policies: [anything] });

    const noSigning = {
      policyName: 'no signing',
      effect: 'EFFECT_DENY' as const,
      condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
      consensus: 'true',
    };
    const denied = rehearse(organization, [noSigning]);
    expect(denied.unreproduced).toEqual([]);
    expect(denied.replayed).toBe(types.length);
    const signingTypes = types.filter((type) => activityClassOf(type).action === 'SIGN');
    expect(signingTypes.length).toBeGreaterThan(5);
    expect(denied.changes.map((change) => change.type)).toEqual(signingTypes);
    expect(denied.changes.every((change) => change.after === 'denied' && change.policies[0]!.policyName === 'no signing')).toBe(true);
    expect(denied.totals).toEqual({
      allowedToDenied: signingTypes.length,
      deniedToAllowed: 0,
      toConsensus: 0,
      fromConsensus: 0,
      fewerApprovals: 0,
      moreApprovals: 0,
      unchanged: types.length - signingTypes.length,
    });

    // Two approvals for everything: every class but the root quorum's own now waits for a second vote.
    const stricter = rehearse(organization, [{ ...anything, consensus: 'approvers.count() >= 2' }]);
    expect(stricter.changes.map((change) => change.type)).toEqual(types.filter((type) => !rootOnly(type)));
    expect(stricter.totals.toConsensus).toBe(types.filter((type) => !rootOnly(type)).length);
  });

  it('lowering a transfer limit lists the two past transfers that would now need consensus, with the policy responsible', () => {
    const lowered = { ...SIGN_LIMIT, condition: "activity.action == 'SIGN' && eth.tx.value <= 100" };
    const report = rehearse(history(everyClass()), [lowered]);
    expect(report.changes.map((change) => [change.before, change.after])).toEqual([
      ['allowed', 'denied'],
      ['allowed', 'denied'],
    ]);
    expect(report.changes[0]!.policies).toEqual([
      { policyId: 'limit', policyName: 'limit', before: 'OUTCOME_ALLOW', after: 'OUTCOME_NOT_APPLICABLE' },
    ]);
    expect(report.changes[0]!.reading).not.toBe('');
    expect(report.totals).toMatchObject({ allowedToDenied: 2, unchanged: 8 });
    // With a consensus-gated policy for larger transfers the same edit turns them into "needs consensus".
    const gated = {
      policyName: 'large',
      effect: 'EFFECT_ALLOW' as const,
      condition: "activity.action == 'SIGN' && eth.tx.value > 100",
      consensus: 'approvers.count() >= 2',
    };
    const withGate = rehearse(history(everyClass()), [lowered, gated]);
    expect(withGate.changes.map((change) => change.after)).toEqual(['consensus-needed', 'consensus-needed']);
    expect(withGate.changes[0]!.policies[0]).toMatchObject({ policyName: 'large', after: 'OUTCOME_REQUIRES_CONSENSUS' });
    expect(withGate.totals.toConsensus).toBe(2);
  });

  it('engine errors at the last click: a policy that moves between failing and not applying is not named responsible', () => {
    // The limit now reads eth.tx before its activity test: on the wallet rename that errors, where before it was
    // false; both mean it does not apply, so only the policy that changes the outcome is named.
    const unguarded = { ...SIGN_LIMIT, condition: "eth.tx.value <= 1000 && activity.action == 'SIGN'" };
    const rename = recordedActivity('ACTIVITY_TYPE_UPDATE_WALLET', { walletId: 'wallet-1', walletName: 'Treasury 2' });
    const report = rehearse(history([rename]), [unguarded, { policyId: 'wallets', deleted: true }]);
    expect(report.changes.map((change) => [change.before, change.after])).toEqual([['allowed', 'denied']]);
    expect(report.changes[0]!.policies).toEqual([{ policyId: 'wallets', policyName: 'wallets', before: 'OUTCOME_ALLOW', after: 'DELETED' }]);
  });

  it('a deletion and an added deny are both rehearsed', () => {
    const report = rehearse(history(everyClass()), [
      { policyId: 'wallets', deleted: true },
      { policyName: 'no-policy-edits', effect: 'EFFECT_DENY', condition: "activity.resource == 'POLICY'", consensus: 'true' },
    ]);
    expect(report.changes.map((change) => [change.type, change.after])).toEqual([
      ['ACTIVITY_TYPE_EXPORT_WALLET', 'denied'],
      ['ACTIVITY_TYPE_CREATE_WALLET', 'denied'],
      ['ACTIVITY_TYPE_UPDATE_WALLET', 'denied'],
      ['ACTIVITY_TYPE_DELETE_WALLETS', 'denied'],
      ['ACTIVITY_TYPE_CREATE_POLICY_V3', 'denied'],
    ]);
    expect(report.changes[4]!.policies[0]).toMatchObject({ policyName: 'no-policy-edits', after: 'OUTCOME_DENY_EXPLICIT' });
  });

  it('reports a planted mismatch first: an outcome, a per-policy outcome, and an activity it cannot rebuild', () => {
    const planted = recordedTransfer(50_000n); // recorded as completed, yet over the limit
    const agreeing = recordedTransfer(10n);
    const deletedVoter = recordedTransfer(20n, { voters: ['user-gone'] });
    // The vote carries its voter as the service knew them: a deleted approver is named by it.
    (deletedVoter.votes[0]!.user as { userName?: string }).userName = 'Gone';
    const evaluations = new Map([[agreeing.id, [{ policyId: 'limit', outcome: 'OUTCOME_REQUIRES_CONSENSUS' as const }]]]);
    const report = rehearse(history([planted, agreeing, deletedVoter], { recordedEvaluations: evaluations }), []);
    expect(report.unreproduced.map(({ activityId, reason }) => [activityId, reason])).toEqual([
      [planted.id, 'recorded completed with 1 approval, the replay denies it'],
      [agreeing.id, 'per-policy outcomes differ for "limit"'],
      [deletedVoter.id, 'cannot be replayed: approver Gone is no longer a user of the organization'],
    ]);
  });

  it("lowering every limit of the bench's mixed history denies exactly the transfers above the new limits", () => {
    const mixed = mixedHistory({ activities: 400, limits: 3 });
    const report = rehearse(mixed, loweredLimits(3));
    expect(report.unreproduced).toEqual([]);
    expect(report.replayed).toBe(400);
    // Transfer n is n wei on chain n % 3 + 1, whose limit is lowered to 100 + n % 3.
    const aboveLimit = mixed.activities.filter((_, n) => n % 4 < 2 && n > 100 + (n % 3));
    expect(report.changes.map((change) => change.activityId)).toEqual(aboveLimit.map((activity) => activity.id));
    expect(report.changes.every((change) => change.type === 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && change.after === 'denied')).toBe(true);
    expect(report.totals).toMatchObject({ allowedToDenied: 148, unchanged: 252 });
  });
});

describe('rehearsal vote by vote', () => {
  const CAL = 'user-cal';
  const SMALL = fixturePolicy(
    'one ops up to 1000',
    "activity.action == 'SIGN' && eth.tx.value <= 1000",
    "approvers.filter(user, user.tags.contains('ops')).count() >= 1",
  );
  const LARGE = fixturePolicy(
    'two ops above 1000',
    "activity.action == 'SIGN' && eth.tx.value > 1000",
    "approvers.filter(user, user.tags.contains('ops')).count() >= 2",
  );
  const users = [fixtureUser(ROOT, []), fixtureUser(BEA, ['ops']), fixtureUser(CAL, ['ops'])];
  const organization = (activities: Activity[], overrides: Partial<RehearsalHistory> = {}) =>
    rehearsalHistory(activities, [SMALL, LARGE], { users, ...overrides });
  /** Votes a minute apart, in the order given: the proposer's first. */
  const votedInTurn = (activity: Activity): Activity => ({
    ...activity,
    votes: activity.votes.map((vote, index) => ({
      ...vote,
      createdAt: { seconds: String(Number(activity.createdAt.seconds) + 60 * index), nanos: '0' },
    })),
  });
  const seconds = (activity: Activity, offset = 0) => ({ seconds: String(Number(activity.createdAt.seconds) + offset), nanos: '0' });

  it('a loosening that lets a two-vote transfer through on the proposer\'s vote is a change: "needed 2 approvals, would now need 1"', () => {
    const large = votedInTurn(recordedTransfer(250_000n, { voters: [BEA, CAL] }));
    const small = recordedTransfer(500n);
    const report = rehearse(organization([large, small]), [{ ...SMALL, condition: "activity.action == 'SIGN' && eth.tx.value <= 500000" }]);
    expect(report.unreproduced).toEqual([]);
    expect(
      report.changes.map(({ activityId, words, approvalsBefore, approvalsAfter }) => [activityId, words, approvalsBefore, approvalsAfter]),
    ).toEqual([[large.id, "needed 2 approvals, would now need 1 (the proposer's vote alone)", 2, 1]]);
    expect(report.changes[0]!.policies).toEqual([
      { policyId: SMALL.policyId, policyName: SMALL.policyName, before: 'OUTCOME_NOT_APPLICABLE', after: 'OUTCOME_ALLOW' },
    ]);
    expect(report.totals).toMatchObject({ fewerApprovals: 1, moreApprovals: 0, unchanged: 1 });
  });

  it('words a tightening, a denial and a waiting activity the draft would let through', () => {
    const large = votedInTurn(recordedTransfer(250_000n, { voters: [BEA, CAL] }));
    const waiting = recordedTransfer(300_000n, { status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED' });
    const history = organization([large, waiting]);
    const tighter = rehearse(history, [{ ...LARGE, consensus: 'approvers.count() >= 3' }]);
    expect(tighter.changes.map((change) => change.words)).toEqual(['needed 2 approvals, would now still wait after those 2 approvals']);
    const denied = rehearse(history, [{ policyName: 'no large', effect: 'EFFECT_DENY', condition: 'eth.tx.value > 1000', consensus: '' }]);
    expect(denied.changes.map((change) => change.words)).toEqual([
      'needed 2 approvals, would now be denied',
      'still waited after 1 approval, would now be denied',
    ]);
    const looser = rehearse(history, [{ ...LARGE, consensus: 'approvers.count() >= 1' }]);
    expect(looser.changes.map((change) => change.words)).toEqual([
      "needed 2 approvals, would now need 1 (the proposer's vote alone)",
      "still waited after 1 approval, would now be allowed on the proposer's vote alone",
    ]);
    expect(looser.totals).toMatchObject({ fewerApprovals: 1, fromConsensus: 1 });
  });

  it('checks each vote with the policies of the day: a policy created later did not apply, one changed later is named', () => {
    const transfer = recordedTransfer(500n);
    const freeze = {
      ...fixturePolicy('freeze', "activity.action == 'SIGN'", '', 'EFFECT_DENY'),
      createdAt: seconds(transfer, 3600),
      updatedAt: seconds(transfer, 3600),
    };
    const later = rehearse(organization([transfer], { policies: [SMALL, LARGE, freeze] }), []);
    expect(later.unreproduced).toEqual([]);

    // The limit was lowered after the transfer: today's text denies it, and the earlier text is not kept.
    const lowered = { ...SMALL, condition: "activity.action == 'SIGN' && eth.tx.value <= 100", updatedAt: seconds(transfer, 7200) };
    const changed = rehearse(organization([transfer], { policies: [lowered, LARGE] }), []);
    const when = new Date((Number(transfer.createdAt.seconds) + 7200) * 1000).toISOString().slice(0, 19).replace('T', ' ');
    expect(changed.unreproduced.map((entry) => entry.reason)).toEqual([
      `recorded completed with 1 approval, the replay denies it; policy "one ops up to 1000" was changed on ${when} UTC, after this activity; its earlier text is not kept by the service`,
    ]);
  });

  it('replays each activity with the root quorum of the day, from the recorded quorum changes', () => {
    // The root alone (a one-member quorum) creates a wallet, then makes the quorum two of two with Bea.
    const wallet = recordedActivity('ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'Ops', accounts: [] }, 'ACTIVITY_STATUS_COMPLETED', [ROOT]);
    const quorum = recordedActivity('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold: 2, userIds: [ROOT, BEA] }, 'ACTIVITY_STATUS_COMPLETED', [ROOT]);
    const rename = votedInTurn(
      recordedActivity('ACTIVITY_TYPE_UPDATE_WALLET', { walletId: 'wallet-1', walletName: 'T' }, 'ACTIVITY_STATUS_COMPLETED', [ROOT, BEA]),
    );
    const today = { rootQuorum: { userIds: [ROOT, BEA], threshold: 2 } };
    const report = rehearse(organization([rename, quorum, wallet], today), []);
    expect(report.unreproduced).toEqual([]);
    expect(report.replayed).toBe(3);

    // Cal's earlier membership is not recorded: the quorum before the change is taken as its approvers, and said so.
    const byCal = recordedActivity('ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'Cal', accounts: [] }, 'ACTIVITY_STATUS_COMPLETED', [CAL]);
    const change = recordedActivity('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { threshold: 2, userIds: [ROOT, BEA] }, 'ACTIVITY_STATUS_COMPLETED', [ROOT]);
    const when = new Date(Number(change.createdAt.seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ');
    expect(rehearse(organization([change, byCal], today), []).unreproduced.map((entry) => entry.reason)).toEqual([
      `recorded completed with 1 approval, the replay denies it; the root quorum before its change on ${when} UTC is not recorded; the replay takes it as ${ROOT}, who approved that change, all needed`,
    ]);
  });
});

describe('rehearsal drafts', () => {
  it('names the bad field of a draft file', () => {
    expect(() => parseDraft('[{"policyName":"x","effect":"EFFECT_MAYBE","condition":"","consensus":""}]', [])).toThrow(/draft \[0\]\.effect/);
    expect(() => parseDraft('{', [])).toThrow(/draft: not JSON/);
    expect(() => parseDraft('[{"policyId":"nope","deleted":true}]', ['limit'])).toThrow(/\[0\]\.policyId: no current policy nope to delete/);
    expect(parseDraft('[{"policyId":"limit","deleted":true}]', ['limit'])).toEqual([{ policyId: 'limit', deleted: true }]);
    expect(() => parseDraft('[{"policyName":"  ","effect":"EFFECT_ALLOW"}]', [])).toThrow('draft [0].policyName: a policy needs a name');
    const tooLong = JSON.stringify([{ policyName: 'x', effect: 'EFFECT_ALLOW', condition: 'a'.repeat(70_000) }]);
    expect(() => parseDraft(tooLong, [])).toThrow('draft [0].condition: must be at most 65536 characters, got 70000');
    expect(() => parseDraft('[{"policyName":"x","effect":"EFFECT_ALLOW","efect":"EFFECT_DENY"}]', [])).toThrow(/draft \[0\]: .*efect/);
  });

  it("takes get_policies' output as it is: the service's own fields dropped, condition and consensus empty when left out", () => {
    const listed = { ...SIGN_LIMIT, organizationId: 'org', time: '' };
    const added = { policyName: ' large ', effect: 'EFFECT_DENY' };
    expect(parseDraft(JSON.stringify([listed, added]), ['limit'])).toEqual([
      { policyId: 'limit', policyName: 'limit', effect: 'EFFECT_ALLOW', condition: SIGN_LIMIT.condition, consensus: 'true', notes: '', time: '' },
      { policyName: 'large', effect: 'EFFECT_DENY', condition: '', consensus: '' },
    ]);
  });
});
