/**
 * The work bound of the policy language (docs/service.md#policy-language): one evaluation takes at most
 * MAX_EVALUATION_STEPS steps, and an expression whose static cost exceeds them is refused when it is written.
 */
import type { Expression } from './ast';

/**
 * The work one evaluation may do: each sub-expression evaluated (a predicate once per element) and each element an
 * `in` or `contains()` compares is a step. Counting steps rather than time keeps the outcome the same on every
 * machine. A policy over a transaction takes tens to a few thousand (a predicate over each account of each
 * instruction of the largest Solana transaction, about 20,000); comprehensions nested over literal lists multiply,
 * which the static cost refuses before they are stored. `npm run bench -- policies` measures what the budget costs.
 */
export const MAX_EVALUATION_STEPS = 50_000;

/**
 * The work one decision, or one search over many sets of approvers (who may vote, what consensus still needs), may do
 * in all: five evaluations at the full budget. Each evaluation stays within MAX_EVALUATION_STEPS and within what the
 * decision or search has left, so the number of policies or users no longer multiplies the work. An ordinary
 * decision takes a few thousand steps; the eligibility search of a 100-user organization, hundreds to tens of thousands.
 */
export const MAX_DECISION_STEPS = 250_000;

/** The step counter the evaluations of one decision or one search share. */
export class StepBudget {
  private spent = 0;

  constructor(readonly limit: number = MAX_DECISION_STEPS) {}

  /** The steps taken so far. */
  get used(): number {
    return this.spent;
  }

  get remaining(): number {
    return this.limit - this.spent;
  }

  get exhausted(): boolean {
    return this.spent >= this.limit;
  }

  spend(steps: number): void {
    this.spent = Math.min(this.limit, this.spent + steps);
  }
}

/**
 * The steps evaluating `node` takes at most when every list the request supplies holds one element: a list written in
 * the expression counts at its length, and so does a variable bound to one of its elements, so nested any/all/filter
 * over literal lists multiply. A list from the request is as long as the request makes it, which only the
 * evaluation's step budget can bound.
 */
export function staticCost(node: Expression): number {
  return costOf(node, new Map());
}

/** What is known of a list before evaluation: how many elements it has at most, and of each element if it is a list. */
interface ListShape {
  readonly length: number;
  readonly element: ListShape | undefined;
}

/** The shape of every list the request supplies: one element, of unknown shape. */
const FROM_REQUEST: ListShape = { length: 1, element: undefined };

/** The shapes of the lambda variables in scope. */
type Shapes = ReadonlyMap<string, ListShape | undefined>;

function costOf(node: Expression, shapes: Shapes): number {
  const cost = (child: Expression) => costOf(child, shapes);
  switch (node.type) {
    case 'bool':
    case 'int':
    case 'string':
    case 'timestamp':
    case 'cronSpan':
    case 'identifier':
      return 1;
    case 'list':
      return 1 + sum(node.items.map(cost));
    case 'member':
      return 1 + cost(node.object);
    case 'index':
      return 1 + cost(node.object) + cost(node.index);
    case 'slice':
      return 1 + cost(node.object) + cost(node.start) + cost(node.end);
    case 'lambda': {
      const list = shapeOf(node.list, shapes);
      const inner = new Map(shapes).set(node.variable, list.element);
      return 1 + cost(node.list) + list.length * costOf(node.predicate, inner);
    }
    case 'contains':
    case 'in':
      return 1 + cost(node.list) + cost(node.value) + shapeOf(node.list, shapes).length;
    case 'count':
      return 1 + cost(node.list);
    case 'not':
      return 1 + cost(node.operand);
    case 'logical':
    case 'comparison':
      return 1 + cost(node.left) + cost(node.right);
  }
}

function shapeOf(node: Expression, shapes: Shapes): ListShape {
  switch (node.type) {
    case 'list': {
      const elements = node.items.map((item) => (item.type === 'list' || item.type === 'identifier' ? shapeOf(item, shapes) : undefined));
      const lists = elements.filter((element): element is ListShape => element !== undefined);
      const element = lists.length === 0 ? undefined : { length: Math.max(...lists.map((list) => list.length)), element: widest(lists) };
      return { length: node.items.length, element };
    }
    case 'identifier':
      return shapes.get(node.name) ?? FROM_REQUEST;
    case 'slice':
      return shapeOf(node.object, shapes);
    case 'lambda':
      return node.method === 'filter' ? shapeOf(node.list, shapes) : FROM_REQUEST;
    case 'index':
      return shapeOf(node.object, shapes).element ?? FROM_REQUEST;
    default:
      return FROM_REQUEST;
  }
}

/** The element shape that bounds every list of `lists`' elements. */
function widest(lists: readonly ListShape[]): ListShape | undefined {
  const elements = lists.flatMap((list) => (list.element === undefined ? [] : [list.element]));
  return elements.length === 0 ? undefined : { length: Math.max(...elements.map((element) => element.length)), element: widest(elements) };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
