/**
 * Who may still vote on an activity waiting for votes, and why: members of the root quorum (whose approvals alone
 * can complete anything), and users whose approval would count toward the consensus of an allow policy whose
 * condition does not rule the activity out, read by evaluating that consensus for each user (a comprehension over the
 * approvers whose predicate holds for them or over the credentials whose predicate holds for one of theirs, or a count
 * of every approver). A policy whose time window does not hold now (as main reports it) cannot allow anything now, so
 * its voters are not listed for it. Those who already voted in the open window are left out.
 *
 * Here a policy's condition is read against the activity alone; for a signing request, whose conditions read the
 * decoded transaction, main's policy standing names the voters from its own verdict (see possibleVoters).
 */
import {
  TRANSACTION_ROOTS,
  absentKeywordOf,
  approverTerms,
  checkPolicyExpression,
  evaluatePolicyExpression,
  policyActivityOf,
  termsCountingApproval,
  type ApproverTerm,
  type KnownCredential,
  type PolicyActivity,
  type PolicyUser,
} from '../policy';
import type { CredentialFacts, OrganizationLookup, PolicyFacts, UserFacts } from '../describe/types';
import { possessive } from '../describe/words';
import type { Voter } from './voting';

export interface PossibleVoter {
  userId: string;
  userName: string;
  /** "root quorum member", "counts toward policy Ops may sign's consensus (2 users tagged Ops)"… */
  reasons: string[];
}

export function stillToVote(
  activity: { type: string; intent: Readonly<Record<string, unknown>> },
  voters: readonly Voter[],
  lookup: OrganizationLookup,
): PossibleVoter[] {
  // An expired approval does not count: that voter may approve again.
  const voted = new Set(voters.filter((voter) => voter.selection === 'rejected' || !voter.expired).map((voter) => voter.userId));
  const applicable = (lookup.policies ?? []).filter((policy) => policy.activeNow !== false && mayApply(policy.condition, activity));
  return possibleVoters(applicable, voted, lookup);
}

/**
 * Who may still vote, given the policies that apply to the activity: root quorum members, and users whose approval
 * counts toward the consensus of one of the ALLOW policies among `applicable`. The caller decides which policies
 * apply: main's policy standing passes exactly those its verdict found waiting for consensus, so a vote is never said
 * to count toward a policy the verdict did not match.
 */
export function possibleVoters(
  applicable: readonly Pick<PolicyFacts, 'policyName' | 'effect' | 'consensus'>[],
  voted: ReadonlySet<string>,
  lookup: Pick<OrganizationLookup, 'users' | 'tags' | 'rootQuorum'>,
): PossibleVoter[] {
  const reasons = new Map<string, string[]>();
  const add = (userId: string, reason: string) => {
    if (voted.has(userId)) return;
    reasons.set(userId, [...(reasons.get(userId) ?? []), reason]);
  };
  for (const userId of lookup.rootQuorum?.userIds ?? []) add(userId, 'root quorum member');
  for (const policy of applicable) {
    if (policy.effect !== 'EFFECT_ALLOW' || policy.consensus.trim() === '') continue;
    const consensus = checkPolicyExpression(policy.consensus, 'consensus');
    // A consensus that does not parse allows nothing, so nobody's vote counts toward it.
    if (!consensus.ok) continue;
    const terms = approverTerms(consensus.ast);
    for (const user of lookup.users ?? []) {
      const counted = termsCountingApproval(terms, policyUserOf(user), credentialsOf(user));
      if (counted.length > 0) add(user.userId, countsToward(policy.policyName, counted, lookup));
    }
  }
  return [...reasons].map(([userId, why]) => ({
    userId,
    userName: lookup.users?.find((user) => user.userId === userId)?.userName ?? userId,
    reasons: why,
  }));
}

/** The user as a consensus sees them; without an email, a predicate on it says nothing for them. */
function policyUserOf(user: UserFacts): PolicyUser {
  return { id: user.userId, tags: user.userTags, alias: user.userName, ...(user.userEmail === undefined ? {} : { email: user.userEmail }) };
}

/** The credentials the user may approve with, as a consensus sees them; a type or key the lookup lacks says nothing. */
function credentialsOf(user: UserFacts): KnownCredential[] {
  const known = ({ credentialType, publicKey }: CredentialFacts) => ({
    ...(credentialType === undefined ? {} : { type: credentialType }),
    ...(publicKey === undefined ? {} : { public_key: publicKey }),
  });
  return [
    ...user.apiKeys.map((key) => ({ id: key.apiKeyId, user_id: user.userId, ...known(key) })),
    ...user.authenticators.map((authenticator) => ({ id: authenticator.authenticatorId, user_id: user.userId, ...known(authenticator) })),
  ];
}

/** "counts toward policy X's consensus (2 users tagged Ops)" where the terms say how many of whom; else without. */
function countsToward(policyName: string, terms: readonly ApproverTerm[], lookup: Pick<OrganizationLookup, 'users' | 'tags'>): string {
  const described = [...new Set(terms.flatMap((term) => termInWords(term, lookup) ?? []))];
  return described.length === 0
    ? `counts toward policy ${policyName}`
    : `counts toward policy ${possessive(policyName)} consensus (${described.join('; ')})`;
}

function termInWords({ atLeast, selects }: ApproverTerm, lookup: Pick<OrganizationLookup, 'users' | 'tags'>): string | undefined {
  if (atLeast === undefined || selects === undefined) return undefined;
  switch (selects.kind) {
    case 'everyone':
      return atLeast === 1n ? 'any user' : `any ${atLeast} users`;
    case 'tag': {
      const tagName = lookup.tags?.find((tag) => tag.tagId === selects.tagId)?.tagName ?? selects.tagId;
      return `${atLeast === 1n ? 'a user' : `${atLeast} users`} tagged ${tagName}`;
    }
    case 'user': {
      const userName = lookup.users?.find((user) => user.userId === selects.userId)?.userName ?? selects.userId;
      return `${userName}, named by id`;
    }
  }
}

/**
 * Whether the condition, read against the activity alone, may apply: true or false as it evaluates; when it cannot
 * be evaluated, open only if it read what the activity alone lacks and the service reads beside it (the wallet or
 * key it names, the transaction a signing activity signs). Any other failure is the service's too, and a policy whose
 * condition cannot be evaluated does not apply.
 */
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
  if (result.ok) return result.value;
  const keyword = absentKeywordOf(result.error.details ?? {});
  return keyword !== undefined && (policyActivity.action === 'SIGN' || !Object.hasOwn(TRANSACTION_ROOTS, keyword));
}
