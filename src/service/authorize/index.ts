/**
 * Authorization and consensus (docs/service.md#policy-precedence, docs/service.md#consensus): root quorum → allow;
 * otherwise every policy of the organization whose `time` expression holds now is evaluated (the others are skipped) —
 * a matching DENY wins, a matching ALLOW whose consensus holds allows, a user managing its own credentials is allowed,
 * a matching ALLOW still short of consensus (or a root user short of the root threshold) waits for votes.
 */
import {
  conditionContextOf,
  consensusContextOf,
  decide,
  MAX_DECISION_STEPS,
  policyFieldHolds,
  ranOutOfSteps,
  refusedBeforeDecoding as refusedWithoutDecoded,
  StepBudget,
  timeContextAt,
  type Authorization,
  type DecisionRequest,
  type EngineApprover,
  type PolicyContext,
  type PolicyCredential,
  type PolicyUser,
} from '../../shared/policy';
import { QkError } from '../../shared/errors';
import { WEBAUTHN_CREDENTIAL_TYPE } from '../auth/credentials';
import type { Repositories } from '../store';
import type { OrganizationRecord } from '../store/organizations';
import type { PolicyRecord } from '../store/policies';

export type { Authorization, PolicyEvaluation, PolicyOutcome } from '../../shared/policy';

/** A user whose approval counts, with the credential they approved with. */
export interface Approver {
  userId: string;
  credential: PolicyCredential;
}

export interface AuthorizationRequest {
  store: Repositories;
  organization: OrganizationRecord;
  activityType: string;
  /** The intent's parameters as submitted. */
  params: Record<string, unknown>;
  /** Condition keywords the intent names (`wallet`, `private_key`, …), from the family's handler. */
  resources: Record<string, unknown>;
  approvers: readonly Approver[];
  /** The service's clock (epoch ms): `time.now` of the policies' time expressions. */
  now: number;
  log: (line: string) => void;
}

function policyUser(store: Repositories, userId: string): PolicyUser {
  const user = store.users.get(userId);
  return {
    id: userId,
    tags: store.userTags.tagIdsOfUser(userId),
    ...(user?.email === undefined ? {} : { email: user.email }),
    ...(user?.name === undefined ? {} : { alias: user.name }),
  };
}

/** What a condition is evaluated over: the activity and the rows it names. */
export type ConditionRequest = Pick<AuthorizationRequest, 'store' | 'organization' | 'activityType' | 'params' | 'resources'>;

/** The condition context (shared `conditionContextOf`), with `user` read when `params.userId` is of this organization. */
export function conditionContext(request: ConditionRequest): PolicyContext {
  const { store, organization, params } = request;
  const target = typeof params.userId === 'string' ? store.users.get(params.userId) : undefined;
  const targetUser = target?.organizationId === organization.id ? policyUser(store, target.id) : undefined;
  return conditionContextOf(request.activityType, params, request.resources, targetUser);
}

function engineApprovers(store: Repositories, approvers: readonly Approver[]): EngineApprover[] {
  const users = new Map<string, PolicyUser>();
  return approvers.map(({ userId, credential }) => {
    const user = users.get(userId) ?? policyUser(store, userId);
    users.set(userId, user);
    return { user, credential };
  });
}

function isRootUser(store: Repositories, organizationId: string, userId: string): boolean {
  return store.organizations.rootQuorum(organizationId).userIds.includes(userId);
}

/** Whether the policy's time window holds at `now`; a policy without one is always active, one that errs is not. */
export function policyTimeStatus(policy: PolicyRecord, now: number): { active: boolean; error?: string } {
  const held = policyFieldHolds(policy.time, 'time', timeContextAt(now));
  return typeof held === 'boolean' ? { active: held } : { active: false, error: held.message };
}

/** What the shared engine decides over: the organization's stored policies, users and root quorum. */
function decisionRequest(request: AuthorizationRequest): DecisionRequest {
  const { store, organization } = request;
  return {
    policies: store.policies.listByOrganization(organization.id),
    activityType: request.activityType,
    params: request.params,
    condition: conditionContext(request),
    approvers: engineApprovers(store, request.approvers),
    rootQuorum: store.organizations.rootQuorum(organization.id),
    now: request.now,
    log: request.log,
  };
}

export function authorize(request: AuthorizationRequest): Authorization {
  return decide(decisionRequest(request));
}

/**
 * The refusal `authorize` is certain to give whatever the decoded transaction or typed data says, decided over
 * `request.resources` without them (the shared engine's `refusedBeforeDecoding`), or undefined when decoding may matter.
 */
export function refusedBeforeDecoding(request: AuthorizationRequest): Extract<Authorization, { decision: 'deny' }> | undefined {
  return refusedWithoutDecoded(decisionRequest(request));
}

/** Turnkey's text for a request a DENY policy refuses (`Turnkey error 7: policy engine denied request explicitly`). */
const EXPLICIT_DENY_MESSAGE = 'policy engine denied request explicitly';

/**
 * The 403 a denial answers (docs/service.md#error-body: a PolicyEnginePermissionError detail). An explicit deny carries
 * Turnkey's own message verbatim, since its SDKs' callers match on it; which policy denied is in the evaluations.
 */
export function denialError(authorization: Extract<Authorization, { decision: 'deny' }>, activityType: string): QkError {
  const message =
    authorization.reason === 'explicit'
      ? EXPLICIT_DENY_MESSAGE
      : `request not authorized: No policies evaluated to outcome: Allow for ${activityType}; ask a root user to add a policy or approve it with the root quorum`;
  return new QkError('REQUEST_NOT_AUTHORIZED', message, {
    wireDetails: [
      {
        '@type': 'type.googleapis.com/errors.v1.PolicyEnginePermissionError',
        message: authorization.reason === 'explicit' ? 'Policy evaluated to outcome: Deny' : 'No policies evaluated to outcome: Allow',
        policyEvaluations: authorization.evaluations,
      },
    ],
  });
}

/** Whether a user may vote, and when not, the policies whose search for who may vote ran out of steps. */
export type VoteEligibility = { eligible: true } | { eligible: false; tooCostly: string[] };

/** `voteEligibility`, as a yes or no. */
export function isEligibleVoter(request: Omit<AuthorizationRequest, 'approvers'>, userId: string): boolean {
  return voteEligibility(request, userId).eligible;
}

/**
 * Whether `userId` may vote on the activity: a root-quorum member, or a user whose approval can make a
 * difference to the consensus of an ALLOW policy whose condition matches (docs/service.md#who-may-vote), active at
 * `now`. The test is behavioural, not textual: starting from
 * every user of the organization approving, drop the others one by one while the consensus still holds; the user counts
 * when the consensus fails without them in the smallest set that remains. The search evaluates a consensus up to once
 * per user, so all its evaluations share one budget of MAX_DECISION_STEPS; a policy whose search runs out gives no
 * vote (fail safe), and is named with its id in `tooCostly`.
 */
export function voteEligibility(request: Omit<AuthorizationRequest, 'approvers'>, userId: string): VoteEligibility {
  const { store, organization } = request;
  if (isRootUser(store, organization.id, userId)) return { eligible: true };
  const budget = new StepBudget(MAX_DECISION_STEPS);
  const condition = conditionContext(request);
  const time = timeContextAt(request.now);
  const everyone = store.users.listByOrganization(organization.id).map((user) => user.id);
  if (!everyone.includes(userId)) return { eligible: false, tooCostly: [] };
  // Each user as if approving with every credential they hold (API keys and passkeys), read once: the search below
  // evaluates the consensus for many sets of users.
  const credentialsOf = new Map<string, Approver[]>(
    everyone.map((id) => [
      id,
      [
        ...store.apiKeys.listByUser(id).map((key) => ({
          userId: id,
          credential: { id: key.id, user_id: id, type: key.credentialType, public_key: key.publicKey },
        })),
        ...store.authenticators.listByUser(id).map((passkey) => ({
          userId: id,
          credential: {
            id: passkey.id,
            user_id: id,
            type: WEBAUTHN_CREDENTIAL_TYPE,
            public_key: passkey.publicKey,
            credential_id: passkey.credentialId,
          },
        })),
      ],
    ]),
  );
  const approversOf = (ids: readonly string[]): Approver[] => ids.flatMap((id) => credentialsOf.get(id) ?? []);
  /** A field's truth within the shared budget; undefined once the budget is spent, when the search cannot tell. */
  const holds = (result: ReturnType<typeof policyFieldHolds>): boolean | undefined => (ranOutOfSteps(result) ? undefined : result === true);
  const consensusHoldsFor = (policy: PolicyRecord, ids: readonly string[]): boolean | undefined =>
    holds(policyFieldHolds(policy.consensus, 'consensus', consensusContextOf(engineApprovers(store, approversOf(ids))), budget));
  /** Whether the user's approval makes a difference to `policy`; undefined when the budget runs out first. */
  const userCounts = (policy: PolicyRecord): boolean | undefined => {
    if (policy.effect !== 'EFFECT_ALLOW' || policy.consensus.trim() === '') return false;
    const applies =
      holds(policyFieldHolds(policy.time, 'time', time, budget)) && holds(policyFieldHolds(policy.condition, 'condition', condition, budget));
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
  for (const policy of store.policies.listByOrganization(organization.id)) {
    const counts = userCounts(policy);
    if (counts === true) return { eligible: true };
    if (counts === undefined) {
      request.log(
        `policy ${policy.id} (${policy.name}): working out who may vote on this activity took more than ${MAX_DECISION_STEPS} steps; it gives no vote`,
      );
      tooCostly.push(policy.id);
    }
  }
  return { eligible: false, tooCostly };
}
