import { logicalOperands, type Expression, type LambdaCall, type PolicyExpressionKind, type SourceSpan } from './ast';
import { MAX_EVALUATION_STEPS, staticCost } from './cost';
import { PolicyParseError, formatPosition } from './errors';
import { parsePolicyExpression } from './parser';
import { BOOL, DYNAMIC, INT, ROOTS_BY_KIND, STRING, TIMESTAMP, describeType, listOf, type StaticType } from './schema';

export type PolicyCheckResult = { readonly ok: true; readonly ast: Expression } | { readonly ok: false; readonly error: PolicyParseError };

const PRIMITIVES: ReadonlySet<StaticType['kind']> = new Set(['bool', 'int', 'string', 'timestamp']);

/**
 * Parses `text` and checks everything that can be known before evaluation for an expression of `kind`: root
 * keywords, field names of known structs, methods and their arity, lambda variables bound only inside their
 * predicate, operand types, that the result can be a bool, and that its static cost is within the evaluation's step
 * budget. Absent or empty text imposes no constraint.
 */
export function checkPolicyExpression(text: string | undefined, kind: PolicyExpressionKind): PolicyCheckResult {
  try {
    const ast = parsePolicyExpression(text ?? '', kind);
    const type = new Checker(kind, ast).check(ast, new Map());
    if (!isBoolLike(type)) {
      throw new PolicyParseError(`a ${kind} expression must evaluate to a bool, but this one is a ${describeType(type)}`, ast.span, {
        expected: 'bool',
        found: describeType(type),
      });
    }
    const cost = staticCost(ast);
    if (cost > MAX_EVALUATION_STEPS) {
      throw new PolicyParseError(
        `this ${kind} is too costly to evaluate: its list functions over the lists it writes take ${costInWords(cost)} steps, ` +
          `more than the ${MAX_EVALUATION_STEPS.toLocaleString('en-US')} allowed; nest fewer any/all/filter calls or shorten their lists`,
        ast.span,
        { reason: 'TooCostly', steps: cost, maxSteps: MAX_EVALUATION_STEPS },
      );
    }
    return { ok: true, ast };
  } catch (error) {
    if (error instanceof PolicyParseError) return { ok: false, error };
    throw error;
  }
}

/** "1,234,567", or "more than 10^15" where digits would not be exact. */
function costInWords(cost: number): string {
  return cost < 1e15 ? cost.toLocaleString('en-US') : 'more than 10^15';
}

function isBoolLike(type: StaticType): boolean {
  return type.kind === 'bool' || type.kind === 'dynamic';
}

type Scope = ReadonlyMap<string, StaticType>;

class Checker {
  private readonly roots: Readonly<Record<string, StaticType>>;

  constructor(
    private readonly kind: PolicyExpressionKind,
    private readonly root: Expression,
  ) {
    this.roots = ROOTS_BY_KIND[kind];
  }

  check(node: Expression, scope: Scope): StaticType {
    switch (node.type) {
      case 'bool':
        return BOOL;
      case 'int':
        return INT;
      case 'string':
        return STRING;
      case 'timestamp':
        return TIMESTAMP;
      case 'cronSpan':
        return BOOL;
      case 'list':
        return this.checkList(node.items, scope);
      case 'identifier':
        return this.checkIdentifier(node.name, node.span, scope);
      case 'member':
        return this.fieldOf(this.check(node.object, scope), node.property, node.propertySpan);
      case 'index':
        return this.checkIndex(node.object, node.index, scope);
      case 'slice': {
        const object = this.check(node.object, scope);
        this.expectType(node.start, this.check(node.start, scope), ['int'], 'a slice bound');
        this.expectType(node.end, this.check(node.end, scope), ['int'], 'a slice bound');
        if (object.kind === 'list' || object.kind === 'string' || object.kind === 'dynamic') return object;
        throw this.error(node.object.span, `only lists and strings can be sliced, not a ${describeType(object)}`);
      }
      case 'lambda':
        return this.checkLambda(node, scope);
      case 'contains': {
        const element = this.elementOf(this.check(node.list, scope), node.list.span, 'contains()');
        this.expectComparable(node.value, element, this.check(node.value, scope), 'contains()');
        return BOOL;
      }
      case 'count':
        this.elementOf(this.check(node.list, scope), node.list.span, 'count()');
        return INT;
      case 'not':
        this.expectType(node.operand, this.check(node.operand, scope), ['bool'], "the operand of '!'");
        return BOOL;
      case 'logical':
        for (const operand of logicalOperands(node)) {
          this.expectType(operand, this.check(operand, scope), ['bool'], `an operand of '${node.operator}'`);
        }
        return BOOL;
      case 'comparison': {
        const left = this.check(node.left, scope);
        const right = this.check(node.right, scope);
        if (node.operator !== '==' && node.operator !== '!=') {
          this.expectType(node.left, left, ['int', 'timestamp'], `an operand of '${node.operator}'`);
          this.expectType(node.right, right, ['int', 'timestamp'], `an operand of '${node.operator}'`);
        }
        this.expectComparable(node.right, left, right, `'${node.operator}'`);
        return BOOL;
      }
      case 'in': {
        const element = this.elementOf(this.check(node.list, scope), node.list.span, "the right side of 'in'");
        this.expectComparable(node.value, element, this.check(node.value, scope), "'in'");
        return BOOL;
      }
    }
  }

  private error(span: SourceSpan, message: string, details?: Record<string, unknown>): PolicyParseError {
    return new PolicyParseError(message, span, details);
  }

  private checkList(items: readonly Expression[], scope: Scope): StaticType {
    let element: StaticType = DYNAMIC;
    let firstKnown: Expression | undefined;
    for (const item of items) {
      const type = this.check(item, scope);
      if (type.kind === 'dynamic') continue;
      if (firstKnown === undefined) {
        firstKnown = item;
        element = type;
      } else if (!PRIMITIVES.has(type.kind) || type.kind !== element.kind) {
        throw this.error(
          item.span,
          `list items must all have one type: this one is a ${describeType(type)}, the one at ${formatPosition(firstKnown.span)} a ${describeType(element)}`,
        );
      }
    }
    return listOf(element);
  }

  private checkIdentifier(name: string, span: SourceSpan, scope: Scope): StaticType {
    const bound = scope.get(name) ?? this.roots[name];
    if (bound !== undefined) return bound;
    const allowed = Object.keys(this.roots).join(', ');
    const otherKind = (Object.keys(ROOTS_BY_KIND) as PolicyExpressionKind[]).find(
      (kind) => kind !== 'scope' && ROOTS_BY_KIND[kind][name] !== undefined,
    );
    if (otherKind !== undefined) {
      throw this.error(span, `'${name}' belongs in ${otherKind} expressions; a ${this.kind} expression may use ${allowed}`, {
        found: name,
        expected: allowed,
      });
    }
    const binder = findLambdaBinding(this.root, name);
    if (binder !== undefined) {
      throw this.error(span, `'${name}' is only defined inside the predicate of the ${binder.method}() at ${formatPosition(binder.span)}`, {
        found: name,
      });
    }
    const variables = [...scope.keys()];
    const inScope = variables.length === 0 ? '' : `, or the variable${variables.length === 1 ? '' : 's'} ${variables.join(', ')}`;
    throw this.error(span, `unknown name '${name}': a ${this.kind} expression may use ${allowed}${inScope}`, {
      found: name,
      expected: allowed,
    });
  }

  private fieldOf(object: StaticType, field: string, span: SourceSpan): StaticType {
    switch (object.kind) {
      case 'dynamic':
        return DYNAMIC;
      case 'map':
        return object.value;
      case 'struct': {
        const type = object.fields[field];
        if (type !== undefined) return type;
        const fields = Object.keys(object.fields).join(', ');
        throw this.error(span, `${object.name} has no field '${field}'; its fields are ${fields}`, { found: field, expected: fields });
      }
      case 'list':
        // The docs write `transfers.count` without parentheses in two places; accept it as count().
        if (field === 'count') return INT;
        throw this.error(span, `a list has no field '${field}'; did you mean a method like any(), all(), filter(), contains() or count()?`);
      default:
        throw this.error(span, `cannot read field '${field}' of a ${describeType(object)}`);
    }
  }

  private checkIndex(objectNode: Expression, indexNode: Expression, scope: Scope): StaticType {
    const object = this.check(objectNode, scope);
    const index = this.check(indexNode, scope);
    switch (object.kind) {
      case 'dynamic':
        return DYNAMIC;
      case 'list':
        this.expectType(indexNode, index, ['int'], 'a list index');
        return object.element;
      case 'string':
        this.expectType(indexNode, index, ['int'], 'a string index');
        return STRING;
      case 'map':
        this.expectType(indexNode, index, ['string'], 'a map key');
        return object.value;
      case 'struct':
        this.expectType(indexNode, index, ['string'], 'a field name');
        return indexNode.type === 'string' ? this.fieldOf(object, indexNode.value, indexNode.span) : DYNAMIC;
      default:
        throw this.error(objectNode.span, `cannot index into a ${describeType(object)}`);
    }
  }

  private checkLambda(node: LambdaCall, scope: Scope): StaticType {
    const listType = this.check(node.list, scope);
    const element = this.elementOf(listType, node.list.span, `${node.method}()`);
    if (scope.has(node.variable) || this.roots[node.variable] !== undefined) {
      throw this.error(
        node.variableSpan,
        `the variable '${node.variable}' would hide the ${scope.has(node.variable) ? 'variable' : 'keyword'} of the same name; pick another name`,
        { found: node.variable },
      );
    }
    const inner = new Map(scope);
    inner.set(node.variable, element);
    this.expectType(node.predicate, this.check(node.predicate, inner), ['bool'], `the predicate of ${node.method}()`);
    return node.method === 'filter' ? listOf(element) : BOOL;
  }

  private elementOf(type: StaticType, span: SourceSpan, usage: string): StaticType {
    if (type.kind === 'list') return type.element;
    if (type.kind === 'dynamic') return DYNAMIC;
    throw this.error(span, `${usage} needs a list, but this is a ${describeType(type)}`, { expected: 'list', found: describeType(type) });
  }

  private expectType(node: Expression, type: StaticType, allowed: readonly StaticType['kind'][], role: string): void {
    if (type.kind === 'dynamic' || allowed.includes(type.kind)) return;
    throw this.error(node.span, `${role} must be ${allowed.map((kind) => `a ${kind}`).join(' or ')}, but this is a ${describeType(type)}`, {
      expected: allowed.join(' | '),
      found: describeType(type),
    });
  }

  /** Equality and membership compare two primitives of the same type. */
  private expectComparable(node: Expression, expected: StaticType, actual: StaticType, operator: string): void {
    for (const type of [expected, actual]) {
      if (type.kind !== 'dynamic' && !PRIMITIVES.has(type.kind)) {
        throw this.error(node.span, `${operator} compares strings, integers, bools and timestamps, not a ${describeType(type)}`);
      }
    }
    if (expected.kind === 'dynamic' || actual.kind === 'dynamic' || expected.kind === actual.kind) return;
    throw this.error(node.span, `${operator} cannot compare a ${describeType(expected)} with a ${describeType(actual)}`, {
      expected: describeType(expected),
      found: describeType(actual),
    });
  }
}

/** The first any/all/filter in `node` that binds `name`, for explaining a variable used out of its scope. */
function findLambdaBinding(node: Expression, name: string): LambdaCall | undefined {
  const pending: Expression[] = [node];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (current.type === 'lambda' && current.variable === name) return current;
    pending.push(...childrenOf(current));
  }
  return undefined;
}

/**
 * The children evaluated whenever `node` is: `&&` and `||` may stop after their left operand, and the predicate of
 * any/all/filter runs once per element, maybe never.
 */
export function unconditionalChildrenOf(node: Expression): Expression[] {
  if (node.type === 'logical') return [node.left];
  if (node.type === 'lambda') return [node.list];
  return childrenOf(node);
}

/** The operands of `node`, in evaluation order. */
export function childrenOf(node: Expression): Expression[] {
  switch (node.type) {
    case 'bool':
    case 'int':
    case 'string':
    case 'timestamp':
    case 'cronSpan':
    case 'identifier':
      return [];
    case 'list':
      return [...node.items];
    case 'member':
      return [node.object];
    case 'index':
      return [node.object, node.index];
    case 'slice':
      return [node.object, node.start, node.end];
    case 'lambda':
      return [node.list, node.predicate];
    case 'contains':
      return [node.list, node.value];
    case 'count':
      return [node.list];
    case 'not':
      return [node.operand];
    case 'logical':
    case 'comparison':
      return [node.left, node.right];
    case 'in':
      return [node.value, node.list];
  }
}
