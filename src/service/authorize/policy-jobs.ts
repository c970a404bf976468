/**
 * The policy work of a request as plain data (docs/service.md#policy-language): a decision, the refusal before
 * decoding and the search of who may vote. The pure engine answers a job the same wherever it runs, so the service
 * tries each on its event loop within a small slice of steps and, when the slice runs out, has a policy worker
 * (policy-pool.ts) answer it again within the whole budget.
 */
import {
  decide,
  MAX_DECISION_STEPS,
  PolicyTimestamp,
  refusedBeforeDecoding,
  staticCostOfPolicies,
  StepBudget,
  type Authorization,
  type DecisionRequest,
  type EnginePolicy,
  type PolicyContext,
} from '../../shared/policy';
import { searchVoteEligibility, type EligibilitySearch, type VoteEligibility } from './vote-search';

/** A decision's inputs: the organization's policies, the contexts, the approvers, the root quorum and `now`. */
export type DecisionInput = Omit<DecisionRequest, 'log'>;

export type PolicyJob =
  | { kind: 'decide'; request: DecisionInput }
  | { kind: 'refused-before-decoding'; request: DecisionInput }
  | { kind: 'vote-eligibility'; search: EligibilitySearch };

export interface PolicyJobResults {
  decide: Authorization;
  'refused-before-decoding': Extract<Authorization, { decision: 'deny' }> | undefined;
  'vote-eligibility': VoteEligibility;
}

/** A job's result, and the lines the engine logged on the way (a policy that could not be evaluated, and why). */
export interface PolicyAnswer<K extends PolicyJob['kind'] = PolicyJob['kind']> {
  result: PolicyJobResults[K];
  log: string[];
}

/** Answers `job` within the whole budget of MAX_DECISION_STEPS for the decision or search. */
export function answerInFull<K extends PolicyJob['kind']>(job: Extract<PolicyJob, { kind: K }>): PolicyAnswer<K> {
  return answerWithin(job, new StepBudget(MAX_DECISION_STEPS));
}

/**
 * Answers `job` within a slice of `steps` (fewer than MAX_DECISION_STEPS), or undefined when the slice is exhausted:
 * an evaluation may then have run short of steps that the whole budget has, and only the whole budget's answer counts.
 * A slice left unexhausted answers as the whole budget does, since no evaluation ran short. A job whose policies'
 * static cost alone exceeds the slice is not tried in it: it would most likely be tried in vain.
 */
export function answerInSlice<K extends PolicyJob['kind']>(job: Extract<PolicyJob, { kind: K }>, steps: number): PolicyAnswer<K> | undefined {
  if (staticCostOfPolicies(policiesOf(job)) > steps) return undefined;
  const budget = new StepBudget(steps);
  const answer = answerWithin(job, budget);
  return budget.exhausted ? undefined : answer;
}

function policiesOf(job: PolicyJob): readonly EnginePolicy[] {
  return job.kind === 'vote-eligibility' ? job.search.policies : job.request.policies;
}

function answerWithin<K extends PolicyJob['kind']>(job: Extract<PolicyJob, { kind: K }>, budget: StepBudget): PolicyAnswer<K> {
  const log: string[] = [];
  const record = (line: string) => log.push(line);
  return { result: resultOf(job, budget, record) as PolicyJobResults[K], log };
}

function resultOf(job: PolicyJob, budget: StepBudget, log: (line: string) => void): PolicyJobResults[PolicyJob['kind']] {
  switch (job.kind) {
    case 'decide':
      return decide({ ...job.request, log }, budget);
    case 'refused-before-decoding':
      return refusedBeforeDecoding({ ...job.request, log }, budget);
    case 'vote-eligibility':
      return searchVoteEligibility(job.search, budget, log);
  }
}

/**
 * A job as it crosses to a worker. Structured clone copies every policy value as it is except a timestamp, a class
 * instance it would turn into a plain struct: a timestamp crosses as a Map (no policy value is one) and is rebuilt.
 */
export function jobForTransfer(job: PolicyJob): PolicyJob {
  return withCondition(job, (part) => (part instanceof PolicyTimestamp ? new Map([[TIMESTAMP, part.epochNanoseconds]]) : undefined));
}

/** The job `jobForTransfer` sent, as received. */
export function jobReceived(job: PolicyJob): PolicyJob {
  return withCondition(job, (part) => (part instanceof Map ? new PolicyTimestamp(part.get(TIMESTAMP) as bigint) : undefined));
}

const TIMESTAMP = 'PolicyTimestamp.epochNanoseconds';

/** `job` with the parts of its condition context that `replace` gives a replacement for replaced. */
function withCondition(job: PolicyJob, replace: (part: unknown) => unknown): PolicyJob {
  const convert = (context: PolicyContext) => replaced(context, replace) as PolicyContext;
  return job.kind === 'vote-eligibility'
    ? { ...job, search: { ...job.search, condition: convert(job.search.condition) } }
    : { ...job, request: { ...job.request, condition: convert(job.request.condition) } };
}

/** A copy of `value` with each part `replace` gives a replacement for (not undefined) replaced. */
function replaced(value: unknown, replace: (part: unknown) => unknown): unknown {
  const replacement = replace(value);
  if (replacement !== undefined) return replacement;
  if (Array.isArray(value)) return value.map((item) => replaced(item, replace));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, replaced(field, replace)]));
  }
  return value;
}
