/**
 * A policy that compares `activity.type` with a name no activity has matches nothing, silently. This finds such
 * names in an expression and suggests the closest known one, for an inline warning while the operator types.
 */
import { tokenize } from './tokenizer';

export interface UnknownActivityType {
  name: string;
  /** The known type closest in spelling, when one is close enough to be a likely typo. */
  suggestion: string | undefined;
}

/** `ACTIVITY_TYPE_*` string literals of `expression` that are not in `knownTypes`. */
export function unknownActivityTypes(expression: string, knownTypes: readonly string[]): UnknownActivityType[] {
  let literals: string[];
  try {
    literals = tokenize(expression).flatMap((token) => (token.kind === 'string' && token.value.startsWith('ACTIVITY_TYPE_') ? [token.value] : []));
  } catch {
    // The parse error is reported on its own.
    return [];
  }
  const known = new Set(knownTypes);
  return [...new Set(literals)].filter((name) => !known.has(name)).map((name) => ({ name, suggestion: closest(name, knownTypes) }));
}

function closest(name: string, candidates: readonly string[]): string | undefined {
  // Beyond a third of the name's own letters it is another word, not a typo.
  const significant = name.length - 'ACTIVITY_TYPE_'.length;
  return nearestName(name, candidates, Math.max(2, Math.floor(significant / 3)));
}

/** The candidate closest in spelling to `name`, when it is at most `maxDistance` edits away. */
export function nearestName(name: string, candidates: Iterable<string>, maxDistance: number): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  return best !== undefined && best.distance <= maxDistance ? best.candidate : undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
