/**
 * Global setup of the projects whose tests run the service or main's services from source: builds the worker threads'
 * entries once per run, from the sources as they are now, and names their folder in BUILT_WORKERS_SETTING
 * (src/node/worker-entry.ts), which the test processes and the children they start inherit. A worker started through
 * tsx compiles its TypeScript again on every start, and a run starts hundreds. A watch run builds again before each
 * rerun, so no rerun starts workers from sources older than its own. A folder per run, inside the repository so the
 * entries find the native modules in node_modules; the libraries are bundled in, as in the CLI's build.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { BUILT_WORKERS_SETTING } from '../../src/node/worker-entry';

const repo = join(import.meta.dirname, '../..');

/** Each worker's built name (workerEntry's `builtFile`) and source, as vite.cli.config.ts builds them. */
const WORKER_ENTRIES = {
  'signing-worker': 'src/service/enclave/signing-worker.ts',
  'policy-worker': 'src/service/authorize/policy-worker.ts',
  'journal-verify-worker': 'src/main/journal/verify-worker.ts',
  'policy-draft-worker': 'src/main/policies/draft-worker.ts',
  'simulation-worker': 'src/main/simulation/simulation-worker.ts',
};

async function buildWorkers(outDir: string): Promise<void> {
  await build({
    configFile: false,
    root: repo,
    logLevel: 'warn',
    ssr: { noExternal: true },
    build: {
      ssr: true,
      outDir,
      emptyOutDir: true,
      target: 'node24',
      minify: false,
      reportCompressedSize: false,
      rollupOptions: {
        external: [/^@napi-rs\/keyring(?:\/|$)/, /^pkcs11js(?:\/|$)/],
        input: Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([name, source]) => [name, join(repo, source)])),
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
const SHARED = Symbol.for('quorumkey.worker-build-setup');
const shared = globalThis as typeof globalThis & { [SHARED]?: SharedBuild };

async function firstBuild(project: TestProject): Promise<string> {
  await mkdir(join(repo, '.tmp'), { recursive: true });
  const outDir = await mkdtemp(join(repo, '.tmp', 'workers-build-'));
  await buildWorkers(outDir);
  project.onTestsRerun(() => buildWorkers(outDir));
  process.env[BUILT_WORKERS_SETTING] = outDir;
  return outDir;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const build = (shared[SHARED] ??= { outDir: firstBuild(project), projects: 0 });
  build.projects += 1;
  const outDir = await build.outDir;
  return async () => {
    build.projects -= 1;
    if (build.projects > 0) return;
    delete shared[SHARED];
    delete process.env[BUILT_WORKERS_SETTING];
    await rm(outDir, { recursive: true, force: true });
  };
}
