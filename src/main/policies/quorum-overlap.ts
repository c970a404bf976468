/**
 * When the people the policies ask to approve are also enough for the root quorum, the policies protect nothing
 * against them: whatever a policy asks or denies, those people together approve it as the root quorum
 * (docs/architecture.md#when-the-policies-protect-nothing).
 *
 * The rule: a user is "asked for" by the policies when their approval counts toward the consensus of an ALLOW policy
 * through a term that names them or a tag of theirs (`approvers.any(v, v.id == …)`, `approvers.filter(v,
 * v.tags.contains(…)).count() >= n`). A consensus that counts any approver (`approvers.count() >= 2`) asks for nobody in
 * particular and is left out. It is said when the root quorum members among the asked-for users reach the root quorum's
 * threshold. A 1-of-n root quorum is said as soon as one asked-for user is a member: that one person approves anything
 * alone.
 */
import { approverTerms, checkPolicyExpression, termsCountingApproval } from '../../shared/policy';
import type { OrganizationLookup } from '../../shared/describe/types';
import { visibleText } from '../../shared/visible-text';
import { credentialsOf, policyUserOf } from '../approvals/possible-voters';

/** The sentence the Policies and Users screens show, or undefined when the root quorum needs someone the policies do not ask for. */
export function rootQuorumOverlap(lookup: Pick<OrganizationLookup, 'users' | 'tags' | 'rootQuorum' | 'policies'>): string | undefined {
  const quorum = lookup.rootQuorum;
  if (quorum === undefined) return undefined;
  const asked = askedForByPolicies(lookup);
  const overlap = quorum.userIds.filter((userId) => asked.has(userId));
  if (overlap.length === 0 || overlap.length < quorum.threshold) return undefined;
  const nameOf = (userId: string) => visibleText(lookup.users?.find((user) => user.userId === userId)?.userName ?? userId);
  const names = namesInWords(overlap.map(nameOf));
  const them = overlap.length === 1 ? names : overlap.length <= 3 ? `those ${['two', 'three'][overlap.length - 2]!}` : 'them';
  const approve = overlap.length === 1 ? `${names} can approve anything alone` : 'together they can approve anything';
  const sameSet = overlap.length === quorum.userIds.length && asked.size === overlap.length;
  const lead = sameSet
    ? `The root quorum is ${names}, the same ${overlap.length === 1 ? 'person' : 'people'} the policies ask for`
    : `${names}, whom the policies ask to approve, ${overlap.length === 1 ? 'meets' : 'can together meet'} the root quorum (${quorum.threshold} of ${namesInWords(quorum.userIds.map(nameOf))})`;
  return `${lead}: the policies protect nothing against ${them} — ${approve} as the root quorum.`;
}

/** Users whose approval counts toward an ALLOW policy's consensus through a term naming them or one of their tags. */
function askedForByPolicies(lookup: Pick<OrganizationLookup, 'users' | 'policies'>): Set<string> {
  const asked = new Set<string>();
  for (const policy of lookup.policies ?? []) {
    if (policy.effect !== 'EFFECT_ALLOW' || policy.consensus.trim() === '') continue;
    const consensus = checkPolicyExpression(policy.consensus, 'consensus');
    // A consensus that does not parse allows nothing, so it asks for nobody.
    if (!consensus.ok) continue;
    const naming = approverTerms(consensus.ast).filter((term) => term.selects?.kind === 'user' || term.selects?.kind === 'tag');
    if (naming.length === 0) continue;
    for (const user of lookup.users ?? []) {
      if (termsCountingApproval(naming, policyUserOf(user), credentialsOf(user)).length > 0) asked.add(user.userId);
    }
  }
  return asked;
}

/** "Ann", "Ann and Bea", "Ann, Bea and Cy". */
function namesInWords(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}
