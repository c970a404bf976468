/**
 * A policy field's change, token by token: what stayed, what went and what came, so `1000000000 → 2000000000` shows
 * the one literal that changed rather than two whole lines. Integers of expressions read with their digits grouped
 * (1,000,000,000), and each literal keeps what the policy reading says it means (a name, units).
 */
import type { ExpressionGloss, ExpressionPiece } from './policy-reading';

export type DiffChange = 'same' | 'removed' | 'added';
export interface DiffPiece extends ExpressionPiece {
  change: DiffChange;
}

interface Lexeme extends ExpressionPiece {
  /** What is compared: the text as written. */
  key: string;
}

/** Whitespace, a quoted string, a number, a word, a two-character operator, or any other character. */
const LEXEME = /\s+|'(?:[^'\\]|\\.)*'?|\d+|[A-Za-z_]\w*|&&|\|\||[=!<>]=|\.\.|\S/gu;
/** Beyond this many cells the changed middle is shown as removed then added, not aligned: bounded work. */
const MAX_TABLE_CELLS = 250_000;

export interface DiffOptions {
  /** Group the digits of integers (expressions; not names or notes, which are shown as written). */
  groupDigits: boolean;
}

/** The change from `before` to `after`, each with the glosses its reading gave it. */
export function diffPolicyText(
  before: { text: string; glosses: readonly ExpressionGloss[] },
  after: { text: string; glosses: readonly ExpressionGloss[] },
  options: DiffOptions,
): DiffPiece[] {
  const a = lexemes(before.text, before.glosses, options);
  const b = lexemes(after.text, after.glosses, options);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix]!.key === b[prefix]!.key) prefix += 1;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix]!.key === b[b.length - 1 - suffix]!.key) suffix += 1;
  const pieces: DiffPiece[] = [
    ...b.slice(0, prefix).map((lexeme) => piece(lexeme, 'same')),
    ...alignMiddle(a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix)),
    ...b.slice(b.length - suffix).map((lexeme) => piece(lexeme, 'same')),
  ];
  return merged(pieces);
}

function lexemes(text: string, glosses: readonly ExpressionGloss[], { groupDigits }: DiffOptions): Lexeme[] {
  const byOffset = new Map(glosses.map(({ offset, length, ...meaning }) => [offset, { length, meaning }]));
  return Array.from(text.matchAll(LEXEME), (match) => {
    const written = match[0];
    const gloss = byOffset.get(match.index);
    const meaning = gloss !== undefined && gloss.length === written.length ? gloss.meaning : {};
    const shown = groupDigits && /^\d{4,}$/.test(written) ? BigInt(written).toLocaleString('en-US') : written;
    return { key: written, text: shown, ...meaning };
  });
}

function piece({ key: _key, ...shown }: Lexeme, change: DiffChange): DiffPiece {
  return { ...shown, change };
}

/** Longest common subsequence of the changed middle. */
function alignMiddle(a: readonly Lexeme[], b: readonly Lexeme[]): DiffPiece[] {
  if (a.length * b.length > MAX_TABLE_CELLS) return [...a.map((lexeme) => piece(lexeme, 'removed')), ...b.map((lexeme) => piece(lexeme, 'added'))];
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i]!.key === b[j]!.key ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const pieces: DiffPiece[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]!.key === b[j]!.key) {
      pieces.push(piece(b[j]!, 'same'));
      i++;
      j++;
    } else if (common[i + 1]![j]! >= common[i]![j + 1]!) {
      pieces.push(piece(a[i++]!, 'removed'));
    } else {
      pieces.push(piece(b[j++]!, 'added'));
    }
  }
  while (i < a.length) pieces.push(piece(a[i++]!, 'removed'));
  while (j < b.length) pieces.push(piece(b[j++]!, 'added'));
  return pieces;
}

/** Neighbouring plain pieces of the same change as one: fewer pieces for the window to lay out. */
function merged(pieces: readonly DiffPiece[]): DiffPiece[] {
  const plain = (candidate: DiffPiece) => candidate.name === undefined && candidate.units === undefined && candidate.note === undefined;
  const out: DiffPiece[] = [];
  for (const current of pieces) {
    const last = out.at(-1);
    if (last !== undefined && last.change === current.change && plain(last) && plain(current))
      out[out.length - 1] = { ...last, text: last.text + current.text };
    else out.push(current);
  }
  return out;
}
