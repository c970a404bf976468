/**
 * Global setup of the files that install the Sandbox's package (the `package` project in vitest.config.ts): packs
 * `sandbox/` once per run, as the Dockerfile and docs/sandbox.md do (its prepack builds the bundle), and hands the
 * tarball's path to the tests. Each file still installs it into an app of its own. Once, not per file: the two files
 * packing at the same time both rebuilt sandbox/dist under each other.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const repo = join(import.meta.dirname, '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** `npm pack ./sandbox`'s tarball, for `npm install`. */
    sandboxTarball: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const directory = await mkdtemp(join(tmpdir(), 'quorumkey-sandbox-pack-'));
  await promisify(execFile)('npm', ['pack', './sandbox', '--pack-destination', directory], { cwd: repo });
  const tarballs = (await readdir(directory)).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`npm pack ./sandbox left ${tarballs.length} tarballs in ${directory}, not one`);
  project.provide('sandboxTarball', join(directory, tarballs[0]!));
  return () => rm(directory, { recursive: true, force: true });
}
