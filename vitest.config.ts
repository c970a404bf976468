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
 * The in-process files share a worker too, which spares each of them importing the service, viem and the EVM again.
 * Vitest restores `vi.spyOn` spies after each file, but nothing else a file changes in the process: a file that
 * `vi.mock`s a module leaves the modules that imported the fake in the shared cache, so it is listed here, under its
 * reason, and runs in a process of its own. A file that fakes timers, stubs a global or an environment variable, or
 * registers a listener on `process`, must undo it in an `afterEach` or a `finally`, and stop every server, worker,
 * child process and timer it starts; one that cannot is listed here with its reason.
 */
const IN_PROCESS_FILES_THAT_MOCK = [
  // vi.mock('electron'): main's modules loaded with the fake would keep it for the files after.
  'test/main/electron-notifier.test.ts',
  'test/main/passkey-window.test.ts',
  'test/main/pin-window.test.ts',
  'test/main/shell.test.ts',
  'test/main/touch-id.test.ts',
  'test/main/utility-process.test.ts',
  'test/main/window.test.ts',
  // vi.mock of the service's own modules (its route table, its entry point), which the other service files load as they are.
  'test/service/coverage/handlers.test.ts',
  'test/service/sandbox-options.test.ts',
];

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
          exclude: ['test/e2e/**', 'test/unit/**', 'node_modules/**', ...STARTS_THE_CLI, ...INSTALL_THE_PACKAGE, ...IN_PROCESS_FILES_THAT_MOCK],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'in-process-mocks', include: IN_PROCESS_FILES_THAT_MOCK, globalSetup: [BUILD_THE_ENTRIES] } },
    ],
  },
});
