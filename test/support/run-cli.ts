/**
 * `npm run cli -- ARGS`: the built CLI (out/cli/quorumkey.js) with ARGS, rebuilt first when a file it bundles is newer
 * than the build (the list is the build's `sources.json`). Plain Node runs this file (its types are only stripped), so
 * a run that needs no build costs a few stat calls more than the bin itself. The build's own output goes to stderr:
 * stdout stays the CLI's.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = join(import.meta.dirname, '../..');
const outDir = join(repo, 'out/cli');
const builtEntry = join(outDir, 'quorumkey.js');

/** Why the build must be made again, or undefined when every file it bundles is older than it. */
function staleness(): string | undefined {
  let builtAt: number;
  let sources: string[];
  try {
    builtAt = statSync(builtEntry).mtimeMs;
    sources = JSON.parse(readFileSync(join(outDir, 'sources.json'), 'utf8')) as string[];
  } catch {
    return 'it is not built yet';
  }
  for (const source of sources) {
    const changedAt = statSync(join(repo, source), { throwIfNoEntry: false })?.mtimeMs;
    if (changedAt === undefined) return `${source} is gone`;
    if (changedAt > builtAt) return `${source} changed`;
  }
  return undefined;
}

const reason = staleness();
if (reason !== undefined) {
  process.stderr.write(`building the CLI into out/cli (${reason})\n`);
  const build = spawnSync(
    process.execPath,
    [join(repo, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'vite.cli.config.ts', '--logLevel', 'warn'],
    {
      cwd: repo,
      stdio: ['ignore', process.stderr, process.stderr],
    },
  );
  if (build.status !== 0) {
    process.stderr.write('the CLI did not build (the errors are above)\n');
    process.exit(1);
  }
}
// The built entry reads process.argv from index 2, as when it is run itself.
await import(pathToFileURL(builtEntry).href);
