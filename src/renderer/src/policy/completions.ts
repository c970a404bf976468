/**
 * Completions for a policy expression at the caret, from the shared policy schema the checker uses: the keywords an
 * expression of this kind starts from (`eth`, `solana`, `bitcoin`, `activity`, `approvers`…), the fields of a struct
 * (`eth.tx.` → `to`, `value`, `function_name`…), the methods of a list, and the variables a lambda binds
 * (`approvers.any(user, user.` → `id`, `tags`…).
 */
import type { PolicyExpressionKind } from '../../../shared/policy/ast';
import { describeType, ROOTS_BY_KIND, type StaticType } from '../../../shared/policy/schema';

export interface Completion {
  /** What replaces the partial word before the caret. */
  insert: string;
  /** The type it has, in the checker's words. */
  detail: string;
}

const LIST_METHODS: readonly Completion[] = [
  { insert: 'count()', detail: 'int' },
  { insert: 'any(', detail: 'bool: any element matches' },
  { insert: 'all(', detail: 'bool: every element matches' },
  { insert: 'filter(', detail: 'list: the elements that match' },
  { insert: 'contains(', detail: 'bool: the list holds a value' },
];
const MAX_COMPLETIONS = 40;

/** Completions for the dotted path ending at `caret`, each with the text that replaces its last, partial part. */
export function completionsAt(text: string, caret: number, kind: PolicyExpressionKind): { partial: string; completions: Completion[] } {
  const before = text.slice(0, caret);
  const path = pathEndingAt(before, before.length);
  if (path === undefined) return { partial: '', completions: [] };
  const parts = path.split('.');
  const partial = parts.pop() ?? '';
  const scope = { ...ROOTS_BY_KIND[kind], ...lambdaVariables(before, kind) };
  if (parts.length === 0) {
    return {
      partial,
      completions: matching(
        Object.entries(scope).map(([name, type]) => ({ insert: name, detail: describeType(type) })),
        partial,
      ),
    };
  }
  let type: StaticType | undefined = scope[parts[0]!];
  for (const part of parts.slice(1)) type = type?.kind === 'struct' ? type.fields[part] : undefined;
  if (type === undefined) return { partial, completions: [] };
  if (type.kind === 'struct') {
    return {
      partial,
      completions: matching(
        Object.entries(type.fields).map(([name, field]) => ({ insert: name, detail: describeType(field) })),
        partial,
      ),
    };
  }
  if (type.kind === 'list') return { partial, completions: matching(LIST_METHODS, partial) };
  return { partial, completions: [] };
}

function matching(candidates: readonly Completion[], partial: string): Completion[] {
  return candidates.filter((candidate) => candidate.insert.startsWith(partial) && candidate.insert !== partial).slice(0, MAX_COMPLETIONS);
}

/** `list.any(x, …`: while the caret is inside such a call, `x` is an element of `list`. */
function lambdaVariables(before: string, kind: PolicyExpressionKind): Record<string, StaticType> {
  const variables: Record<string, StaticType> = {};
  for (const method of ['.any(', '.all(', '.filter(']) {
    for (let at = before.indexOf(method); at !== -1; at = before.indexOf(method, at + 1)) {
      const list = pathEndingAt(before, at);
      const variable = /^\s*([A-Za-z_]\w*)\s*,/.exec(before.slice(at + method.length))?.[1];
      if (list === undefined || variable === undefined) continue;
      const [root, ...fields] = list.split('.');
      let type: StaticType | undefined = { ...ROOTS_BY_KIND[kind], ...variables }[root!];
      for (const field of fields) type = type?.kind === 'struct' ? type.fields[field] : undefined;
      if (type?.kind === 'list') variables[variable] = type.element;
    }
  }
  return variables;
}

const PATH_CHARACTER = /[\w.]/;

/** The dotted path (`eth.tx.fu`, `approvers.`) that ends at `end`, or undefined when none does. */
function pathEndingAt(text: string, end: number): string | undefined {
  let start = end;
  while (start > 0 && PATH_CHARACTER.test(text[start - 1]!)) start -= 1;
  const path = text.slice(start, end);
  return /^[A-Za-z_]/.test(path) && !path.includes('..') ? path : undefined;
}
