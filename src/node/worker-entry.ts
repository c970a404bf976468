import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QkError } from '../shared/errors';

/**
 * A worker thread's entry file, found from the module that starts the worker (`moduleUrl`, its `import.meta.url`).
 * Run from source (tsx, vitest) it is the TypeScript file `sourceFile` beside that module, loaded through tsx. Built
 * (electron.vite.config.ts) it is its own entry `builtFile`, beside the module or one folder up, since the bundler
 * puts the module's code in `chunks/` or inlines it in an entry.
 */
export function workerEntry(moduleUrl: string, sourceFile: string, builtFile: string, what: string): { file: URL; execArgv: string[] } {
  const modulePath = fileURLToPath(moduleUrl);
  const here = dirname(modulePath);
  if (modulePath.endsWith('.ts')) return { file: pathToFileURL(join(here, sourceFile)), execArgv: ['--import', 'tsx'] };
  const built = [join(here, builtFile), join(here, '..', builtFile)].find((file) => existsSync(file));
  if (built === undefined) throw new QkError('INTERNAL', `the ${what}'s entry ${builtFile} is missing beside ${here}`);
  return { file: pathToFileURL(built), execArgv: [] };
}
