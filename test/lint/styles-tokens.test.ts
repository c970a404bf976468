/**
 * The window's spacing, radii and type sizes come from the tokens defined in styles.css's `:root`
 * (docs/architecture.md#import-directions): a margin, padding, gap, border-radius or font-size written as a literal
 * length is refused, 0 and keywords allowed, and every token such a declaration names must be defined.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const STYLES = join(import.meta.dirname, '../../src/renderer/src/styles.css');

const TOKENED_PROPERTY = /^(?:(?:margin|padding)(?:-[a-z]+)*|(?:row-|column-)?gap|border(?:-[a-z]+)*-radius|font-size)$/;
/** A number with a unit or a percentage, not part of a name. */
const LENGTH = /(?<![\w.-])(?:\d+(?:\.\d+)?|\.\d+)(?:[a-z]+|%)/gi;
const TOKEN_USE = /(?<=var\()--(?:space|radius|font-size)-[\w-]+/g;

interface Declaration {
  line: number;
  property: string;
  value: string;
}

/** The `property: value` pieces of a stylesheet: text ended by `;` or `}` (text ended by `{` is a selector). */
function declarations(css: string): Declaration[] {
  // Comments blanked, not removed, so line numbers still point into the file.
  const code = css.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '));
  const found: Declaration[] = [];
  let start = 0;
  for (let index = 0; index < code.length; index += 1) {
    const char = code[index];
    if (char !== ';' && char !== '}' && char !== '{') continue;
    const text = code.slice(start, index);
    const colon = text.indexOf(':');
    if (char !== '{' && colon > 0) {
      const leading = text.length - text.trimStart().length;
      found.push({
        line: code.slice(0, start + leading).split('\n').length,
        property: text.slice(0, colon).trim().toLowerCase(),
        value: text.slice(colon + 1).trim(),
      });
    }
    start = index + 1;
  }
  return found;
}

/** Each declaration of a tokened property that still holds a literal length, as `line: property: value`. */
function literalLengths(css: string): string[] {
  return declarations(css)
    .filter(({ property }) => TOKENED_PROPERTY.test(property))
    .filter(({ value }) => (value.replace(/var\([^)]*\)/g, '').match(LENGTH) ?? []).length > 0)
    .map(({ line, property, value }) => `${line}: ${property}: ${value}`);
}

/** Tokens named by a tokened declaration that no custom property defines (a typo falls back silently in CSS). */
function undefinedTokens(css: string): string[] {
  const all = declarations(css);
  const defined = new Set(all.map(({ property }) => property).filter((property) => property.startsWith('--')));
  const used = all.filter(({ property }) => TOKENED_PROPERTY.test(property)).flatMap(({ value }) => value.match(TOKEN_USE) ?? []);
  return [...new Set(used)].filter((token) => !defined.has(token));
}

const FIXTURE = `
:root {
  --space-2: 4px;
  --radius-m: 6px;
}
/* margin: 3px in a comment is not a declaration */
.fine, a:hover {
  margin: 0 auto;
  padding: var(--space-2) 0 !important;
  border-radius: var(--radius-m) 0 0 var(--radius-m);
  width: 320px;
  border: 1px solid var(--border);
}
.literal {
  padding: 6px var(--space-2);
  gap: 0.75rem;
  border-top-left-radius: 50%;
  font-size: 12.5px;
  margin-block: 0;
}
.typo {
  margin-left: var(--space-22);
}
`;

describe('the styles lint', () => {
  it('refuses literal lengths in margin, padding, gap, radius and font-size, and names each', () => {
    expect(literalLengths(FIXTURE)).toEqual([
      '15: padding: 6px var(--space-2)',
      '16: gap: 0.75rem',
      '17: border-top-left-radius: 50%',
      '18: font-size: 12.5px',
    ]);
  });

  it('refuses a token that is not defined', () => {
    expect(undefinedTokens(FIXTURE)).toEqual(['--space-22']);
  });

  it('finds styles.css built from its tokens alone', () => {
    const css = readFileSync(STYLES, 'utf8');
    expect(literalLengths(css)).toEqual([]);
    expect(undefinedTokens(css)).toEqual([]);
  });
});
