/**
 * The search of who may vote (docs/service.md#who-may-vote), over inputs read from the store beforehand: pure, so it
 * runs the same on the service's event loop and on a policy worker (policy-jobs.ts).
 */
import {
  consensusContextOf,
  policyFieldHolds,
  ranOutOfSteps,
  timeContextAt,
  type EnginePolicy,
  type PolicyContext,
  type PolicyCredential,
  type PolicyUser,
  type StepBudget,
} from '../../shared/policy';

/** Whether a user may vote, and when not, the policies whose search for who may vote ran out of steps. */
export type VoteEligibility = { eligible: true } | { eligible: false; tooCostly: string[] };

/** A user of the organization as the search reads them: as if approving with every credential they hold. */
export interface SearchedUser {
  user: PolicyUser;
  credentials: PolicyCredential[];
}

/** What the search for whether `userId` may vote reads, all of it plain data. */
export interface EligibilitySearch {
  /** A user of the organization outside the root quorum. */
  userId: string;
  /** Every user of the organization, `userId` among them, in the store's order. */
  users: SearchedUser[];
  /** The organization's policies, in their order. */
  policies: EnginePolicy[];
  /** The activity's condition context. */
  condition: PolicyContext;
  /** `time.now` of the policies' time expressions (epoch ms). */
  now: number;
}

/**
 * Whether `search.userId`'s approval can make a difference to the consensus of an ALLOW policy whose condition
 * matches, active at `now`. The test is behavioural, not textual: starting from every user of the organization
 * approving, drop the others one by one while the consensus still holds; the user counts when the consensus fails
 * without them in the smallest set that remains. The search evaluates a consensus up to once per user, so all its
 * evaluations share `budget`; a policy whose search runs out gives no vote (fail safe), is logged, and is named with
 * its id in `tooCostly`.
 */
export function searchVoteEligibility(search: EligibilitySearch, budget: StepBudget, log: (line: string) => void): VoteEligibility {
  const { userId } = search;
  const time = timeContextAt(search.now);
  const everyone = search.users.map(({ user }) => user.id);
  const usersById = new Map(search.users.map((searched) => [searched.user.id, searched]));
  const consensusOf = (ids: readonly string[]): PolicyContext =>
    consensusContextOf(ids.flatMap((id) => usersById.get(id)!.credentials.map((credential) => ({ user: usersById.get(id)!.user, credential }))));
  /** A field's truth within the shared budget; undefined once the budget is spent, when the search cannot tell. */
  const holds = (result: ReturnType<typeof policyFieldHolds>): boolean | undefined => (ranOutOfSteps(result) ? undefined : result === true);
  const consensusHoldsFor = (policy: EnginePolicy, ids: readonly string[]): boolean | undefined =>
    holds(policyFieldHolds(policy.consensus, 'consensus', consensusOf(ids), budget));
  /** Whether the user's approval makes a difference to `policy`; undefined when the budget runs out first. */
  const userCounts = (policy: EnginePolicy): boolean | undefined => {
    if (policy.effect !== 'EFFECT_ALLOW' || policy.consensus.trim() === '') return false;
    const applies =
      holds(policyFieldHolds(policy.time, 'time', time, budget)) && holds(policyFieldHolds(policy.condition, 'condition', search.condition, budget));
    if (applies !== true) return applies;
    let set = everyone;
    const byEveryone = consensusHoldsFor(policy, set);
    if (byEveryone !== true) return byEveryone;
    for (const other of everyone) {
      if (other === userId) continue;
      const smaller = set.filter((id) => id !== other);
      const held = consensusHoldsFor(policy, smaller);
      if (held === undefined) return undefined;
      if (held) set = smaller;
    }
    const withoutUser = consensusHoldsFor(
      policy,
      set.filter((id) => id !== userId),
    );
    return withoutUser === undefined ? undefined : !withoutUser;
  };
  const tooCostly: string[] = [];
  for (const policy of search.policies) {
    const counts = userCounts(policy);
    if (counts === true) return { eligible: true };
    if (counts === undefined) {
      log(`policy ${policy.id} (${policy.name}): working out who may vote on this activity took more than ${budget.limit} steps; it gives no vote`);
      tooCostly.push(policy.id);
    }
  }
  return { eligible: false, tooCostly };
}
