/**
 * "What consensus still needs" searches up to 3 more approvers among the organization's users, evaluating the
 * consensus once per set tried: the whole search shares one budget of steps, and says in words when it runs out.
 */
import { describe, expect, it } from 'vitest';
import { policyStanding, type StandingInput } from '../../src/main/signing/policy-standing';
import type { Policy, User } from '../../src/shared/api';
import { MAX_DECISION_STEPS, MAX_EVALUATION_STEPS, checkPolicyExpression } from '../../src/shared/policy';
import { countingSteps } from '../unit/policy/step-count';

const at = { seconds: '1700000000', nanos: '0' };
/** A user with ten API keys: a consensus over `credentials` reads thirty of them for three approvers. */
const user = (userId: string): User => ({
  userId,
  userName: userId,
  authenticators: [],
  apiKeys: Array.from({ length: 10 }, (_, index) => ({
    apiKeyId: `${userId}-key-${index}`,
    apiKeyName: `key ${index}`,
    credential: { publicKey: `02${`${userId}${index}`.padEnd(64, '0')}`, type: 'CREDENTIAL_TYPE_API_KEY_P256' as const },
    createdAt: at,
    updatedAt: at,
  })),
  userTags: [],
  oauthProviders: [],
  createdAt: at,
  updatedAt: at,
  mfaPolicies: [],
});
const policy = (policyName: string, consensus: string): Policy => ({
  policyId: `id-${policyName}`,
  policyName,
  effect: 'EFFECT_ALLOW',
  condition: "activity.resource == 'WALLET'",
  consensus,
  time: '',
  notes: '',
  createdAt: at,
  updatedAt: at,
});
const users = Array.from({ length: 12 }, (_, index) => user(`user-${index}`));

function standing(overrides: Partial<StandingInput>) {
  return policyStanding({
    activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
    params: { walletName: 'w', accounts: [] },
    resources: {},
    policies: [],
    users,
    tags: [],
    approverIds: [],
    viewerId: 'user-0',
    rootQuorum: { threshold: 1, userIds: ['root'] },
    nowMs: Date.UTC(2026, 0, 5, 12),
    ...overrides,
  });
}

/** Every triple of the credentials (about 30³ steps for three approvers, within one evaluation's budget), then four approvers. */
const TRIPLES = 'credentials.all(a, credentials.all(b, credentials.all(c, true))) && approvers.count() >= 4';
const ENGINE_WORDS = /MissingField|TypeError|IndexOutOfRange|TooCostly|\(at \d+:\d+\)/;

describe('policy evaluation has no work bound', () => {
  it('the search for what consensus still needs stays within one decision’s budget, and says in words when it runs out', () => {
    expect(checkPolicyExpression(TRIPLES, 'consensus').ok).toBe(true);
    const costly = policy('triples', TRIPLES);
    // The same reading with nobody to search among: what the standing costs besides the search.
    const { steps: withoutSearch } = countingSteps(() => standing({ policies: [costly], users: [] }));
    const { result, steps } = countingSteps(() => standing({ policies: [costly] }));
    // 298 sets of one to three users tried, each evaluation within its own budget: about 7 million steps unbounded. Besides
    // the search, "still to vote" reads the consensus's predicates once per user, a few thousand steps here.
    expect(steps - withoutSearch).toBeLessThanOrEqual(MAX_DECISION_STEPS + MAX_EVALUATION_STEPS);
    expect(result.outcome).toBe('NEEDS_CONSENSUS');
    expect(result.consensusNeeds).toBe('who may still vote is too costly to work out for "triples"; the root quorum can still approve');
    expect(result.consensusNeeds).not.toMatch(ENGINE_WORDS);
    expect(result.viewerCanApprove).toBe(false);
  });

  it('an ordinary consensus over the same users reads as before', () => {
    const { result, steps } = countingSteps(() => standing({ policies: [policy('two', 'approvers.count() >= 2')], approverIds: ['user-1'] }));
    expect(result.consensusNeeds).toBe('needs 1 more approver from user-0, user-2, user-3, user-4 and 7 more (policy "two")');
    expect(result.viewerCanApprove).toBe(true);
    expect(steps).toBeLessThan(MAX_EVALUATION_STEPS);
  });
});
