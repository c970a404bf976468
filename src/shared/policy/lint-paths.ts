/**
 * What the linter reads off an expression: each sub-expression with the field path it names (`eth.tx.to`,
 * `solana.tx.transfers[].to` for the variable of a `transfers.any(t, …)`), and the string literals compared with a path.
 */
import type { Expression } from './ast';
import { childrenOf } from './check';

/** Variables bound by any/all/filter, each to the path of one element of its list. */
type Scope = ReadonlyMap<string, string>;

/** The field path `node` names, or undefined when it is not a plain read (a call, a literal, a computed index). */
export function pathOf(node: Expression, scope: Scope): string | undefined {
  switch (node.type) {
    case 'identifier':
      return scope.get(node.name) ?? node.name;
    case 'member': {
      const object = pathOf(node.object, scope);
      return object === undefined ? undefined : `${object}.${node.property}`;
    }
    case 'index': {
      const object = pathOf(node.object, scope);
      if (object === undefined) return undefined;
      if (node.index.type === 'string') return `${object}.${node.index.value}`;
      return node.index.type === 'int' ? `${object}[]` : undefined;
    }
    case 'lambda':
      return node.method === 'filter' ? pathOf(node.list, scope) : undefined;
    default:
      return undefined;
  }
}

/** Visits every sub-expression of `root` with the variables in scope there, parents before children. */
export function visitWithScope(root: Expression, visit: (node: Expression, scope: Scope) => void): void {
  const walk = (node: Expression, scope: Scope): void => {
    visit(node, scope);
    if (node.type === 'lambda') {
      walk(node.list, scope);
      const list = pathOf(node.list, scope);
      walk(node.predicate, list === undefined ? scope : new Map(scope).set(node.variable, `${list}[]`));
      return;
    }
    for (const child of childrenOf(node)) walk(child, scope);
  };
  walk(root, new Map());
}

/** A string literal compared with a field: `path == 'x'`, `path in ['x', …]`, `list.contains('x')`, … */
export interface ComparedLiteral {
  /** The path of the value compared; a list's elements are `list[]`. */
  readonly path: string;
  readonly literal: Extract<Expression, { type: 'string' }>;
}

/** The string literals `node` itself compares with a field path. */
export function comparedLiterals(node: Expression, scope: Scope): ComparedLiteral[] {
  const pair = (field: Expression, other: Expression, elementOf = false): ComparedLiteral[] => {
    const path = pathOf(field, scope);
    if (path === undefined) return [];
    const literals = other.type === 'string' ? [other] : other.type === 'list' ? other.items.filter((item) => item.type === 'string') : [];
    return literals.map((literal) => ({ path: elementOf ? `${path}[]` : path, literal }));
  };
  switch (node.type) {
    case 'comparison':
      if (node.operator !== '==' && node.operator !== '!=') return [];
      return [...pair(node.left, node.right), ...pair(node.right, node.left)];
    case 'in':
      return node.list.type === 'list' ? pair(node.value, node.list) : pair(node.list, node.value, true);
    case 'contains':
      return node.list.type === 'list' ? pair(node.value, node.list) : pair(node.list, node.value, true);
    default:
      return [];
  }
}

/** Whether two expressions are the same text up to whitespace and positions. */
export function sameExpression(a: Expression, b: Expression): boolean {
  return JSON.stringify(a, withoutSpans) === JSON.stringify(b, withoutSpans);
}

function withoutSpans(key: string, value: unknown): unknown {
  if (key === 'span' || key === 'propertySpan' || key === 'variableSpan') return undefined;
  return typeof value === 'bigint' ? `${value}n` : value;
}
