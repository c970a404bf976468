/**
 * Counts the policy evaluator's steps, whatever budget the code under test gives them: the one deterministic measure
 * of the work a decision or a search does, the same on every machine.
 */
import { Evaluator } from '../../../src/shared/policy/evaluator';

export function countingSteps<T>(run: () => T): { result: T; steps: number } {
  // `step` is private: the count reaches it through the prototype, so it measures any code that evaluates.
  const prototype = Evaluator.prototype as unknown as { step: (this: Evaluator, ...rest: unknown[]) => void };
  const step = prototype.step;
  let steps = 0;
  prototype.step = function (this: Evaluator, ...rest: unknown[]) {
    steps += 1;
    step.apply(this, rest);
  };
  try {
    const result = run();
    return { result, steps };
  } finally {
    prototype.step = step;
  }
}
