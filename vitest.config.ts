import { defineConfig } from 'vitest/config';

/**
 * The test files that start the CLI as a process. They are a project of their own so that the CLI is built (its
 * global setup) only for a run that includes one of them; `builtCli()` (test/cli/helpers.ts) refuses to run in a file
 * not listed here.
 */
const STARTS_THE_CLI = ['test/cli/**/*.test.ts', 'test/main/journal-channels.test.ts', 'test/main/journal-bounded-verify.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: parallel files are fine, but keep the pool small so crypto-heavy suites don't starve.
    maxWorkers: 2,
    // A project's include and exclude add to the root's, so each project names its own files.
    projects: [
      { extends: true, test: { name: 'cli', include: STARTS_THE_CLI, globalSetup: ['test/support/cli-build-setup.ts'] } },
      { extends: true, test: { name: 'in-process', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', 'node_modules/**', ...STARTS_THE_CLI] } },
    ],
  },
});
