/**
 * Global setup of the test files that start the CLI (the `cli` project in vitest.config.ts): builds it once per run, from
 * the sources as they are now, into a folder of the run's own, and hands its path to the tests (`builtCli()` in
 * test/cli/helpers.ts). A folder per run, not out/cli: another run or `npm run cli` rebuilding there would swap the
 * files under running tests. It lives inside the repository so the bundle finds the keychain's module in node_modules.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';

const repo = join(import.meta.dirname, '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built CLI's entry, for `node` to run. */
    builtCli: string | undefined;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await mkdir(join(repo, '.tmp'), { recursive: true });
  const outDir = await mkdtemp(join(repo, '.tmp', 'cli-build-'));
  await build({ configFile: join(repo, 'vite.cli.config.ts'), logLevel: 'warn', build: { outDir } });
  project.provide('builtCli', join(outDir, 'quorumkey.js'));
  return () => rm(outDir, { recursive: true, force: true });
}
