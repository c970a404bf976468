import type { SourceSpan } from './ast';
import { PolicyParseError } from './errors';

/** Longest expression accepted; policies are short, and this bounds the work an operator's typo can cause. */
export const MAX_EXPRESSION_LENGTH = 16_384;

export type PunctuationKind = '&&' | '||' | '!' | '==' | '!=' | '<' | '>' | '<=' | '>=' | '.' | '..' | ',' | '(' | ')' | '[' | ']';

export type Token =
  | { readonly kind: 'string'; readonly value: string; readonly span: SourceSpan }
  | { readonly kind: 'int'; readonly value: bigint; readonly span: SourceSpan }
  | { readonly kind: 'identifier'; readonly name: string; readonly span: SourceSpan }
  | { readonly kind: 'true' | 'false' | 'in' | 'end'; readonly span: SourceSpan }
  | { readonly kind: PunctuationKind; readonly span: SourceSpan };

export type TokenKind = Token['kind'];

// Longest first, so that `<=` is not read as `<` `=` and `..` not as `.` `.`.
const PUNCTUATION: readonly PunctuationKind[] = ['&&', '||', '==', '!=', '<=', '>=', '..', '!', '<', '>', '.', ',', '(', ')', '[', ']'];

const KEYWORDS = new Set(['true', 'false', 'in']);

const isDigit = (char: string): boolean => char >= '0' && char <= '9';
const isIdentifierStart = (char: string): boolean => (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_';
const isIdentifierPart = (char: string): boolean => isIdentifierStart(char) || isDigit(char);
const isWhitespace = (char: string): boolean => char === ' ' || char === '\t' || char === '\n' || char === '\r';

/** Splits a policy expression into tokens, each with its position; the last token is always `end`. */
export function tokenize(text: string): Token[] {
  if (text.length > MAX_EXPRESSION_LENGTH) {
    throw new PolicyParseError(
      `expression is ${text.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}. Split it into several policies`,
      { offset: MAX_EXPRESSION_LENGTH, line: 1, column: 1, length: 0 },
      { limit: MAX_EXPRESSION_LENGTH },
    );
  }
  const tokens: Token[] = [];
  let offset = 0;
  let line = 1;
  let lineStart = 0;
  const spanFrom = (start: number, startLine: number, startLineStart: number): SourceSpan => ({
    offset: start,
    line: startLine,
    column: start - startLineStart + 1,
    length: offset - start,
  });
  const here = (length: number): SourceSpan => ({ offset, line, column: offset - lineStart + 1, length });

  while (offset < text.length) {
    const char = text[offset]!;
    if (isWhitespace(char)) {
      offset += 1;
      if (char === '\n') {
        line += 1;
        lineStart = offset;
      }
      continue;
    }
    const start = offset;
    const startLine = line;
    const startLineStart = lineStart;

    if (char === "'") {
      offset += 1;
      let value = '';
      for (;;) {
        if (offset >= text.length) {
          throw new PolicyParseError(
            `unterminated string: the string opened at ${startLine}:${start - startLineStart + 1} has no closing "'"`,
            spanFrom(start, startLine, startLineStart),
            { expected: "'", found: 'end of expression' },
          );
        }
        const next = text[offset]!;
        if (next === "'") {
          offset += 1;
          break;
        }
        if (next === '\\') {
          const escaped = text[offset + 1];
          if (escaped !== "'" && escaped !== '\\') {
            throw new PolicyParseError(
              escaped === undefined
                ? 'unterminated string: it ends with a lone backslash'
                : `unknown escape '\\${escaped}' in string: only \\' and \\\\ are allowed`,
              here(escaped === undefined ? 1 : 2),
            );
          }
          value += escaped;
          offset += 2;
          continue;
        }
        if (next === '\n') {
          line += 1;
          lineStart = offset + 1;
        }
        value += next;
        offset += 1;
      }
      tokens.push({ kind: 'string', value, span: spanFrom(start, startLine, startLineStart) });
      continue;
    }

    if (char === '"') {
      throw new PolicyParseError(`strings use single quotes: write 'text', not "text"`, here(1), { expected: "'", found: '"' });
    }

    if (isDigit(char)) {
      while (offset < text.length && isDigit(text[offset]!)) offset += 1;
      if (offset < text.length && isIdentifierPart(text[offset]!)) {
        while (offset < text.length && isIdentifierPart(text[offset]!)) offset += 1;
        throw new PolicyParseError(
          `malformed number '${text.slice(start, offset)}': integers are decimal digits only (quote it if it is a string)`,
          spanFrom(start, startLine, startLineStart),
        );
      }
      tokens.push({ kind: 'int', value: BigInt(text.slice(start, offset)), span: spanFrom(start, startLine, startLineStart) });
      continue;
    }

    if (isIdentifierStart(char)) {
      while (offset < text.length && isIdentifierPart(text[offset]!)) offset += 1;
      const word = text.slice(start, offset);
      const span = spanFrom(start, startLine, startLineStart);
      if (KEYWORDS.has(word)) tokens.push({ kind: word as 'true' | 'false' | 'in', span });
      else tokens.push({ kind: 'identifier', name: word, span });
      continue;
    }

    const punctuation = PUNCTUATION.find((candidate) => text.startsWith(candidate, offset));
    if (punctuation !== undefined) {
      offset += punctuation.length;
      tokens.push({ kind: punctuation, span: spanFrom(start, startLine, startLineStart) });
      continue;
    }

    throw new PolicyParseError(describeStrayCharacter(char), here(1), { found: char });
  }
  tokens.push({ kind: 'end', span: here(0) });
  return tokens;
}

function describeStrayCharacter(char: string): string {
  switch (char) {
    case '=':
      return "unexpected '=': use '==' to compare";
    case '&':
      return "unexpected '&': the logical and is '&&'";
    case '|':
      return "unexpected '|': the logical or is '||'";
    default:
      return `unexpected character '${char}'`;
  }
}
