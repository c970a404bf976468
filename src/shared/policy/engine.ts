/**
 * The policy decision (docs/service.md#policy-precedence): root quorum → allow; otherwise every policy is evaluated — a
 * matching DENY wins, a matching ALLOW whose consensus holds allows, a user managing its own credentials is allowed, a
 * matching ALLOW still short of consensus (or a root user short of the root threshold) waits for votes. Pure: the
 * service's `authorize` and main's rehearsal both decide with it, over contexts they build from what they can read.
 */
import { activityOperations } from '../api/activities';
import { olderActivityVersions } from '../api/activity-versions';
import { QkError } from '../errors';
import { checkPolicyExpression } from './check';
import { evaluate } from './evaluator';
import { explain, type Explanation } from './explain';
import type { Expression, PolicyExpressionKind, SourceSpan } from './ast';
import { policyActivityOf } from './activity-classes';
import { timeContextAt, type PolicyContext, type PolicyCredential, type PolicyUser } from './values';

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

/** A policy as the engine reads it; an empty expression imposes no constraint. */
export interface EnginePolicy {
  id: string;
  name: string;
  effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';
  condition: string;
  consensus: string;
  time: string;
}

/** A user whose approval counts, as policies see them, with the credential they approved with. */
export interface EngineApprover {
  user: PolicyUser;
  credential: PolicyCredential;
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

export interface DecisionRequest {
  policies: readonly EnginePolicy[];
  activityType: string;
  /** The intent's parameters as submitted. */
  params: Record<string, unknown>;
  /** What conditions read: see `conditionContextOf`. */
  condition: PolicyContext;
  approvers: readonly EngineApprover[];
  rootQuorum: { userIds: readonly string[]; threshold: number };
  /** `time.now` of the policies' time expressions (epoch ms). */
  now: number;
  log?: (line: string) => void;
}

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
export function policyFieldHolds(text: string, kind: PolicyExpressionKind, context: PolicyContext): boolean | QkError {
  if (text.trim() === '') return true;
  const ast = parsed(text, kind);
  if (ast instanceof QkError) return ast;
  const result = evaluate(ast, context);
  return result.ok ? result.value : result.error;
}

/**
 * The condition context: the activity plus the resources its intent names, and `user`, the user of the organization
 * that the parameters' `userId` names (whose name, keys, passkeys or providers the activity changes).
 */
export function conditionContextOf(
  activityType: string,
  params: Record<string, unknown>,
  resources: Record<string, unknown>,
  targetUser: PolicyUser | undefined,
): PolicyContext {
  return {
    ...resources,
    ...(targetUser === undefined ? {} : { user: targetUser }),
    activity: policyActivityOf(activityType, params),
  };
}

/** The consensus context: each approving user once, and every credential they approved with. */
export function consensusContextOf(approvers: readonly EngineApprover[]): PolicyContext {
  const users = new Map<string, PolicyUser>();
  for (const { user } of approvers) if (!users.has(user.id)) users.set(user.id, user);
  return { approvers: [...users.values()], credentials: approvers.map((approver) => approver.credential) };
}

export type PolicyField = 'condition' | 'consensus' | 'time';

/** The contexts a policy's three fields read. */
export interface PolicyContexts {
  condition: PolicyContext;
  consensus: PolicyContext;
  time: PolicyContext;
}

/** Which policy decided, by which of its fields, and why that field came out as it did. */
export interface PolicyWhy {
  policyId: string;
  field: PolicyField;
  explanation: Explanation;
}

/**
 * Why one field of a policy came out as it did; undefined for an empty field (it imposes no constraint). A field that
 * does not parse is explained by its parse error.
 */
export function explainPolicyField(text: string, kind: PolicyField, context: PolicyContext): Explanation | undefined {
  if (text.trim() === '') return undefined;
  const ast = parsed(text, kind);
  if (!(ast instanceof QkError)) return explain(ast, text, context);
  const span = 'span' in ast ? (ast.span as SourceSpan) : { offset: 0, line: 1, column: 1, length: text.length };
  return { outcome: 'error', parts: [{ span, text: text.slice(span.offset, span.offset + span.length), outcome: 'error', reads: [], error: ast.message }] };
}

/** What a second pass explains: a denial by a DENY, a denial for want of an ALLOW, or a wait for votes. */
export type DecisionToExplain = 'explicit-deny' | 'implicit-deny' | 'consensus-needed';

/**
 * The field of a policy that decided its part in `decision`: a DENY's matching condition; an ALLOW's unmet consensus
 * in a wait; in a denial for want of an ALLOW, each ALLOW's false condition, closed time window or failing field (the
 * first that errs, in the order the engine reads them).
 */
function decidingField(policy: EnginePolicy, outcome: PolicyOutcome, decision: DecisionToExplain, contexts: PolicyContexts): PolicyField | undefined {
  if (decision === 'explicit-deny') return outcome === 'OUTCOME_DENY_EXPLICIT' ? 'condition' : undefined;
  if (decision === 'consensus-needed') return outcome === 'OUTCOME_REQUIRES_CONSENSUS' ? 'consensus' : undefined;
  if (policy.effect !== 'EFFECT_ALLOW') return undefined;
  if (outcome === 'OUTCOME_NOT_APPLICABLE') return 'condition';
  if (outcome === 'OUTCOME_TIME_INACTIVE') return 'time';
  if (outcome !== 'OUTCOME_ERROR') return undefined;
  return (['time', 'condition', 'consensus'] as const).find((field) => policyFieldHolds(policy[field], field, contexts[field]) instanceof QkError);
}

/**
 * The second pass over a denial or a wait: which policies decided it, by which field, with the sub-expressions that
 * decided each and the values they read. Run only when someone asks why, never on the service's hot path.
 */
export function explainOutcomes(
  decision: DecisionToExplain,
  outcomes: readonly { policy: EnginePolicy; outcome: PolicyOutcome }[],
  contexts: PolicyContexts,
): PolicyWhy[] {
  return outcomes.flatMap(({ policy, outcome }) => {
    const field = decidingField(policy, outcome, decision, contexts);
    const explanation = field === undefined ? undefined : explainPolicyField(policy[field], field, contexts[field]);
    return field === undefined || explanation === undefined ? [] : [{ policyId: policy.id, field, explanation }];
  });
}

/** Why `decide` answered `authorization` for `request`: empty for an allow. */
export function explainDecision(request: DecisionRequest, authorization: Authorization): PolicyWhy[] {
  if (authorization.decision === 'allow') return [];
  const decision = authorization.decision === 'consensus-needed' ? 'consensus-needed' : authorization.reason === 'explicit' ? 'explicit-deny' : 'implicit-deny';
  const byId = new Map(request.policies.map((policy) => [policy.id, policy]));
  const outcomes = authorization.evaluations.flatMap(({ policyId, outcome }) => {
    const policy = byId.get(policyId);
    return policy === undefined ? [] : [{ policy, outcome }];
  });
  return explainOutcomes(decision, outcomes, contextsOf(request));
}

function contextsOf(request: DecisionRequest): PolicyContexts {
  return { condition: request.condition, consensus: consensusContextOf(request.approvers), time: timeContextAt(request.now) };
}

/** Evaluates one policy; errors are logged and count as not matching (OUTCOME_ERROR). */
function evaluatePolicy(
  policy: EnginePolicy,
  contexts: PolicyContexts,
  log: (line: string) => void,
): PolicyOutcome {
  // Like Turnkey's engine, every field is evaluated: an error in any of them makes the policy OUTCOME_ERROR.
  const timeHolds = policyFieldHolds(policy.time, 'time', contexts.time);
  const conditionHolds = policyFieldHolds(policy.condition, 'condition', contexts.condition);
  const consensusHolds = policyFieldHolds(policy.consensus, 'consensus', contexts.consensus);
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

/**
 * Users may manage their own credentials without a policy unless a DENY policy matches: the activity changes the
 * credentials of `params.userId` and that user approved it (the proposer, on submission).
 */
function managesOwnCredentials(request: DecisionRequest): boolean {
  if (!OWN_CREDENTIAL_ACTIVITY_TYPES.has(request.activityType)) return false;
  const { userId } = request.params;
  return typeof userId === 'string' && request.approvers.some((approver) => approver.user.id === userId);
}

export function decide(request: DecisionRequest): Authorization {
  const members = new Set(request.rootQuorum.userIds);
  const rootApprovers = new Set(request.approvers.map((a) => a.user.id).filter((id) => members.has(id)));
  if (rootApprovers.size >= request.rootQuorum.threshold) return { decision: 'allow', by: 'root-quorum', evaluations: [] };
  const anyRootApprover = rootApprovers.size > 0;
  // Policies are not consulted: only root users' approvals count towards these.
  if (ROOT_QUORUM_ONLY_ACTIVITY_TYPES.has(request.activityType)) {
    return anyRootApprover
      ? { decision: 'consensus-needed', evaluations: [] }
      : { decision: 'deny', reason: 'implicit', evaluations: [] };
  }
  const contexts = contextsOf(request);
  const log = request.log ?? (() => undefined);
  const evaluations = request.policies.map((policy) => ({ policyId: policy.id, outcome: evaluatePolicy(policy, contexts, log) }));
  const outcomes = new Set(evaluations.map((evaluation) => evaluation.outcome));
  if (outcomes.has('OUTCOME_DENY_EXPLICIT')) return { decision: 'deny', reason: 'explicit', evaluations };
  if (outcomes.has('OUTCOME_ALLOW')) return { decision: 'allow', by: 'policy', evaluations };
  if (managesOwnCredentials(request)) return { decision: 'allow', by: 'own-credentials', evaluations };
  if (outcomes.has('OUTCOME_REQUIRES_CONSENSUS') || anyRootApprover) return { decision: 'consensus-needed', evaluations };
  return { decision: 'deny', reason: 'implicit', evaluations };
}

/**
 * The refusal `decide` is certain to give whatever a decoded transaction or typed data would add to the condition
 * context, decided over `request.condition` without them, or undefined when the decoding may matter. Sound because
 * policy expressions never short-circuit and read a missing keyword as an error: a policy that evaluates without error
 * over the smaller context never read a decoded keyword, so it evaluates the same over the full one. Hence a definite
 * DENY match is an explicit denial, and with no root approver, no own-credential change and no ALLOW policy that
 * matches or might (evaluates with an error) the request is denied implicitly. The evaluations reported are the
 * definite ones.
 */
export function refusedBeforeDecoding(request: DecisionRequest): Extract<Authorization, { decision: 'deny' }> | undefined {
  const members = new Set(request.rootQuorum.userIds);
  if (request.approvers.some((approver) => members.has(approver.user.id))) return undefined;
  if (ROOT_QUORUM_ONLY_ACTIVITY_TYPES.has(request.activityType)) return { decision: 'deny', reason: 'implicit', evaluations: [] };
  if (managesOwnCredentials(request)) return undefined;
  const contexts = contextsOf(request);
  // Errors over the smaller context are expected (a decoded keyword is missing) and are not the policy's fault.
  const quiet = (): void => undefined;
  const evaluated = request.policies.map((policy) => ({ policy, evaluation: { policyId: policy.id, outcome: evaluatePolicy(policy, contexts, quiet) } }));
  const evaluations = evaluated.map(({ evaluation }) => evaluation).filter((evaluation) => evaluation.outcome !== 'OUTCOME_ERROR');
  if (evaluations.some((evaluation) => evaluation.outcome === 'OUTCOME_DENY_EXPLICIT')) return { decision: 'deny', reason: 'explicit', evaluations };
  const mayAllow = evaluated.some(
    ({ policy, evaluation }) => policy.effect === 'EFFECT_ALLOW' && ['OUTCOME_ALLOW', 'OUTCOME_REQUIRES_CONSENSUS', 'OUTCOME_ERROR'].includes(evaluation.outcome),
  );
  return mayAllow ? undefined : { decision: 'deny', reason: 'implicit', evaluations };
}
