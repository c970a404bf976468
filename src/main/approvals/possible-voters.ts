/**
 * Who may still vote and why, given the policies a verdict found waiting for consensus: members of the root quorum
 * (whose approvals alone can complete anything), and users whose approval would count toward the consensus of one of
 * those ALLOW policies, read by evaluating that consensus for each user (a comprehension over the approvers whose
 * predicate holds for them or over the credentials whose predicate holds for one of theirs, or a count of every
 * approver). Main's policy standing calls it with exactly the policies its verdict found waiting, so a vote is never
 * said to count toward a policy the verdict did not match.
 */
import {
  approverTerms,
  checkPolicyExpression,
  termsCountingApproval,
  type ApproverTerm,
  type KnownCredential,
  type PolicyUser,
} from '../../shared/policy';
import type { CredentialFacts, OrganizationLookup, PolicyFacts, UserFacts } from '../../shared/describe/types';
import { possessive } from '../../shared/describe/words';

export interface PossibleVoter {
  userId: string;
  userName: string;
  /** "root quorum member", "counts toward policy Ops may sign's consensus (2 users tagged Ops)"… */
  reasons: string[];
}

/** Root quorum members and users whose approval counts toward the consensus of an ALLOW policy among `applicable`. */
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
export function policyUserOf(user: UserFacts): PolicyUser {
  return { id: user.userId, tags: user.userTags, alias: user.userName, ...(user.userEmail === undefined ? {} : { email: user.userEmail }) };
}

/** The credentials the user may approve with, as a consensus sees them; a type or key the lookup lacks says nothing. */
export function credentialsOf(user: UserFacts): KnownCredential[] {
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
