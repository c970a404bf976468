/**
 * Loads a dependency the way an aliased older release of a Turnkey package loads it: the release's own pinned copy,
 * through the ESM entry its `import` resolves to. Older signers test `client instanceof TurnkeyClient` against that
 * copy, so a client built from any other copy (or from its CommonJS twin) would take their other code path.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

export async function pinnedDependency<Module>(release: string, dependency: string): Promise<Module> {
  const commonJsEntry = createRequire(require.resolve(release)).resolve(dependency);
  const marker = `/node_modules/${dependency}/`;
  const root = commonJsEntry.slice(0, commonJsEntry.lastIndexOf(marker) + marker.length);
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports?: { '.'?: { import?: string } } };
  const esmEntry = manifest.exports?.['.']?.import;
  if (esmEntry === undefined) throw new Error(`${dependency} as pinned by ${release} declares no ESM entry in its exports`);
  return (await import(pathToFileURL(join(root, esmEntry)).href)) as Module;
}
