import { describe, expect, it } from 'vitest';
import { stillToVote } from '../../../src/shared/approvals/still-to-vote';
import type { Voter } from '../../../src/shared/approvals/voting';
import type { OrganizationLookup } from '../../../src/shared/describe';

const user = (userId: string, userName: string, userTags: string[] = []) => ({ userId, userName, userTags, apiKeys: [], authenticators: [], oauthProviders: [] });
const policy = (policyName: string, condition: string, consensus: string, effect = 'EFFECT_ALLOW') => ({
  policyId: policyName,
  policyName,
  effect,
  condition,
  consensus,
  notes: '',
});
const lookup: OrganizationLookup = {
  users: [user('u-root', 'Root'), user('u-ann', 'Ann'), user('u-bo', 'Bo', ['t-ops']), user('u-cy', 'Cy')],
  rootQuorum: { userIds: ['u-root', 'u-ann'], threshold: 2 },
  policies: [
    policy('ops export', "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'", "approvers.any(user, user.tags.contains('t-ops'))"),
    policy('cy signs', "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", "approvers.any(user, user.id == 'u-cy')"),
    policy('deny cy', 'true', "approvers.any(user, user.id == 'u-cy')", 'EFFECT_DENY'),
  ],
};
const exportWallet = { type: 'ACTIVITY_TYPE_EXPORT_WALLET', intent: { exportWalletIntent: { walletId: 'w', targetPublicKey: '04' } } };
const voter = (userId: string, selection: Voter['selection'], expired = false): Voter => ({ userId, userName: userId, selection, votedAtMs: 1, expired });

describe('stillToVote', () => {
  it('lists root quorum members and users the consensus of an applicable allow policy names, by id or tag', () => {
    expect(stillToVote(exportWallet, [voter('u-root', 'approved')], lookup)).toEqual([
      { userId: 'u-ann', userName: 'Ann', reasons: ['root quorum member'] },
      { userId: 'u-bo', userName: 'Bo', reasons: ['named by policy ops export'] },
    ]);
  });

  it('shrinks as votes come in; an expired approval may be given again', () => {
    expect(stillToVote(exportWallet, [voter('u-root', 'approved'), voter('u-ann', 'rejected'), voter('u-bo', 'approved')], lookup)).toEqual([]);
    expect(stillToVote(exportWallet, [voter('u-root', 'approved', true)], lookup).map((entry) => entry.userId)).toEqual(['u-root', 'u-ann', 'u-bo']);
  });

  it('leaves out policies whose condition rules the activity out, and deny policies', () => {
    expect(stillToVote(exportWallet, [], lookup).some((entry) => entry.userId === 'u-cy')).toBe(false);
  });
});
