/**
 * The window's React lint (`rendererReact` in eslint.config.js, docs/architecture.md#import-directions), run on
 * fixtures laid out like src/renderer: the hooks rules and the accessibility rules each refuse their mistake, and a
 * scrolling box of text made a named region passes.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = 'test/lint/fixtures/src/renderer';

let results: Map<string, Linter.LintMessage[]>;

beforeAll(async () => {
  const { rendererReact } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { rendererReact: Linter.Config[] };
  // The React configs alone, with the TypeScript parser and no type information: eslint.config.js as a whole would
  // build a type program over the whole tree first (what `npm run lint` does), which these rules do not read.
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [
      { files: [`${FIXTURES}/*.tsx`], languageOptions: { parser: tseslint.parser } },
      ...rendererReact.map((config) => ({ ...config, files: [`${FIXTURES}/*.tsx`] })),
    ],
  });
  const linted = await eslint.lintFiles([`${FIXTURES}/*.tsx`]);
  results = new Map(linted.map((result) => [result.filePath.slice(ROOT.length + 1), result.messages]));
}, 180_000);

function ruleIds(file: string): (string | null)[] {
  const messages = results.get(`${FIXTURES}/${file}`);
  if (messages === undefined) throw new Error(`${file} was not linted`);
  return messages.map((message) => message.ruleId);
}

describe("the window's React lint", () => {
  it('refuses state set synchronously in an effect', () => {
    expect(ruleIds('sets-state-in-effect.tsx')).toEqual(['react-hooks/set-state-in-effect']);
  });

  it('refuses autoFocus', () => {
    expect(ruleIds('autofocus.tsx')).toEqual(['jsx-a11y-x/no-autofocus']);
  });

  it('refuses a tab stop on plain text', () => {
    expect(ruleIds('focusable-text.tsx')).toEqual(['jsx-a11y-x/no-noninteractive-tabindex']);
  });

  it('allows a scrolling box of text that is a named region', () => {
    expect(ruleIds('scroll-region.tsx')).toEqual([]);
  });
});
