import { describe, expect, it } from 'vitest';
import {
  MAX_DECISION_STEPS,
  MAX_EVALUATION_STEPS,
  MAX_NESTING_DEPTH,
  checkPolicyExpression,
  decide,
  evaluatePolicyExpression,
  parsePolicyExpression,
  staticCost,
  type EnginePolicy,
  type PolicyContext,
} from '../../../src/shared/policy';
import { countingSteps } from './step-count';

const DIGITS = '[0,1,2,3,4,5,6,7,8,9]';

/** The expression: `[0,…,9].all(a, [0,…,9].all(b, …))`, `depth` comprehensions deep. */
function nestedOverDigits(depth: number): string {
  let text = 'true';
  for (let level = depth - 1; level >= 0; level -= 1) text = `${DIGITS}.all(v${level}, ${text})`;
  return text;
}

/** The same nesting over a list the request supplies, which no static check can measure. */
function nestedOverRequestList(depth: number): string {
  let text = 'true';
  for (let level = depth - 1; level >= 0; level -= 1) text = `activity.params.list.all(v${level}, ${text})`;
  return text;
}

const withTenElements: PolicyContext = {
  activity: { type: 'T', kind: 'T', params: { list: [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n] } },
};

describe('policy evaluation has no work bound', () => {
  it('refuses, when written, an expression whose literal lists make it cost more than the step budget, saying so', () => {
    const text = nestedOverDigits(6);
    expect(parsePolicyExpression(text, 'condition')).toBeDefined(); // within the nesting bound: the parser accepts it
    const checked = checkPolicyExpression(text, 'condition');
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.message).toBe(
      'this condition is too costly to evaluate: its list functions over the lists it writes take 2,333,332 steps, more than the ' +
        '50,000 allowed; nest fewer any/all/filter calls or shorten their lists (at 1:1)',
    );
    expect(checked.error.details).toMatchObject({ reason: 'TooCostly', steps: 2_333_332, maxSteps: MAX_EVALUATION_STEPS });
    // Four deep (23,332 steps) is within the budget and evaluates.
    expect(evaluatePolicyExpression(nestedOverDigits(4), 'condition', {})).toEqual({ ok: true, value: true });
  });

  it('counts a variable bound to a literal list at that list’s length, so rebinding does not hide the nesting', () => {
    const rebound = '[[0,1,2,3,4,5,6,7,8,9]].all(l, l.all(a, l.all(b, l.all(c, l.all(d, l.all(e, true))))))';
    expect(staticCost(parsePolicyExpression(rebound, 'condition'))).toBeGreaterThan(MAX_EVALUATION_STEPS);
    expect(checkPolicyExpression(rebound, 'condition')).toMatchObject({ ok: false, error: { details: { reason: 'TooCostly' } } });
  });

  it('fails an evaluation that runs past the step budget over lists the request supplies as too costly', () => {
    const costly = nestedOverRequestList(5);
    expect(checkPolicyExpression(costly, 'condition').ok).toBe(true); // the request's lists are unknown when it is written
    const result = evaluatePolicyExpression(costly, 'condition', withTenElements);
    expect(result).toMatchObject({ ok: false, error: { details: { reason: 'TooCostly' } } });
    if (result.ok) return;
    expect(result.error.message).toMatch(/^TooCostly: evaluating this takes more than 50000 steps \(at 1:\d+\)$/);
    // Three deep over the same list is about 1,000 × 4 steps, and holds.
    expect(evaluatePolicyExpression(nestedOverRequestList(3), 'condition', withTenElements)).toEqual({ ok: true, value: true });
  });

  it('a too costly condition makes its policy an error in the decision, which allows nothing', () => {
    const policy = { id: 'costly', name: 'costly', effect: 'EFFECT_ALLOW' as const, condition: nestedOverRequestList(5), consensus: '', time: '' };
    const decision = decide({
      policies: [policy],
      activityType: 'T',
      params: {},
      condition: withTenElements,
      approvers: [],
      rootQuorum: { userIds: ['root'], threshold: 1 },
      now: 0,
    });
    expect(decision).toEqual({ decision: 'deny', reason: 'implicit', evaluations: [{ policyId: 'costly', outcome: 'OUTCOME_ERROR' }] });
  });

  it('the deepest nesting the parser allows is refused by its cost, not by the evaluator running', () => {
    const deepest = nestedOverDigits(MAX_NESTING_DEPTH / 4);
    expect(checkPolicyExpression(deepest, 'condition')).toMatchObject({ ok: false, error: { details: { reason: 'TooCostly' } } });
  });

  describe('one decision shares one budget across its policies', () => {
    /**
     * Four deep over the request's ten elements, about 45,000 steps: within one evaluation's budget, while six of
     * them are more than a decision's. The index makes each text distinct, so none is remembered from another.
     */
    const costlyCondition = (index: number, holds: boolean) =>
      `${nestedOverRequestList(4).replace('true', holds ? 'v0 != v1 || v2 == v2' : 'v0 == v1 && v2 == v3')} || ${index} == 1000`;
    const costly = (index: number, effect: EnginePolicy['effect'], holds: boolean): EnginePolicy => ({
      id: `costly-${index}`,
      name: `costly ${index}`,
      effect,
      condition: costlyCondition(index, holds),
      consensus: '',
      time: '',
    });
    const decideOver = (policies: EnginePolicy[], log?: (line: string) => void) =>
      decide({
        policies,
        activityType: 'T',
        params: {},
        condition: { ...withTenElements }, // a context of its own: nothing is remembered from another decision
        approvers: [],
        rootQuorum: { userIds: ['root'], threshold: 1 },
        now: 0,
        ...(log === undefined ? {} : { log }),
      });

    it('thirty costly ALLOWs and a DENY listed last: the DENY is read, and the whole decision stays within the budget', () => {
      const allows = Array.from({ length: 30 }, (_, index) => costly(index, 'EFFECT_ALLOW', true));
      const deny: EnginePolicy = { id: 'deny', name: 'deny', effect: 'EFFECT_DENY', condition: "activity.type == 'T'", consensus: '', time: '' };
      const { result, steps } = countingSteps(() => decideOver([...allows, deny]));
      expect(steps).toBeLessThanOrEqual(MAX_DECISION_STEPS + 30); // at most one step per field that found the budget spent
      expect(result.decision).toBe('deny');
      expect(result).toMatchObject({ reason: 'explicit' });
      expect(result.evaluations.at(-1)).toEqual({ policyId: 'deny', outcome: 'OUTCOME_DENY_EXPLICIT' });
      // The first ALLOWs were read in full and matched; those past the budget did not apply.
      expect(result.evaluations[0]).toEqual({ policyId: 'costly-0', outcome: 'OUTCOME_ALLOW' });
      expect(result.evaluations[29]).toEqual({ policyId: 'costly-29', outcome: 'OUTCOME_ERROR' });
    });

    it('DENYs that alone run out the budget leave the decision unable to allow: it denies, saying why', () => {
      const denies = Array.from({ length: 12 }, (_, index) => costly(index, 'EFFECT_DENY', false));
      const allow: EnginePolicy = { id: 'allow', name: 'allow', effect: 'EFFECT_ALLOW', condition: '', consensus: '', time: '' };
      const logged: string[] = [];
      const { result, steps } = countingSteps(() => decideOver([allow, ...denies], (line) => logged.push(line)));
      expect(steps).toBeLessThanOrEqual(MAX_DECISION_STEPS + 12);
      expect(result).toMatchObject({ decision: 'deny', reason: 'implicit' });
      expect(result.evaluations[0]).toEqual({ policyId: 'allow', outcome: 'OUTCOME_ERROR' });
      expect(logged.at(-1)).toBe(`the DENY policies took more than ${MAX_DECISION_STEPS} steps to evaluate in all; the request is denied`);
      // Fewer of them, within the budget, are read in full and match nothing: the ALLOW allows.
      expect(decideOver([allow, ...denies.slice(0, 5)])).toMatchObject({ decision: 'allow', by: 'policy' });
    });
  });
});
