/**
 * Where code run from source finds a worker's entry: the TypeScript file through tsx, or the built entry in the folder
 * BUILT_WORKERS_SETTING names, which this project's global setup built for the run (test/support/built-entries-setup.ts).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUILT_WORKERS_SETTING, workerEntry } from '../../src/node/worker-entry';

const signingPool = pathToFileURL(join(import.meta.dirname, '../../src/service/enclave/signing-pool.ts')).href;
const signingWorker = () => workerEntry(signingPool, 'signing-worker.ts', 'signing-worker.js', 'signing worker');

afterEach(() => vi.unstubAllEnvs());

describe('a worker entry run from source', () => {
  it('is the run’s built entry, started without tsx, while the setting names the build', () => {
    const builtWorkers = process.env[BUILT_WORKERS_SETTING];
    expect(builtWorkers).toMatch(/entries-build-/);
    const entry = signingWorker();
    expect(entry).toEqual({ file: pathToFileURL(join(builtWorkers!, 'signing-worker.js')), execArgv: [] });
    expect(existsSync(fileURLToPath(entry.file))).toBe(true);
  });

  it('is the TypeScript source through tsx when the setting is absent or empty', () => {
    const source = { file: pathToFileURL(join(import.meta.dirname, '../../src/service/enclave/signing-worker.ts')), execArgv: ['--import', 'tsx'] };
    vi.stubEnv(BUILT_WORKERS_SETTING, undefined);
    expect(signingWorker()).toEqual(source);
    vi.stubEnv(BUILT_WORKERS_SETTING, '');
    expect(signingWorker()).toEqual(source);
  });

  it('is refused, naming the setting, when the named folder lacks the entry', () => {
    const empty = mkdtempSync(join(tmpdir(), 'quorumkey-no-workers-'));
    try {
      vi.stubEnv(BUILT_WORKERS_SETTING, empty);
      expect(signingWorker).toThrow(`the signing worker's entry signing-worker.js is missing from ${BUILT_WORKERS_SETTING} (${empty})`);
    } finally {
      rmSync(empty, { recursive: true });
    }
  });
});
