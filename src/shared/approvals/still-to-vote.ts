/**
 * Who may still vote on an activity waiting for votes, and why: members of the root quorum (whose approvals alone
 * can complete anything), and users a policy's consensus names, by id or by one of their tags, for the allow
 * policies whose condition does not rule the activity out. Those who already voted in the open window are left out.
 */
import { evaluatePolicyExpression, policyActivityOf, tokenize, type PolicyActivity } from '../policy';
import type { OrganizationLookup } from '../describe/types';
import type { Voter } from './voting';

export interface PossibleVoter {
  userId: string;
  userName: string;
  /** "root quorum member", "named by policy Ops may sign"… */
  reasons: string[];
}

export function stillToVote(
  activity: { type: string; intent: Readonly<Record<string, unknown>> },
  voters: readonly Voter[],
  lookup: OrganizationLookup,
): PossibleVoter[] {
  // An expired approval does not count: that voter may approve again.
  const voted = new Set(voters.filter((voter) => voter.selection === 'rejected' || !voter.expired).map((voter) => voter.userId));
  const reasons = new Map<string, string[]>();
  const add = (userId: string, reason: string) => {
    if (voted.has(userId)) return;
    reasons.set(userId, [...(reasons.get(userId) ?? []), reason]);
  };
  for (const userId of lookup.rootQuorum?.userIds ?? []) add(userId, 'root quorum member');
  for (const policy of lookup.policies ?? []) {
    if (policy.effect !== 'EFFECT_ALLOW' || policy.consensus.trim() === '' || !mayApply(policy.condition, activity)) continue;
    const named = literalsOf(policy.consensus);
    for (const user of lookup.users ?? []) {
      if (named.has(user.userId) || user.userTags.some((tagId) => named.has(tagId))) add(user.userId, `named by policy ${policy.policyName}`);
    }
  }
  return [...reasons].map(([userId, why]) => ({
    userId,
    userName: lookup.users?.find((user) => user.userId === userId)?.userName ?? userId,
    reasons: why,
  }));
}

/** False only when the condition, read against the activity alone, is false; other roots it reads leave it open. */
function mayApply(condition: string, activity: { type: string; intent: Readonly<Record<string, unknown>> }): boolean {
  const member = Object.values(activity.intent)[0];
  let policyActivity: PolicyActivity;
  try {
    policyActivity = policyActivityOf(activity.type, typeof member === 'object' && member !== null ? (member as Record<string, unknown>) : {});
  } catch {
    // A type the policy engine does not classify: the policy may still apply.
    return true;
  }
  const result = evaluatePolicyExpression(condition, 'condition', { activity: policyActivity });
  return !result.ok || result.value;
}

/** The string literals of an expression: the user and tag ids a consensus names. */
function literalsOf(expression: string): Set<string> {
  try {
    return new Set(tokenize(expression).flatMap((token) => (token.kind === 'string' ? [token.value] : [])));
  } catch {
    return new Set();
  }
}
