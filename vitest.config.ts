import { defineConfig } from 'vitest/config';

/**
 * The test files that start the CLI as a process. They are a project of their own so that the CLI is built (its
 * global setup) only for a run that includes one of them; `builtCli()` (test/cli/helpers.ts) refuses to run in a file
 * not listed here.
 */
const STARTS_THE_CLI = ['test/cli/**/*.test.ts', 'test/main/journal-channels.test.ts', 'test/main/journal-bounded-verify.test.ts'];

/** The test files that install the Sandbox's package: `npm pack ./sandbox` runs once, in their project's global setup. */
const INSTALL_THE_PACKAGE = ['test/service/package.test.ts', 'test/service/package-flows.test.ts'];

/**
 * The unit files share a worker and the modules it loaded (`isolate: false`): a fresh process per file spent most of
 * their time importing the same libraries again. A unit file that mocks a module, stubs a global, fakes timers or
 * sets an environment variable would leak that into the files after it, so it is listed here and runs in a process
 * of its own.
 */
const UNIT_FILES_THAT_MOCK = ['test/unit/enclave/seed-cache.test.ts', 'test/unit/renderer/write-invalidations.test.ts'];

/**
 * The projects whose tests start worker threads or the service's processes run their entries built once per run by
 * this setup, instead of compiling each one's TypeScript on every start.
 */
const BUILD_THE_ENTRIES = 'test/support/built-entries-setup.ts';

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: parallel files are fine, but keep the pool small so crypto-heavy suites don't starve.
    maxWorkers: 2,
    // A project's include and exclude add to the root's, so each project names its own files.
    projects: [
      {
        extends: true,
        test: { name: 'cli', include: STARTS_THE_CLI, globalSetup: ['test/support/cli-build-setup.ts', BUILD_THE_ENTRIES] },
      },
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: UNIT_FILES_THAT_MOCK, isolate: false } },
      { extends: true, test: { name: 'unit-mocks', include: UNIT_FILES_THAT_MOCK } },
      { extends: true, test: { name: 'package', include: INSTALL_THE_PACKAGE, globalSetup: ['test/support/sandbox-pack-setup.ts'] } },
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          globalSetup: [BUILD_THE_ENTRIES],
          exclude: ['test/e2e/**', 'test/unit/**', 'node_modules/**', ...STARTS_THE_CLI, ...INSTALL_THE_PACKAGE],
        },
      },
    ],
  },
});
