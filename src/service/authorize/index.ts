/**
 * Authorization and consensus (docs/service.md#policy-precedence, docs/service.md#consensus): root quorum → allow;
 * otherwise every policy of the organization whose `time` expression holds now is evaluated (the others are skipped) —
 * a matching DENY wins, a matching ALLOW whose consensus holds allows, a user managing its own credentials is allowed,
 * a matching ALLOW still short of consensus (or a root user short of the root threshold) waits for votes.
 */
import {
  checkPolicyExpression,
  evaluate,
  policyActivityOf,
  timeContextAt,
  type Expression,
  type PolicyContext,
  type PolicyCredential,
  type PolicyExpressionKind,
  type PolicyUser,
} from '../../shared/policy';
import { activityOperations } from '../../shared/api/activities';
import { olderActivityVersions } from '../../shared/api/activity-versions';
import { QkError } from '../../shared/errors';
import { WEBAUTHN_CREDENTIAL_TYPE } from '../auth/credentials';
import type { Repositories } from '../store';
import type { OrganizationRecord } from '../store/organizations';
import type { PolicyRecord } from '../store/policies';

/**
 * Activities only the root quorum may approve, whatever the policies say: changing the quorum itself, and the
 * organization features (Turnkey: "must be approved by the current root quorum").
 */
const ROOT_QUORUM_ONLY_ACTIVITY_TYPES: ReadonlySet<string> = new Set([
  'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
  'ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE',
  'ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE',
]);

/** Activities by which a user manages the credentials of `params.userId` (docs/service.md#policy-precedence). */
const OWN_CREDENTIAL_OPERATIONS: ReadonlySet<string> = new Set([
  'create_api_keys',
  'delete_api_keys',
  'create_authenticators',
  'delete_authenticators',
  'create_oauth_providers',
  'delete_oauth_providers',
  'recover_user',
] satisfies (keyof typeof activityOperations)[]);
const OWN_CREDENTIAL_ACTIVITY_TYPES: ReadonlySet<string> = new Set(
  [...Object.values(activityOperations), ...olderActivityVersions]
    .filter((op) => OWN_CREDENTIAL_OPERATIONS.has('name' in op ? op.name : op.operation))
    .map((op) => op.activityType),
);

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

export type PolicyOutcome =
  | 'OUTCOME_ALLOW'
  | 'OUTCOME_DENY_EXPLICIT'
  | 'OUTCOME_REQUIRES_CONSENSUS'
  | 'OUTCOME_ERROR'
  | 'OUTCOME_TIME_INACTIVE'
  | 'OUTCOME_NOT_APPLICABLE';

export interface PolicyEvaluation {
  policyId: string;
  outcome: PolicyOutcome;
}

export type Authorization =
  /** `operation-proof`: a parent organization's proposal its policies allow and the handler proves (`parentProposalProof`). */
  | { decision: 'allow'; by: 'root-quorum' | 'policy' | 'own-credentials' | 'operation-proof'; evaluations: PolicyEvaluation[] }
  | { decision: 'consensus-needed'; evaluations: PolicyEvaluation[] }
  | { decision: 'deny'; reason: 'explicit' | 'implicit'; evaluations: PolicyEvaluation[] };

/** Parsed expressions by text: the same few policies are evaluated on every activity. */
const parsedExpressions = new Map<string, Expression>();
const PARSE_CACHE_LIMIT = 1_000;

function parsed(text: string, kind: PolicyExpressionKind): Expression | QkError {
  const key = `${kind}\u0000${text}`;
  const cached = parsedExpressions.get(key);
  if (cached !== undefined) return cached;
  const checked = checkPolicyExpression(text, kind);
  if (!checked.ok) return checked.error;
  if (parsedExpressions.size >= PARSE_CACHE_LIMIT) parsedExpressions.clear();
  parsedExpressions.set(key, checked.ast);
  return checked.ast;
}

/** true / false, or the error that makes the policy OUTCOME_ERROR. Empty text imposes no constraint. */
function holds(text: string, kind: PolicyExpressionKind, context: PolicyContext): boolean | QkError {
  if (text.trim() === '') return true;
  const ast = parsed(text, kind);
  if (ast instanceof QkError) return ast;
  const result = evaluate(ast, context);
  return result.ok ? result.value : result.error;
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

/**
 * The condition context: the activity plus the resources its intent names, and `user`, the user of this organization
 * that the parameters' `userId` names (whose name, keys, passkeys or providers the activity changes).
 */
export function conditionContext(request: ConditionRequest): PolicyContext {
  const { store, organization, params } = request;
  const target = typeof params.userId === 'string' ? store.users.get(params.userId) : undefined;
  return {
    ...request.resources,
    ...(target?.organizationId === organization.id ? { user: policyUser(store, target.id) } : {}),
    activity: policyActivityOf(request.activityType, params),
  };
}

function consensusContext(store: Repositories, approvers: readonly Approver[]): PolicyContext {
  const userIds = [...new Set(approvers.map((approver) => approver.userId))];
  return {
    approvers: userIds.map((userId) => policyUser(store, userId)),
    credentials: approvers.map((approver) => approver.credential),
  };
}

function rootQuorumReached(request: AuthorizationRequest): boolean {
  const quorum = request.store.organizations.rootQuorum(request.organization.id);
  const members = new Set(quorum.userIds);
  const rootApprovers = new Set(request.approvers.map((a) => a.userId).filter((id) => members.has(id)));
  return rootApprovers.size >= quorum.threshold;
}

function isRootUser(store: Repositories, organizationId: string, userId: string): boolean {
  return store.organizations.rootQuorum(organizationId).userIds.includes(userId);
}

/** Whether the policy's time window holds at `now`; a policy without one is always active, one that errs is not. */
export function policyTimeStatus(policy: PolicyRecord, now: number): { active: boolean; error?: string } {
  const held = holds(policy.time, 'time', timeContextAt(now));
  return held instanceof QkError ? { active: false, error: held.message } : { active: held };
}

/** Evaluates one policy; errors are logged and count as not matching (OUTCOME_ERROR). */
function evaluatePolicy(
  policy: PolicyRecord,
  contexts: { condition: PolicyContext; consensus: PolicyContext; time: PolicyContext },
  log: (line: string) => void,
): PolicyOutcome {
  // Like Turnkey's engine, every field is evaluated: an error in any of them makes the policy OUTCOME_ERROR.
  const timeHolds = holds(policy.time, 'time', contexts.time);
  const conditionHolds = holds(policy.condition, 'condition', contexts.condition);
  const consensusHolds = holds(policy.consensus, 'consensus', contexts.consensus);
  for (const [field, value] of [['time', timeHolds], ['condition', conditionHolds], ['consensus', consensusHolds]] as const) {
    if (value instanceof QkError) {
      log(`policy ${policy.id} (${policy.name}): ${field} could not be evaluated: ${value.message}`);
      return 'OUTCOME_ERROR';
    }
  }
  // Outside its time window a policy neither allows nor denies (docs/service.md#policy-precedence).
  if (timeHolds !== true) return 'OUTCOME_TIME_INACTIVE';
  if (conditionHolds !== true) return 'OUTCOME_NOT_APPLICABLE';
  if (policy.effect === 'EFFECT_DENY') return consensusHolds === true ? 'OUTCOME_DENY_EXPLICIT' : 'OUTCOME_NOT_APPLICABLE';
  return consensusHolds === true ? 'OUTCOME_ALLOW' : 'OUTCOME_REQUIRES_CONSENSUS';
}

export function authorize(request: AuthorizationRequest): Authorization {
  const { store, organization } = request;
  if (rootQuorumReached(request)) return { decision: 'allow', by: 'root-quorum', evaluations: [] };
  const anyRootApprover = request.approvers.some((a) => isRootUser(store, organization.id, a.userId));
  // Policies are not consulted: only root users' approvals count towards these.
  if (ROOT_QUORUM_ONLY_ACTIVITY_TYPES.has(request.activityType)) {
    return anyRootApprover
      ? { decision: 'consensus-needed', evaluations: [] }
      : { decision: 'deny', reason: 'implicit', evaluations: [] };
  }
  const contexts = {
    condition: conditionContext(request),
    consensus: consensusContext(store, request.approvers),
    time: timeContextAt(request.now),
  };
  const evaluations = store.policies.listByOrganization(organization.id).map((policy) => ({
    policyId: policy.id,
    outcome: evaluatePolicy(policy, contexts, request.log),
  }));
  const outcomes = new Set(evaluations.map((evaluation) => evaluation.outcome));
  if (outcomes.has('OUTCOME_DENY_EXPLICIT')) return { decision: 'deny', reason: 'explicit', evaluations };
  if (outcomes.has('OUTCOME_ALLOW')) return { decision: 'allow', by: 'policy', evaluations };
  if (managesOwnCredentials(request)) return { decision: 'allow', by: 'own-credentials', evaluations };
  if (outcomes.has('OUTCOME_REQUIRES_CONSENSUS') || anyRootApprover) return { decision: 'consensus-needed', evaluations };
  return { decision: 'deny', reason: 'implicit', evaluations };
}

/**
 * The refusal `authorize` is certain to give whatever the decoded transaction or typed data says, decided over
 * `request.resources` without them, or undefined when the decoding may matter. Sound because policy expressions never
 * short-circuit and read a missing keyword as an error: a policy that evaluates without error over the smaller
 * context never read a decoded keyword, so it evaluates the same over the full one. Hence a definite DENY match is an
 * explicit denial, and with no root approver, no own-credential change and no ALLOW policy that matches or might
 * (evaluates with an error) the request is denied implicitly. The evaluations reported are the definite ones.
 */
export function refusedBeforeDecoding(request: AuthorizationRequest): Extract<Authorization, { decision: 'deny' }> | undefined {
  const { store, organization } = request;
  if (rootQuorumReached(request) || request.approvers.some((a) => isRootUser(store, organization.id, a.userId))) return undefined;
  if (ROOT_QUORUM_ONLY_ACTIVITY_TYPES.has(request.activityType)) return { decision: 'deny', reason: 'implicit', evaluations: [] };
  if (managesOwnCredentials(request)) return undefined;
  const contexts = { condition: conditionContext(request), consensus: consensusContext(store, request.approvers), time: timeContextAt(request.now) };
  // Errors over the smaller context are expected (a decoded keyword is missing) and are not the policy's fault.
  const quiet = (): void => {};
  const evaluated = store.policies.listByOrganization(organization.id).map((policy) => ({
    policy,
    evaluation: { policyId: policy.id, outcome: evaluatePolicy(policy, contexts, quiet) },
  }));
  const evaluations = evaluated.map(({ evaluation }) => evaluation).filter((evaluation) => evaluation.outcome !== 'OUTCOME_ERROR');
  if (evaluations.some((evaluation) => evaluation.outcome === 'OUTCOME_DENY_EXPLICIT')) return { decision: 'deny', reason: 'explicit', evaluations };
  const mayAllow = evaluated.some(
    ({ policy, evaluation }) =>
      policy.effect === 'EFFECT_ALLOW' &&
      ['OUTCOME_ALLOW', 'OUTCOME_REQUIRES_CONSENSUS', 'OUTCOME_ERROR'].includes(evaluation.outcome),
  );
  return mayAllow ? undefined : { decision: 'deny', reason: 'implicit', evaluations };
}

/**
 * Users may manage their own credentials without a policy unless a DENY policy matches
 * (docs/service.md#policy-precedence): the activity changes the credentials of `params.userId` and that user approved
 * it (the proposer, on submission).
 */
function managesOwnCredentials(request: AuthorizationRequest): boolean {
  if (!OWN_CREDENTIAL_ACTIVITY_TYPES.has(request.activityType)) return false;
  const { userId } = request.params;
  return typeof userId === 'string' && request.approvers.some((approver) => approver.userId === userId);
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

/**
 * Whether `userId` may vote on the activity: a root-quorum member, or a user whose approval can make a
 * difference to the consensus of an ALLOW policy whose condition matches (docs/service.md#who-may-vote), active at
 * `now`. The test is behavioural, not textual: starting from
 * every user of the organization approving, drop the others one by one while the consensus still holds; the user counts
 * when the consensus fails without them in the smallest set that remains.
 */
export function isEligibleVoter(request: Omit<AuthorizationRequest, 'approvers'>, userId: string): boolean {
  const { store, organization } = request;
  if (isRootUser(store, organization.id, userId)) return true;
  const condition = conditionContext(request);
  const time = timeContextAt(request.now);
  const everyone = store.users.listByOrganization(organization.id).map((user) => user.id);
  if (!everyone.includes(userId)) return false;
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
          credential: { id: passkey.id, user_id: id, type: WEBAUTHN_CREDENTIAL_TYPE, public_key: passkey.publicKey, credential_id: passkey.credentialId },
        })),
      ],
    ]),
  );
  const approversOf = (ids: readonly string[]): Approver[] => ids.flatMap((id) => credentialsOf.get(id) ?? []);
  const consensusHoldsFor = (policy: PolicyRecord, ids: readonly string[]): boolean =>
    holds(policy.consensus, 'consensus', consensusContext(store, approversOf(ids))) === true;
  return store.policies.listByOrganization(organization.id).some((policy) => {
    if (policy.effect !== 'EFFECT_ALLOW' || policy.consensus.trim() === '') return false;
    if (holds(policy.time, 'time', time) !== true) return false;
    if (holds(policy.condition, 'condition', condition) !== true) return false;
    let set = everyone;
    if (!consensusHoldsFor(policy, set)) return false;
    for (const other of everyone) {
      if (other === userId) continue;
      const smaller = set.filter((id) => id !== other);
      if (consensusHoldsFor(policy, smaller)) set = smaller;
    }
    return !consensusHoldsFor(policy, set.filter((id) => id !== userId));
  });
}
