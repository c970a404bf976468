/**
 * Global setup of the projects whose tests run the service or main's services from source: builds, once per run and
 * from the sources as they are now, the entries those tests start as worker threads or child processes, which through
 * tsx would compile their TypeScript again on every start (a run starts hundreds). The workers' folder is named in
 * BUILT_WORKERS_SETTING (src/node/worker-entry.ts), which the test processes and the children they start inherit; the
 * processes' entries are handed to the tests (`builtEntry()`, test/support/built-entries.ts). A watch run builds again
 * before each rerun, so no rerun starts code older than its sources. A folder per run, inside the repository so the
 * entries find the native modules in node_modules; the libraries are bundled in, as in the CLI's build.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { bundledTinySecp256k1Wasm } from '../../scripts/bundled-wasm';
import { BUILT_WORKERS_SETTING } from '../../src/node/worker-entry';
import type { BuiltEntryName } from './built-entries';

const repo = join(import.meta.dirname, '../..');

/** Each entry's built name and source. The workers' names are workerEntry's `builtFile`s, as vite.cli.config.ts builds them. */
const ENTRIES: Record<
  BuiltEntryName | 'signing-worker' | 'policy-worker' | 'journal-verify-worker' | 'policy-draft-worker' | 'simulation-worker',
  string
> = {
  'signing-worker': 'src/service/enclave/signing-worker.ts',
  'policy-worker': 'src/service/authorize/policy-worker.ts',
  'journal-verify-worker': 'src/main/journal/verify-worker.ts',
  'policy-draft-worker': 'src/main/policies/draft-worker.ts',
  'simulation-worker': 'src/main/simulation/simulation-worker.ts',
  service: 'src/service/cli.ts',
  'journal-appender': 'test/main/fixtures/journal-appender.ts',
  'journal-racer': 'test/main/fixtures/journal-racer.ts',
  'burst-client': 'test/support/burst-client.ts',
};

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the run's built entries. */
    builtEntries: string | undefined;
  }
}

/** Builds every entry into `outDir`, a folder inside the repository; also run by the benches that start them (test/bench). */
export async function buildEntries(outDir: string): Promise<void> {
  await build({
    configFile: false,
    root: repo,
    logLevel: 'warn',
    ssr: { noExternal: true },
    plugins: [bundledTinySecp256k1Wasm()],
    build: {
      ssr: true,
      outDir,
      emptyOutDir: true,
      target: 'node24',
      minify: false,
      reportCompressedSize: false,
      rollupOptions: {
        external: [/^@napi-rs\/keyring(?:\/|$)/, /^pkcs11js(?:\/|$)/],
        input: Object.fromEntries(Object.entries(ENTRIES).map(([name, source]) => [name, join(repo, source)])),
        output: { entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
      },
    },
  });
}

/** The run's one build, shared by every project that lists this setup (vitest runs each project's setup in one process). */
interface SharedBuild {
  outDir: Promise<string>;
  projects: number;
}
const SHARED = Symbol.for('quorumkey.built-entries-setup');
const shared = globalThis as typeof globalThis & { [SHARED]?: SharedBuild };

async function firstBuild(project: TestProject): Promise<string> {
  await mkdir(join(repo, '.tmp'), { recursive: true });
  const outDir = await mkdtemp(join(repo, '.tmp', 'entries-build-'));
  await buildEntries(outDir);
  project.onTestsRerun(() => buildEntries(outDir));
  process.env[BUILT_WORKERS_SETTING] = outDir;
  return outDir;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const build = (shared[SHARED] ??= { outDir: firstBuild(project), projects: 0 });
  build.projects += 1;
  const outDir = await build.outDir;
  project.provide('builtEntries', outDir);
  return async () => {
    build.projects -= 1;
    if (build.projects > 0) return;
    delete shared[SHARED];
    delete process.env[BUILT_WORKERS_SETTING];
    await rm(outDir, { recursive: true, force: true });
  };
}
