/**
 * The policy decision (docs/service.md#policy-precedence): root quorum → allow; otherwise every policy is evaluated — a
 * matching DENY wins, a matching ALLOW whose consensus holds allows, a user managing its own credentials is allowed, a
 * matching ALLOW still short of consensus (or a root user short of the root threshold) waits for votes. Pure: the
 * service's `authorize` and main's rehearsal both decide with it, over contexts they build from what they can read.
 */
import { activityOperations } from '../api/activities';
import { olderActivityVersions } from '../api/activity-versions';
import { QkError } from '../errors';
import { checkPolicyExpression, unconditionalChildrenOf } from './check';
import { MAX_DECISION_STEPS, StepBudget, staticCost } from './cost';
import { evaluateOrFail, missingKeyword, ranOutOfSharedBudget, type EvaluationFailure } from './evaluator';
import { explain, type Explanation } from './explain';
import type { Expression, Identifier, PolicyExpressionKind, SourceSpan } from './ast';
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
  'OUTCOME_ALLOW' | 'OUTCOME_DENY_EXPLICIT' | 'OUTCOME_REQUIRES_CONSENSUS' | 'OUTCOME_ERROR' | 'OUTCOME_TIME_INACTIVE' | 'OUTCOME_NOT_APPLICABLE';

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

/**
 * A parsed field and the root keywords its evaluation reads whatever the values: those outside the predicates of
 * any/all/filter (which may run zero times) and outside the operands of `&&`/`||` after the first (which may not be
 * read). When one of them is missing from the context evaluating is certain to fail, and the engine says so without
 * evaluating: a policy may read a keyword most activities lack (`eth` of a wallet rename), and a failed evaluation
 * costs far more than a lookup.
 */
interface ParsedField {
  ast: Expression;
  roots: readonly Identifier[];
  /** `staticCost(ast)`. */
  cost: number;
}

/** Parsed fields by text: the same few policies are evaluated on every activity. */
const parsedFields = new Map<string, ParsedField>();
const PARSE_CACHE_LIMIT = 1_000;

function parsed(text: string, kind: PolicyExpressionKind): ParsedField | QkError {
  const key = `${kind}\u0000${text}`;
  const cached = parsedFields.get(key);
  if (cached !== undefined) return cached;
  const checked = checkPolicyExpression(text, kind);
  if (!checked.ok) return checked.error;
  if (parsedFields.size >= PARSE_CACHE_LIMIT) parsedFields.clear();
  const field = { ast: checked.ast, roots: unconditionalRoots(checked.ast), cost: staticCost(checked.ast) };
  parsedFields.set(key, field);
  return field;
}

/** The first reference to each root keyword that every evaluation reads, in evaluation order. */
function unconditionalRoots(ast: Expression): Identifier[] {
  const roots = new Map<string, Identifier>();
  const pending: Expression[] = [ast];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.type === 'identifier' && !roots.has(node.name)) roots.set(node.name, node);
    pending.push(...unconditionalChildrenOf(node).reverse());
  }
  return [...roots.values()];
}

/** A policy field ready to evaluate: no constraint (empty text), its parsed expression, or why it does not parse. */
type CompiledField = true | ParsedField | QkError;

function compiledField(text: string, kind: PolicyExpressionKind): CompiledField {
  return text.trim() === '' ? true : parsed(text, kind);
}

/**
 * The steps one evaluation of every field of `policies` takes at most by their static cost (`staticCost`: a list the
 * request supplies counts as one element), in all; a field that is empty or does not parse takes none.
 */
export function staticCostOfPolicies(policies: readonly EnginePolicy[]): number {
  let total = 0;
  for (const policy of policies) {
    const { time, condition, consensus } = compiled(policy);
    for (const field of [time, condition, consensus]) if (field !== true && !(field instanceof QkError)) total += field.cost;
  }
  return total;
}

/** Why a policy field is not true or false: its text does not parse, or evaluating it failed. */
export type PolicyFieldFailure = QkError | EvaluationFailure;

function fieldHolds(field: CompiledField, context: PolicyContext, budget: StepBudget | undefined): FieldResult {
  if (field === true || field instanceof QkError) return field;
  const missing = field.roots.find(
    (root) => (Object.hasOwn(context, root.name) ? context[root.name as keyof PolicyContext] : undefined) === undefined,
  );
  return missing === undefined ? evaluateOrFail(field.ast, context, budget) : missingKeyword(missing.name, missing.span);
}

/**
 * true / false, or why not (when a root keyword is missing, that one). Empty text imposes no constraint. With a
 * `budget`, the evaluation is one of a decision's or a search's and spends from it.
 */
export function policyFieldHolds(
  text: string,
  kind: PolicyExpressionKind,
  context: PolicyContext,
  budget?: StepBudget,
): boolean | PolicyFieldFailure {
  return fieldHolds(compiledField(text, kind), context, budget);
}

/** Whether a field failed for want of the steps its decision or search had left, rather than by itself. */
export function ranOutOfSteps(result: boolean | PolicyFieldFailure): boolean {
  return typeof result !== 'boolean' && !(result instanceof QkError) && ranOutOfSharedBudget(result);
}

interface CompiledPolicy {
  time: CompiledField;
  condition: CompiledField;
  consensus: CompiledField;
}

/**
 * Each policy object's fields parsed once: a rehearsal decides thousands of activities over the same policy objects,
 * and a lookup by object costs less than one by text. Objects built per request fall back to the text cache.
 */
const compiledPolicies = new WeakMap<EnginePolicy, CompiledPolicy>();

function compiled(policy: EnginePolicy): CompiledPolicy {
  let fields = compiledPolicies.get(policy);
  if (fields === undefined) {
    fields = {
      time: compiledField(policy.time, 'time'),
      condition: compiledField(policy.condition, 'condition'),
      consensus: compiledField(policy.consensus, 'consensus'),
    };
    compiledPolicies.set(policy, fields);
  }
  return fields;
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
  const field = parsed(text, kind);
  if (!(field instanceof QkError)) return explain(field.ast, text, context);
  const span = 'span' in field ? (field.span as SourceSpan) : { offset: 0, line: 1, column: 1, length: text.length };
  return {
    outcome: 'error',
    parts: [{ span, text: text.slice(span.offset, span.offset + span.length), outcome: 'error', reads: [], error: field.message }],
  };
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
  return (['time', 'condition', 'consensus'] as const).find((field) => typeof policyFieldHolds(policy[field], field, contexts[field]) !== 'boolean');
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
  const decision =
    authorization.decision === 'consensus-needed' ? 'consensus-needed' : authorization.reason === 'explicit' ? 'explicit-deny' : 'implicit-deny';
  const byId = new Map(request.policies.map((policy) => [policy.id, policy]));
  const outcomes = authorization.evaluations.flatMap(({ policyId, outcome }) => {
    const policy = byId.get(policyId);
    return policy === undefined ? [] : [{ policy, outcome }];
  });
  return explainOutcomes(decision, outcomes, policyContextsOf(request));
}

type FieldResult = boolean | PolicyFieldFailure;

/** A context with the results of the fields evaluated over it so far. */
interface RememberingContext {
  context: PolicyContext;
  results: Map<CompiledField, FieldResult>;
}

/**
 * Field results by the context they were evaluated over. Within one decision many policies share an expression
 * (`approvers.count() >= 2`), and a rehearsal decides each request twice over the same contexts (current policies,
 * then the draft) where most policies did not change: each is evaluated once. Hence contexts and approver lists are
 * never changed once built.
 */
const resultsByContext = new WeakMap<PolicyContext, Map<CompiledField, FieldResult>>();

function remembering(context: PolicyContext): RememberingContext {
  let results = resultsByContext.get(context);
  if (results === undefined) resultsByContext.set(context, (results = new Map<CompiledField, FieldResult>()));
  return { context, results };
}

function rememberedFieldHolds(field: CompiledField, { context, results }: RememberingContext, budget: StepBudget): FieldResult {
  const remembered = results.get(field);
  if (remembered !== undefined) return remembered;
  const result = fieldHolds(field, context, budget);
  if (!ranOutOfSteps(result)) results.set(field, result);
  return result;
}

/** The consensus context of an approvers list, built once per list so that decisions over the same list share it. */
const consensusContexts = new WeakMap<readonly EngineApprover[], PolicyContext>();

interface DecisionContexts {
  condition: RememberingContext;
  consensus: RememberingContext;
  time: RememberingContext;
}

/** The contexts a request's policies read, the consensus one built once per approvers list. */
function policyContextsOf(request: DecisionRequest): PolicyContexts {
  let consensus = consensusContexts.get(request.approvers);
  if (consensus === undefined) consensusContexts.set(request.approvers, (consensus = consensusContextOf(request.approvers)));
  return { condition: request.condition, consensus, time: timeContextAt(request.now) };
}

function contextsOf(request: DecisionRequest): DecisionContexts {
  const { condition, consensus, time } = policyContextsOf(request);
  return { condition: remembering(condition), consensus: remembering(consensus), time: remembering(time) };
}

/** Evaluates one policy; errors are logged (when a log is given) and count as not matching (OUTCOME_ERROR). */
function evaluatePolicy(
  policy: EnginePolicy,
  contexts: DecisionContexts,
  budget: StepBudget,
  log: ((line: string) => void) | undefined,
): PolicyOutcome {
  const fields = compiled(policy);
  // Like Turnkey's engine, every field is evaluated: an error in any of them makes the policy OUTCOME_ERROR.
  const time = rememberedFieldHolds(fields.time, contexts.time, budget);
  const condition = rememberedFieldHolds(fields.condition, contexts.condition, budget);
  const consensus = rememberedFieldHolds(fields.consensus, contexts.consensus, budget);
  if (typeof time !== 'boolean' || typeof condition !== 'boolean' || typeof consensus !== 'boolean') {
    if (log !== undefined) {
      const [field, failure] =
        typeof time !== 'boolean'
          ? ['time', time]
          : typeof condition !== 'boolean'
            ? ['condition', condition]
            : ['consensus', consensus as PolicyFieldFailure];
      log(`policy ${policy.id} (${policy.name}): ${field} could not be evaluated: ${failure.message}`);
    }
    return 'OUTCOME_ERROR';
  }
  // Outside its time window a policy neither allows nor denies (docs/service.md#policy-precedence).
  if (!time) return 'OUTCOME_TIME_INACTIVE';
  if (!condition) return 'OUTCOME_NOT_APPLICABLE';
  if (policy.effect === 'EFFECT_DENY') return consensus ? 'OUTCOME_DENY_EXPLICIT' : 'OUTCOME_NOT_APPLICABLE';
  return consensus ? 'OUTCOME_ALLOW' : 'OUTCOME_REQUIRES_CONSENSUS';
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

/**
 * Every policy's outcome, in the organization's order, within the decision's budget. The DENY
 * policies are read first, so a decision that runs out runs out on an ALLOW, which then allows nothing; should the
 * DENYs alone run it out (`denialsUnread`), one of them may have matched unread, and the decision must not allow.
 */
function evaluateAll(
  request: DecisionRequest,
  contexts: DecisionContexts,
  budget: StepBudget,
  log: ((line: string) => void) | undefined,
): { evaluations: PolicyEvaluation[]; denialsUnread: boolean } {
  const outcomes = new Map<EnginePolicy, PolicyOutcome>();
  for (const effect of ['EFFECT_DENY', 'EFFECT_ALLOW'] as const) {
    for (const policy of request.policies) if (policy.effect === effect) outcomes.set(policy, evaluatePolicy(policy, contexts, budget, log));
    if (effect === 'EFFECT_DENY' && budget.exhausted) {
      const evaluations = request.policies.map((policy) => ({ policyId: policy.id, outcome: outcomes.get(policy) ?? 'OUTCOME_ERROR' }));
      return { evaluations, denialsUnread: true };
    }
  }
  return { evaluations: request.policies.map((policy) => ({ policyId: policy.id, outcome: outcomes.get(policy)! })), denialsUnread: false };
}

/**
 * The decision over `request`, within `budget` (MAX_DECISION_STEPS). A caller may give a smaller budget to try the
 * decision cheaply first: while that budget is not exhausted, no evaluation ran short of steps, so the answer is the
 * one the whole budget gives.
 */
export function decide(request: DecisionRequest, budget: StepBudget = new StepBudget(MAX_DECISION_STEPS)): Authorization {
  const members = new Set(request.rootQuorum.userIds);
  const rootApprovers = new Set(request.approvers.map((a) => a.user.id).filter((id) => members.has(id)));
  if (rootApprovers.size >= request.rootQuorum.threshold) return { decision: 'allow', by: 'root-quorum', evaluations: [] };
  const anyRootApprover = rootApprovers.size > 0;
  // Policies are not consulted: only root users' approvals count towards these.
  if (ROOT_QUORUM_ONLY_ACTIVITY_TYPES.has(request.activityType)) {
    return anyRootApprover ? { decision: 'consensus-needed', evaluations: [] } : { decision: 'deny', reason: 'implicit', evaluations: [] };
  }
  const { evaluations, denialsUnread } = evaluateAll(request, contextsOf(request), budget, request.log);
  const outcomes = new Set(evaluations.map((evaluation) => evaluation.outcome));
  if (outcomes.has('OUTCOME_DENY_EXPLICIT')) return { decision: 'deny', reason: 'explicit', evaluations };
  if (denialsUnread) {
    request.log?.(`the DENY policies took more than ${budget.limit} steps to evaluate in all; the request is denied`);
    return { decision: 'deny', reason: 'implicit', evaluations };
  }
  if (outcomes.has('OUTCOME_ALLOW')) return { decision: 'allow', by: 'policy', evaluations };
  if (managesOwnCredentials(request)) return { decision: 'allow', by: 'own-credentials', evaluations };
  if (outcomes.has('OUTCOME_REQUIRES_CONSENSUS') || anyRootApprover) return { decision: 'consensus-needed', evaluations };
  return { decision: 'deny', reason: 'implicit', evaluations };
}

/**
 * The refusal `decide` is certain to give whatever a decoded transaction or typed data would add to the condition
 * context, decided over `request.condition` without them, or undefined when the decoding may matter. Sound because
 * evaluation reads a missing keyword as an error: a policy that evaluates without error over the smaller context
 * never read a decoded keyword (it read the same values, so took the same path), so it evaluates the same over the
 * full one. Hence a definite
 * DENY match is an explicit denial, and with no root approver, no own-credential change and no ALLOW policy that
 * matches or might (evaluates with an error) the request is denied implicitly. The evaluations reported are the
 * definite ones. `budget` as for `decide`.
 */
export function refusedBeforeDecoding(
  request: DecisionRequest,
  budget: StepBudget = new StepBudget(MAX_DECISION_STEPS),
): Extract<Authorization, { decision: 'deny' }> | undefined {
  const members = new Set(request.rootQuorum.userIds);
  if (request.approvers.some((approver) => members.has(approver.user.id))) return undefined;
  if (ROOT_QUORUM_ONLY_ACTIVITY_TYPES.has(request.activityType)) return { decision: 'deny', reason: 'implicit', evaluations: [] };
  if (managesOwnCredentials(request)) return undefined;
  // Errors over the smaller context are expected (a decoded keyword is missing) and are not the policy's fault: no log.
  const { evaluations: all, denialsUnread } = evaluateAll(request, contextsOf(request), budget, undefined);
  if (denialsUnread) return undefined;
  const evaluated = request.policies.map((policy, position) => ({ policy, evaluation: all[position]! }));
  const evaluations = evaluated.map(({ evaluation }) => evaluation).filter((evaluation) => evaluation.outcome !== 'OUTCOME_ERROR');
  if (evaluations.some((evaluation) => evaluation.outcome === 'OUTCOME_DENY_EXPLICIT')) return { decision: 'deny', reason: 'explicit', evaluations };
  const mayAllow = evaluated.some(
    ({ policy, evaluation }) =>
      policy.effect === 'EFFECT_ALLOW' && ['OUTCOME_ALLOW', 'OUTCOME_REQUIRES_CONSENSUS', 'OUTCOME_ERROR'].includes(evaluation.outcome),
  );
  return mayAllow ? undefined : { decision: 'deny', reason: 'implicit', evaluations };
}
