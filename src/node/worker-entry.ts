import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QkError, type ErrorData } from '../shared/errors';

/**
 * Where code run from source finds its workers' built entries instead of compiling them: a folder holding every
 * `builtFile`. The tests set it to the entries they build once per run (test/support/built-entries-setup.ts), since a
 * worker started through tsx spends most of its start compiling.
 */
export const BUILT_WORKERS_SETTING = 'QUORUMKEY_BUILT_WORKERS';

/**
 * A worker thread's entry file, found from the module that starts the worker (`moduleUrl`, its `import.meta.url`).
 * Run from source (tsx, vitest) it is the TypeScript file `sourceFile` beside that module, loaded through tsx, or
 * `builtFile` in the folder BUILT_WORKERS_SETTING names when it is set. Built (electron.vite.config.ts) it is its
 * own entry `builtFile`, beside the module or one folder up, since the bundler puts the module's code in `chunks/`
 * or inlines it in an entry.
 */
export function workerEntry(moduleUrl: string, sourceFile: string, builtFile: string, what: string): { file: URL; execArgv: string[] } {
  const modulePath = fileURLToPath(moduleUrl);
  const here = dirname(modulePath);
  if (modulePath.endsWith('.ts')) {
    const builtWorkers = process.env[BUILT_WORKERS_SETTING];
    if (builtWorkers === undefined || builtWorkers === '') return { file: pathToFileURL(join(here, sourceFile)), execArgv: ['--import', 'tsx'] };
    const built = join(builtWorkers, builtFile);
    if (!existsSync(built))
      throw new QkError('INTERNAL', `the ${what}'s entry ${builtFile} is missing from ${BUILT_WORKERS_SETTING} (${builtWorkers})`);
    return { file: pathToFileURL(built), execArgv: [] };
  }
  const built = [join(here, builtFile), join(here, '..', builtFile)].find((file) => existsSync(file));
  if (built === undefined) throw new QkError('INTERNAL', `the ${what}'s entry ${builtFile} is missing beside ${here}`);
  return { file: pathToFileURL(built), execArgv: [] };
}

/** What a one-shot worker sends back: its answer, or the error it failed with. */
export type WorkerJobMessage<T> = { kind: 'done'; value: T } | { kind: 'failed'; error: ErrorData };

/**
 * Runs one job on a new worker thread started from `entry` (workerEntry's answer) with `job` as its workerData, and
 * answers the worker's first message; the thread is ended once it has answered, failed or exited. `what` names the
 * worker in the errors.
 */
export function runWorkerJob<T>(entry: { file: URL; execArgv: string[] }, job: unknown, what: string): Promise<T> {
  const worker = new Worker(entry.file, { execArgv: entry.execArgv, workerData: job });
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
      void worker.terminate();
    };
    worker.on('message', (message: WorkerJobMessage<T>) =>
      settle(() => (message.kind === 'done' ? resolve(message.value) : reject(QkError.fromData(message.error)))),
    );
    worker.on('error', (error: Error) => settle(() => reject(new QkError('INTERNAL', `the ${what} failed: ${error.message}`))));
    worker.on('exit', (code) => settle(() => reject(new QkError('INTERNAL', `the ${what} exited (code ${code}) before it answered`))));
  });
}
