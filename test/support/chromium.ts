/**
 * Which Chromium the end-to-end tests and the browser preview drive: never Playwright's download. An explicit path
 * from the environment wins (QK_CHROMIUM_PATH, else Playwright's own PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH); otherwise
 * the system's `chromium` (or `chromium-browser`) found on PATH, as `which` would.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const CHROMIUM_ENV_VARIABLES = ['QK_CHROMIUM_PATH', 'PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH'] as const;
const SYSTEM_NAMES = ['chromium', 'chromium-browser'];

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  for (const name of CHROMIUM_ENV_VARIABLES) {
    const path = env[name];
    if (path === undefined || path === '') continue;
    if (!isExecutableFile(path)) throw new Error(`${name}=${path} is not an executable file; point it at a Chromium binary`);
    return path;
  }
  const searched = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  for (const dir of searched) {
    for (const name of SYSTEM_NAMES) {
      if (isExecutableFile(join(dir, name))) return join(dir, name);
    }
  }
  throw new Error(
    `no Chromium found: set ${CHROMIUM_ENV_VARIABLES.join(' or ')} to its path, or install the system's (apt-get install chromium); searched PATH for ${SYSTEM_NAMES.join(', ')}`,
  );
}
