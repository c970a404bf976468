/**
 * Which Chromium the end-to-end tests and the browser preview drive: never Playwright's download. An explicit path
 * from the environment wins (QK_CHROMIUM_PATH, else Playwright's own PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH); otherwise
 * the system's `chromium` (or `chromium-browser`) found on PATH, as `which` would.
 *
 * Headless runs (the end-to-end tests) prefer Debian's `chromium-headless-shell`: the same engine without the
 * browser's window layer, which cuts Chromium's CPU per e2e test by about 30%.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const CHROMIUM_ENV_VARIABLES = ['QK_CHROMIUM_PATH', 'PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH'] as const;
const SYSTEM_NAMES = ['chromium', 'chromium-browser'];
/** Debian's package of Chromium's headless-only build (the old headless mode, without the browser's window layer). */
const HEADLESS_SHELL_NAME = 'chromium-headless-shell';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function fromEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  for (const name of CHROMIUM_ENV_VARIABLES) {
    const path = env[name];
    if (path === undefined || path === '') continue;
    if (!isExecutableFile(path)) throw new Error(`${name}=${path} is not an executable file; point it at a Chromium binary`);
    return path;
  }
  return undefined;
}

function onPath(env: NodeJS.ProcessEnv, names: readonly string[]): string | undefined {
  const searched = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  for (const dir of searched) {
    for (const name of names) {
      if (isExecutableFile(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/**
 * The Chromium for runs that never show a window: an explicit path from the environment, else `chromium-headless-shell`
 * on PATH, else the full browser (findChromium), which runs headless too at about twice the browser-side CPU.
 */
export function findHeadlessChromium(env: NodeJS.ProcessEnv = process.env): string {
  return fromEnvironment(env) ?? onPath(env, [HEADLESS_SHELL_NAME]) ?? findChromium(env);
}

export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const found = fromEnvironment(env) ?? onPath(env, SYSTEM_NAMES);
  if (found !== undefined) return found;
  throw new Error(
    `no Chromium found: set ${CHROMIUM_ENV_VARIABLES.join(' or ')} to its path, or install the system's (apt-get install chromium); searched PATH for ${SYSTEM_NAMES.join(', ')}`,
  );
}
