/**
 * The layer boundaries of eslint.config.js (docs/architecture.md#import-directions), run on fixtures laid out like
 * src/: each import that breaks a rule fails lint with the boundaries error, and the allowed one passes.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = 'test/lint/fixtures/src';

let results: Map<string, Linter.LintMessage[]>;

beforeAll(async () => {
  const { layerBoundaries } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { layerBoundaries: Linter.Config };
  const eslint = new ESLint({ cwd: ROOT, overrideConfig: { ...layerBoundaries, files: [`${FIXTURES}/**/*.ts`] } });
  const linted = await eslint.lintFiles([FIXTURES]);
  results = new Map(linted.map((result) => [result.filePath.slice(ROOT.length + 1), result.messages]));
}, 60_000);

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

  it('allow main to embed the service through its entry', () => {
    expect(boundaryErrors('main/embeds-service.ts')).toEqual([]);
    expect(boundaryErrors('service/families/wallets.ts')).toEqual([]);
  });
});
