/**
 * Where the organization's policies stand on a signing request, worked out in main with the shared policy engine the
 * service authorizes with: which policies match (name and effect), whether they allow, deny or wait for votes, and
 * what the consensus still needs ("needs 1 more approver tagged ops"), including whether the viewer's vote helps.
 *
 * The service decides; this is a reading of the same rules over the same data (policies, users, tags, votes), for
 * people to see before they vote. It follows the service's order: an explicit DENY wins, then an ALLOW whose
 * consensus holds, then an ALLOW short of consensus waits; a policy that cannot be evaluated counts as not matching.
 */
import type { Policy, Tag, User } from '../../shared/api';
import { possibleVoters, type PossibleVoter } from '../approvals/possible-voters';
import type { KnownToken } from '../../shared/clear-signing/types';
import type { OrganizationLookup } from '../../shared/describe';
import type { PolicyWhyView } from '../../shared/ipc/policy-words';
import { quotedText, visibleText } from '../../shared/visible-text';
import { policyNamesOf, policyWhyView } from '../policies/policy-words';
import type { OrganizationSnapshot } from './organization';
import {
  absentKeywordOf,
  approverTerms,
  checkPolicyExpression,
  evaluate,
  explainOutcomes,
  failureInWords,
  MAX_DECISION_STEPS,
  policyActivityOf,
  StepBudget,
  timeContextAt,
  type DecisionToExplain,
  type PolicyOutcome as EngineOutcome,
  type PolicyContext,
  type PolicyCredential,
  type PolicyExpressionKind,
  type PolicyUser,
} from '../../shared/policy';

export type PolicyOutcome = 'ALLOW' | 'DENY' | 'NEEDS_CONSENSUS' | 'NO_POLICY';

export interface MatchedPolicy {
  policyId: string;
  policyName: string;
  effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';
  /** This policy's own verdict: it allows now, denies, or waits for more approvals. */
  outcome: 'ALLOW' | 'DENY' | 'NEEDS_CONSENSUS';
}

export interface PolicyStanding {
  outcome: PolicyOutcome;
  matchedPolicies: MatchedPolicy[];
  /**
   * Policies whose expressions could not be evaluated for this request, why in words (they do not apply). A policy
   * reading a transaction or keyword the request does not have is not listed: it plainly does not apply.
   */
  failedPolicies: { policyId: string; policyName: string; reason: string }[];
  /** "needs 1 more approver tagged ops"; absent when nothing more is needed or nothing can allow it. */
  consensusNeeds?: string;
  /** The fewest more approvals that would let it run, where the search could tell (its words are consensusNeeds). */
  missingApprovals?: number;
  /** Whether the viewer's approval would count toward what is still needed. */
  viewerCanApprove: boolean;
  /** Set when the approvals so far already decide it: the root quorum's, or a policy's. */
  decidedBy?: 'root quorum' | 'policy';
  /** Every policy's own verdict, in the organization's order (the policy editor's dry run). */
  evaluations: PolicyVerdict[];
  /**
   * Who may still vote and why, from this same evaluation: root quorum members, and users whose vote counts toward a
   * policy the verdict found waiting for consensus. Empty once the request is decided.
   */
  stillToVote: PossibleVoter[];
  /** For a denial or a wait: which part of which policy decided, with the values it read (a second pass). */
  why: PolicyWhyView[];
}

export interface PolicyVerdict {
  policyId: string;
  policyName: string;
  effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';
  verdict: 'allow' | 'deny' | 'needs consensus' | 'not applicable' | 'inactive';
  reason?: string;
}

/** What the standing reads of a policy: a saved one, or one of a draft. */
export type StandingPolicy = Pick<Policy, 'policyId' | 'policyName' | 'effect' | 'condition' | 'consensus'> & { time?: string | undefined };

export interface StandingInput {
  activityType: string;
  /** The intent's parameters as submitted. */
  params: Record<string, unknown>;
  /** Condition keywords of the request besides `activity`: wallet / wallet_account / private_key, eth / solana / bitcoin. */
  resources: PolicyContext;
  policies: readonly StandingPolicy[];
  users: readonly User[];
  tags: readonly Tag[];
  /** Users whose approvals count now. */
  approverIds: readonly string[];
  /** The person looking at the card. */
  viewerId: string;
  rootQuorum: { threshold: number; userIds: readonly string[] } | undefined;
  nowMs: number;
  /** Names for the ids and tokens for the amounts of the policies' parts that explain a denial or a wait. */
  names?: OrganizationLookup;
}

/** A request as `standingIn` reads it: the organization's part comes from the snapshot. */
export type StandingRequest = Pick<StandingInput, 'activityType' | 'params' | 'resources' | 'approverIds' | 'nowMs'> & {
  declaredTokens?: readonly KnownToken[];
};

/**
 * The standing of a request against the organization as `snapshot` read it, the viewer being who read it, under its
 * policies or the `policies` given instead (a draft applied to them).
 */
export function standingIn(
  snapshot: OrganizationSnapshot,
  request: StandingRequest,
  policies: readonly StandingPolicy[] = snapshot.policies,
): PolicyStanding {
  const { users, tags, viewer, rootQuorum } = snapshot;
  const { declaredTokens, ...standing } = request;
  return policyStanding({
    ...standing,
    policies,
    users,
    tags,
    viewerId: viewer.userId,
    rootQuorum,
    names: policyNamesOf(snapshot, declaredTokens ?? []),
  });
}

/** Beyond this many extra approvers the search for "what is still needed" stops and says so in general words. */
const MAX_EXTRA_APPROVERS = 3;
/**
 * Bounds the combinations tried (users choose k), so an organization with many users still answers at once; and all
 * the consensus evaluations of one standing's search share one budget of MAX_DECISION_STEPS, so a costly consensus
 * cannot multiply its cost by the combinations.
 */
const MAX_COMBINATIONS = 20_000;

export function policyStanding(input: StandingInput): PolicyStanding {
  const conditionContext: PolicyContext = { ...input.resources, activity: policyActivityOf(input.activityType, input.params) };
  const timeContext = timeContextAt(input.nowMs);
  const consensusContext = consensusContextFor(input);
  const consensus: ConsensusCheck = (policy, approverIds, budget) => holds(policy.consensus, 'consensus', consensusContext(approverIds), budget);
  const approvers = unique(input.approverIds);

  const matchedPolicies: MatchedPolicy[] = [];
  const failedPolicies: PolicyStanding['failedPolicies'] = [];
  const waiting: StandingPolicy[] = [];
  const evaluations: PolicyVerdict[] = [];
  // The engine's outcome of each, for the second pass: a failed field is explained as the failure it is.
  const engineOutcomes: EngineOutcome[] = [];
  for (const policy of input.policies) {
    const verdictOf = (verdict: PolicyVerdict['verdict'], reason?: string, engineOutcome: EngineOutcome = ENGINE_OUTCOMES[verdict]) => {
      evaluations.push({
        policyId: policy.policyId,
        policyName: policy.policyName,
        effect: policy.effect,
        verdict,
        ...(reason === undefined ? {} : { reason }),
      });
      engineOutcomes.push(engineOutcome);
    };
    const time = holds(policy.time ?? '', 'time', timeContext);
    const condition = holds(policy.condition, 'condition', conditionContext);
    const agreed = consensus(policy, approvers);
    const failure = [time, condition, agreed].find((value): value is FieldFailure => typeof value !== 'boolean');
    if (failure !== undefined) {
      // As in the service's decision, a policy a field of which cannot be evaluated does not apply.
      const reason = failureInWords(failure.details, failure.kind);
      if (absentKeywordOf(failure.details) === undefined) failedPolicies.push({ policyId: policy.policyId, policyName: policy.policyName, reason });
      verdictOf('not applicable', reason, 'OUTCOME_ERROR');
      continue;
    }
    if (time !== true) {
      verdictOf('inactive', 'its time expression does not hold now');
      continue;
    }
    if (condition !== true) {
      verdictOf('not applicable', 'its condition does not match this request');
      continue;
    }
    if (policy.effect === 'EFFECT_DENY' && agreed !== true) {
      // The service's rule: a DENY applies only when its consensus holds too.
      verdictOf('not applicable', 'its condition matches but its consensus does not hold, so it does not deny');
      continue;
    }
    const outcome = policy.effect === 'EFFECT_DENY' ? 'DENY' : agreed === true ? 'ALLOW' : 'NEEDS_CONSENSUS';
    matchedPolicies.push({ policyId: policy.policyId, policyName: policy.policyName, effect: policy.effect, outcome });
    verdictOf(outcome === 'ALLOW' ? 'allow' : outcome === 'DENY' ? 'deny' : 'needs consensus');
    if (policy.effect === 'EFFECT_ALLOW' && agreed !== true) waiting.push(policy);
  }

  const rootMembers = new Set(input.rootQuorum?.userIds ?? []);
  const rootApprovals = approvers.filter((userId) => rootMembers.has(userId)).length;
  const rootQuorumReached = input.rootQuorum !== undefined && rootApprovals >= input.rootQuorum.threshold;
  const viewerVoted = approvers.includes(input.viewerId);
  const viewerInRootQuorum = rootMembers.has(input.viewerId);

  // The second pass, only for a denial or a wait: which parts of which policies decided it.
  const why = (decision: DecisionToExplain): PolicyWhyView[] => {
    const byId = new Map(input.policies.map((policy) => [policy.policyId, policy]));
    const outcomes = evaluations.flatMap(({ policyId }, position) => {
      const policy = byId.get(policyId);
      if (policy === undefined) return [];
      const enginePolicy = {
        id: policy.policyId,
        name: policy.policyName,
        effect: policy.effect,
        condition: policy.condition,
        consensus: policy.consensus,
        time: policy.time ?? '',
      };
      return [{ policy: enginePolicy, outcome: engineOutcomes[position]! }];
    });
    const explained = explainOutcomes(decision, outcomes, { condition: conditionContext, consensus: consensusContext(approvers), time: timeContext });
    return policyWhyView(explained, input.policies, input.names ?? lookupOf(input));
  };
  const decided = { matchedPolicies, failedPolicies, evaluations, stillToVote: [], why: [] };
  if (rootQuorumReached) return { ...decided, outcome: 'ALLOW', decidedBy: 'root quorum', viewerCanApprove: false };
  if (matchedPolicies.some((policy) => policy.outcome === 'DENY'))
    return { ...decided, why: why('explicit-deny'), outcome: 'DENY', decidedBy: 'policy', viewerCanApprove: false };
  if (matchedPolicies.some((policy) => policy.outcome === 'ALLOW'))
    return { ...decided, outcome: 'ALLOW', decidedBy: 'policy', viewerCanApprove: false };
  const base = {
    ...decided,
    stillToVote: possibleVoters(waiting, new Set(approvers), lookupOf(input)),
    why: why(waiting.length > 0 ? 'consensus-needed' : 'implicit-deny'),
  };

  const searchBudget = new StepBudget(MAX_DECISION_STEPS);
  const needs = waiting.map((policy) => whatConsensusNeeds(policy, approvers, input, consensus, searchBudget));
  const reachable = needs.filter((need): need is Need => typeof need === 'object').sort((a, b) => a.count - b.count);
  const tooCostly = waiting.filter((_, position) => needs[position] === TOO_COSTLY);
  const viewerHelps = !viewerVoted && (viewerInRootQuorum || reachable.some((need) => need.viewerCompletes));
  if (waiting.length > 0) {
    const best = reachable[0];
    return {
      ...base,
      outcome: 'NEEDS_CONSENSUS',
      ...(best === undefined ? {} : { missingApprovals: best.count }),
      consensusNeeds:
        best !== undefined
          ? best.words
          : tooCostly.length > 0
            ? `who may still vote is too costly to work out for ${quoteNames(tooCostly)}; the root quorum can still approve`
            : `no set of up to ${MAX_EXTRA_APPROVERS} more approvers of this organization satisfies the consensus of ${quoteNames(waiting)}; the root quorum can still approve`,
      viewerCanApprove: viewerHelps,
    };
  }
  if (input.rootQuorum === undefined) return { ...base, outcome: 'NO_POLICY', viewerCanApprove: false };
  const missing = input.rootQuorum.threshold - rootApprovals;
  return {
    ...base,
    outcome: 'NO_POLICY',
    missingApprovals: missing,
    consensusNeeds: `no policy allows it: needs ${missing} more root quorum ${missing === 1 ? 'approval' : 'approvals'}`,
    viewerCanApprove: !viewerVoted && viewerInRootQuorum,
  };
}

/** The organization as the voter reasons read it: users with their credentials, tags and the root quorum. */
function lookupOf({ users, tags, rootQuorum }: StandingInput): Pick<OrganizationLookup, 'users' | 'tags' | 'rootQuorum'> {
  return {
    users: users.map((user) => ({
      userId: user.userId,
      userName: user.userName,
      ...(user.userEmail === undefined ? {} : { userEmail: user.userEmail }),
      userTags: user.userTags,
      apiKeys: user.apiKeys.map((key) => ({
        apiKeyId: key.apiKeyId,
        apiKeyName: key.apiKeyName,
        credentialType: key.credential.type,
        publicKey: key.credential.publicKey,
      })),
      authenticators: user.authenticators.map((authenticator) => ({
        authenticatorId: authenticator.authenticatorId,
        authenticatorName: authenticator.authenticatorName,
        credentialType: authenticator.credential.type,
        publicKey: authenticator.credential.publicKey,
      })),
      oauthProviders: [],
    })),
    tags: tags.map(({ tagId, tagName }) => ({ tagId, tagName })),
    rootQuorum,
  };
}

interface Need {
  count: number;
  words: string;
  /** The viewer is one of the approvers in some smallest completing set. */
  viewerCompletes: boolean;
}

type ConsensusCheck = (policy: StandingPolicy, approverIds: readonly string[], budget?: StepBudget) => boolean | FieldFailure;

/** What a search for the approvers a consensus still needs found when its budget ran out before it could tell. */
const TOO_COSTLY = 'too costly';

const ENGINE_OUTCOMES: Record<PolicyVerdict['verdict'], EngineOutcome> = {
  allow: 'OUTCOME_ALLOW',
  deny: 'OUTCOME_DENY_EXPLICIT',
  'needs consensus': 'OUTCOME_REQUIRES_CONSENSUS',
  'not applicable': 'OUTCOME_NOT_APPLICABLE',
  inactive: 'OUTCOME_TIME_INACTIVE',
};

/** What a consensus reads as if `approverIds` had approved, each with every credential they hold. */
function consensusContextFor(input: StandingInput): (approverIds: readonly string[]) => PolicyContext {
  const usersById = new Map(input.users.map((user) => [user.userId, user]));
  const policyUser = (userId: string): PolicyUser => {
    const user = usersById.get(userId);
    return {
      id: userId,
      tags: user?.userTags ?? [],
      ...(user?.userEmail === undefined ? {} : { email: user.userEmail }),
      ...(user === undefined ? {} : { alias: user.userName }),
    };
  };
  // Every credential the user could approve with: API keys and passkeys alike.
  const credentials = (userId: string): PolicyCredential[] => {
    const user = usersById.get(userId);
    return [
      ...(user?.apiKeys ?? []).map((key) => ({ id: key.apiKeyId, credential: key.credential })),
      ...(user?.authenticators ?? []).map((authenticator) => ({ id: authenticator.authenticatorId, credential: authenticator.credential })),
    ].map(({ id, credential }) => ({ id, user_id: userId, type: credential.type, public_key: credential.publicKey }));
  };
  return (approverIds) => ({ approvers: approverIds.map(policyUser), credentials: approverIds.flatMap(credentials) });
}

/**
 * The fewest more approvers that make `policy`'s consensus hold, described with the tag they share, if any; TOO_COSTLY
 * when `budget` runs out before the search can tell.
 */
function whatConsensusNeeds(
  policy: StandingPolicy,
  approvers: readonly string[],
  input: StandingInput,
  consensus: ConsensusCheck,
  budget: StepBudget,
): Need | typeof TOO_COSTLY | undefined {
  const candidates = input.users.map((user) => user.userId).filter((userId) => !approvers.includes(userId));
  for (let count = 1; count <= Math.min(MAX_EXTRA_APPROVERS, candidates.length); count += 1) {
    const completing: string[][] = [];
    let tried = 0;
    for (const extra of combinations(candidates, count)) {
      if ((tried += 1) > MAX_COMBINATIONS) break;
      const held = consensus(policy, [...approvers, ...extra], budget);
      if (held === true) completing.push(extra);
      else if (held !== false && held.details['shared'] === true) return TOO_COSTLY;
    }
    if (completing.length === 0) continue;
    const helpers = unique(completing.flat());
    return {
      count,
      words: `needs ${count} more ${count === 1 ? 'approver' : 'approvers'} ${whoInWords(helpers, policy, input)} (policy ${quotedText(policy.policyName)})`,
      viewerCompletes: helpers.includes(input.viewerId),
    };
  }
  return undefined;
}

/** "tagged ops" when every user who can complete it carries a tag the consensus selects approvers by; else their names. */
function whoInWords(helpers: readonly string[], policy: StandingPolicy, input: StandingInput): string {
  const usersById = new Map(input.users.map((user) => [user.userId, user]));
  const checked = checkPolicyExpression(policy.consensus, 'consensus');
  const selected = new Set(
    checked.ok ? approverTerms(checked.ast).flatMap((term) => (term.selects?.kind === 'tag' ? [term.selects.tagId] : [])) : [],
  );
  const named = input.tags.filter((tag) => selected.has(tag.tagId));
  const shared = named.filter((tag) => helpers.every((userId) => usersById.get(userId)?.userTags.includes(tag.tagId) === true));
  if (shared.length > 0) return `tagged ${shared.map((tag) => visibleText(tag.tagName)).join(' and ')}`;
  const names = helpers.map((userId) => visibleText(usersById.get(userId)?.userName ?? userId));
  const shown = names.slice(0, 4).join(', ');
  return `from ${shown}${names.length > 4 ? ` and ${names.length - 4} more` : ''}`;
}

function* combinations<T>(items: readonly T[], size: number, start = 0): Generator<T[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let index = start; index <= items.length - size; index += 1) {
    for (const rest of combinations(items, size - 1, index + 1)) yield [items[index]!, ...rest];
  }
}

/** Which field of a policy could not be evaluated, and the failure's details (what `failureInWords` reads). */
interface FieldFailure {
  kind: PolicyExpressionKind;
  details: Readonly<Record<string, unknown>>;
}

/**
 * true / false, or why it could not be evaluated. Empty text imposes no constraint, as in the service. With a
 * `budget`, the evaluation is one of a search's and spends from it.
 */
function holds(text: string, kind: PolicyExpressionKind, context: PolicyContext, budget?: StepBudget): boolean | FieldFailure {
  if (text.trim() === '') return true;
  const checked = checkPolicyExpression(text, kind);
  if (!checked.ok) return { kind, details: checked.error.details ?? {} };
  const result = evaluate(checked.ast, context, budget);
  return result.ok ? result.value : { kind, details: result.error.details ?? {} };
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

function quoteNames(policies: readonly StandingPolicy[]): string {
  return policies.map((policy) => quotedText(policy.policyName)).join(', ');
}
