/**
 * The layer boundaries of eslint.config.js (docs/architecture.md#import-directions), run on fixtures laid out like
 * src/: each import that breaks a rule fails lint with the boundaries error, and the allowed one passes. The tables
 * in docs/architecture.md must state exactly the elements and directions the lint encodes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = 'test/lint/fixtures/src';

interface LintLayers {
  layerBoundaries: Linter.Config;
  rendererImports: Linter.Config;
  importCycles: Linter.Config;
  layers: { type: string; pattern: string }[];
  mayImport: Record<string, string[]>;
}

let lint: LintLayers;
let results: Map<string, Linter.LintMessage[]>;

beforeAll(async () => {
  lint = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as LintLayers;
  const { layerBoundaries, rendererImports, importCycles } = lint;
  // The rules under test alone, with the TypeScript parser and no type information: the fixtures need nothing else,
  // and eslint.config.js as a whole would build a type program over the whole tree first (what `npm run lint` does).
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [
      { files: [`${FIXTURES}/**/*.ts`], languageOptions: { parser: tseslint.parser } },
      { ...layerBoundaries, files: [`${FIXTURES}/**/*.ts`] },
      { ...importCycles, files: [`${FIXTURES}/main/cycle/*.ts`, `${FIXTURES}/main/handed-in/*.ts`] },
      {
        ...rendererImports,
        files: [
          `${FIXTURES}/renderer/imports-chain-library.ts`,
          `${FIXTURES}/renderer/imports-policy-evaluator.ts`,
          `${FIXTURES}/renderer/imports-vote-counting.ts`,
        ],
      },
    ],
  });
  const linted = await eslint.lintFiles([FIXTURES]);
  results = new Map(linted.map((result) => [result.filePath.slice(ROOT.length + 1), result.messages]));
}, 180_000);

function boundaryErrors(file: string): string[] {
  const messages = results.get(`${FIXTURES}/${file}`);
  if (messages === undefined) throw new Error(`${file} was not linted`);
  return messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('layer boundaries', () => {
  it('refuse an upward import from shared into the service', () => {
    expect(boundaryErrors('shared/imports-service.ts')).toEqual([
      'boundaries/dependencies: There is no policy allowing dependencies from elements of type "shared" to elements of type "service"',
    ]);
  });

  it('refuse an import the resolver cannot follow', () => {
    expect(boundaryErrors('shared/imports-service-js.ts')).toEqual([
      'boundaries/no-unknown-dependencies: Dependencies to unknown elements and files are not allowed',
    ]);
  });

  it("refuse the service's pipeline importing a family", () => {
    expect(boundaryErrors('service/activities/imports-family.ts')).toEqual([
      'boundaries/dependencies: There is no policy allowing dependencies from elements of type "service-activities" to elements of type "service-families"',
    ]);
  });

  it("refuse main reaching past the service's entry", () => {
    expect(boundaryErrors('main/reaches-into-service.ts')).toEqual([
      'boundaries/dependencies: There is no policy allowing dependencies from elements of type "main" to elements of type "service"',
    ]);
  });

  it('refuse the renderer importing main', () => {
    expect(boundaryErrors('renderer/imports-main.ts')).toEqual([
      'boundaries/dependencies: There is no policy allowing dependencies from elements of type "renderer" to elements of type "main"',
    ]);
  });

  it('refuse the renderer importing a chain decoder from shared', () => {
    expect(boundaryErrors('renderer/imports-decoder.ts')).toEqual([
      'boundaries/dependencies: There is no policy allowing dependencies from elements of type "renderer" to elements of type "decoders"',
    ]);
  });

  it('refuse the renderer importing a chain library', () => {
    expect(boundaryErrors('renderer/imports-chain-library.ts')).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*bundles no chain decoder/),
    ]);
  });

  it('refuse the renderer importing the policy evaluator, directly or through the language index', () => {
    expect(boundaryErrors('renderer/imports-policy-evaluator.ts')).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*The window evaluates no policy/),
      expect.stringMatching(/^no-restricted-imports: .*The window evaluates no policy/),
    ]);
  });

  it('refuse the renderer counting votes with the voting helpers, and leave their types open', () => {
    expect(boundaryErrors('renderer/imports-vote-counting.ts')).toEqual([
      expect.stringMatching(/^no-restricted-imports: 'currentVoteOf' import from .* The window counts no votes/),
      expect.stringMatching(/^no-restricted-imports: 'tallyVotes' import from .* The window counts no votes/),
    ]);
  });

  it('allow main to read with the decoders', () => {
    expect(boundaryErrors('main/reads-with-decoder.ts')).toEqual([]);
  });

  it('allow main to embed the service through its entry', () => {
    expect(boundaryErrors('main/embeds-service.ts')).toEqual([]);
    expect(boundaryErrors('service/families/wallets.ts')).toEqual([]);
  });
});

describe('import cycles', () => {
  it('refuse two modules that import each other, at both ends', () => {
    expect(boundaryErrors('main/cycle/ledger.ts')).toEqual(['import-x/no-cycle: Dependency cycle detected']);
    expect(boundaryErrors('main/cycle/teller.ts')).toEqual(['import-x/no-cycle: Dependency cycle detected']);
  });

  it('allow a function handed in, with a type-only import back', () => {
    expect(boundaryErrors('main/handed-in/journal.ts')).toEqual([]);
    expect(boundaryErrors('main/handed-in/client.ts')).toEqual([]);
  });
});

/** The rows of the Markdown table that follows `intro` in the import-directions section: first cell → other cells. */
function tableAfter(intro: string): Map<string, string> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Import directions'), doc.indexOf('## Where code goes'));
  const rows = section.slice(section.indexOf(intro)).split('\n\n')[1]!.split('\n').slice(2);
  return new Map(
    rows.map((row) => {
      const [, first = '', rest = ''] = /^\| ([^|]+) \| (.+) \|$/.exec(row) ?? [];
      return [first.replace(/`/g, ''), rest];
    }),
  );
}

/** The backticked element names in a cell. */
function names(cell: string): string[] {
  return [...cell.matchAll(/`([a-z-]+)`/g)].map((match) => match[1]!);
}

describe('docs/architecture.md', () => {
  it('names the elements the lint classifies, with their folders', () => {
    const folders = tableAfter('names the layers');
    expect([...folders.keys()]).toEqual(lint.layers.map((layer) => layer.type));
    for (const { type, pattern } of lint.layers) expect(folders.get(type), type).toMatch(new RegExp(`^\`${pattern}\``));
  });

  it('lists exactly the import directions the lint allows', () => {
    const directions = tableAfter('and lets each import');
    expect([...directions.keys()].sort()).toEqual(Object.keys(lint.mayImport).sort());
    for (const [from, allowed] of Object.entries(lint.mayImport)) {
      const documented = names(directions.get(from)!);
      // main also reaches the service, through its entry only (the lint's serviceEntry selector).
      const expected = from === 'main' ? [...allowed, 'service'] : allowed;
      expect(documented.sort(), from).toEqual([...expected].sort());
    }
  });
});
