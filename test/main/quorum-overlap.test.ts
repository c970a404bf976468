/**
 * "The policies protect nothing": said when the users the ALLOW policies' consensus names (by id or by tag) are
 * enough for the root quorum, and only then.
 */
import { describe, expect, it } from 'vitest';
import { rootQuorumOverlap } from '../../src/main/policies/quorum-overlap';
import type { PolicyFacts, UserFacts } from '../../src/shared/describe/types';

const user = (userId: string, userName: string, userTags: string[] = []): UserFacts => ({
  userId,
  userName,
  userTags,
  apiKeys: [],
  authenticators: [],
  oauthProviders: [],
});
const ann = user('u-ann', 'Ann', ['tag-ops']);
const bea = user('u-bea', 'Bea', ['tag-ops']);
const cy = user('u-cy', 'Cy');
const dan = user('u-dan', 'Dan');
const tags = [{ tagId: 'tag-ops', tagName: 'Operators' }];

const policy = (policyName: string, consensus: string, effect = 'EFFECT_ALLOW'): PolicyFacts => ({
  policyId: policyName,
  policyName,
  effect,
  condition: "activity.resource == 'WALLET'",
  consensus,
  notes: '',
});
/** "USDC up to 1,000: one operator" and "USDC above 1,000: both operators", by tag and by name. */
const oneOperator = policy('up to 1,000: one operator', "approvers.any(v, v.tags.contains('tag-ops'))");
const bothOperators = policy('above 1,000: both operators', "approvers.any(v, v.id == 'u-ann') && approvers.any(v, v.id == 'u-bea')");
const anyTwo = policy('any two', 'approvers.count() >= 2');

function overlap(rootQuorum: { userIds: string[]; threshold: number } | undefined, policies: PolicyFacts[], users = [ann, bea, cy, dan]) {
  return rootQuorumOverlap({ users, tags, rootQuorum, policies });
}

describe('rootQuorumOverlap', () => {
  it('says it when the root quorum is exactly the two operators the policies ask for', () => {
    expect(overlap({ userIds: ['u-ann', 'u-bea'], threshold: 2 }, [oneOperator, bothOperators])).toBe(
      'The root quorum is Ann and Bea, the same people the policies ask for: the policies protect nothing against those two — together they can approve anything as the root quorum.',
    );
  });

  it('does not say it when the root quorum also needs a third user the policies do not ask for', () => {
    expect(overlap({ userIds: ['u-ann', 'u-bea', 'u-cy'], threshold: 3 }, [oneOperator, bothOperators])).toBeUndefined();
  });

  it('says it when the asked-for users reach a threshold below the whole root quorum, naming the quorum', () => {
    expect(overlap({ userIds: ['u-ann', 'u-bea', 'u-cy'], threshold: 2 }, [bothOperators])).toBe(
      'Ann and Bea, whom the policies ask to approve, can together meet the root quorum (2 of Ann, Bea and Cy): the policies protect nothing against those two — together they can approve anything as the root quorum.',
    );
  });

  it('says it of a 1-of-n root quorum as soon as one asked-for user is a member: that one approves anything alone', () => {
    expect(overlap({ userIds: ['u-ann', 'u-dan'], threshold: 1 }, [bothOperators])).toBe(
      'Ann, whom the policies ask to approve, meets the root quorum (1 of Ann and Dan): the policies protect nothing against Ann — Ann can approve anything alone as the root quorum.',
    );
    expect(overlap({ userIds: ['u-cy', 'u-dan'], threshold: 1 }, [bothOperators])).toBeUndefined();
  });

  it('leaves out consensus that names nobody, DENY policies, expressions that do not parse, and an unknown quorum', () => {
    const quorum = { userIds: ['u-ann', 'u-bea'], threshold: 2 };
    expect(overlap(quorum, [anyTwo])).toBeUndefined();
    expect(
      overlap(quorum, [policy('deny both', "approvers.any(v, v.id == 'u-ann') && approvers.any(v, v.id == 'u-bea')", 'EFFECT_DENY')]),
    ).toBeUndefined();
    expect(overlap(quorum, [policy('broken', 'approvers.any(v, v.id ==')])).toBeUndefined();
    expect(overlap(quorum, [policy('no consensus', '')])).toBeUndefined();
    expect(overlap(undefined, [oneOperator, bothOperators])).toBeUndefined();
  });

  it('counts a user asked for by tag as well as by name', () => {
    expect(overlap({ userIds: ['u-ann', 'u-bea'], threshold: 2 }, [oneOperator])).toMatch(/^The root quorum is Ann and Bea, the same people/);
  });
});
