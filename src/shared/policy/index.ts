/**
 * Turnkey's policy language (`condition`, `consensus`, `time`, session-profile `scope`): tokenizer → parser → checked AST
 * → evaluator. Shared by the service (authorization) and the renderer (inline errors while an operator types).
 */
export type * from './ast';
export { logicalOperands } from './ast';
export { PolicyParseError, PolicyEvaluationError } from './errors';
export { MAX_EXPRESSION_LENGTH, tokenize, type Token, type TokenKind } from './tokenizer';
export { MAX_NESTING_DEPTH, parsePolicyExpression } from './parser';
export { checkPolicyExpression, childrenOf, type PolicyCheckResult } from './check';
export { MAX_DECISION_STEPS, MAX_EVALUATION_STEPS, StepBudget, staticCost } from './cost';
export { absentKeywordOf, failureInWords } from './failure-words';
export { ROOTS_BY_KIND, TRANSACTION_ROOTS, describeType, type StaticType } from './schema';
export {
  MAX_SPAN_MINUTES,
  cronSpanContains,
  parseCronSchedule,
  parseSpanDuration,
  parseTimeZone,
  type CronArgumentResult,
  type CronSchedule,
  type CronSpan,
} from './cron-span';
export { evaluate, evaluatePolicyExpression, type PolicyEvaluationResult } from './evaluator';
export { explain, valueInWords, type ExplainedOutcome, type ExplainedPart, type ExplainedRead, type Explanation } from './explain';
export * from './values';
export {
  approverTerms,
  termsCountingApproval,
  type ApproverDirection,
  type ApproverSelection,
  type ApproverTerm,
  type KnownCredential,
} from './approver-terms';
export {
  CLASSIFIED_ACTIVITY_TYPES,
  activityClassOf,
  activityKindOf,
  activityParamsOf,
  policyActivityOf,
  type ActivityClass,
  type PolicyAction,
  type PolicyResource,
} from './activity-classes';
export {
  conditionContextOf,
  consensusContextOf,
  decide,
  explainDecision,
  explainOutcomes,
  explainPolicyField,
  policyFieldHolds,
  ranOutOfSteps,
  refusedBeforeDecoding,
  staticCostOfPolicies,
  type Authorization,
  type DecisionRequest,
  type DecisionToExplain,
  type EngineApprover,
  type EnginePolicy,
  type PolicyContexts,
  type PolicyEvaluation,
  type PolicyField,
  type PolicyOutcome,
  type PolicyWhy,
} from './engine';
