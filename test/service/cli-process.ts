/**
 * The service CLI (`src/service/cli.ts`) as a child process, as `npm run service` runs it. Call
 * `killCliProcesses` in `afterAll` so that a failed test leaves no service behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ServiceInfo } from '../../src/service';
import { builtEntry } from '../support/built-entries';

const children: ChildProcess[] = [];

export function killCliProcesses(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export interface CliProcess {
  child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once the process has exited and its output is read to the end. */
  closed: Promise<void>;
}

/**
 * `entry`: what node runs, by default src/service/cli.ts as built for this run (an installed bin, for the package
 * test).
 */
export function spawnCli(args: readonly string[], entry: readonly string[] = [builtEntry('service')]): CliProcess {
  const child = spawn(process.execPath, [...entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, stdout: () => stdout, stderr: () => stderr, closed };
}

/** Spawns the CLI and resolves with the JSON line it prints first. */
export function startCli(args: readonly string[], entry?: readonly string[]): Promise<CliProcess & { info: ServiceInfo }> {
  const cli = spawnCli(args, entry);
  return new Promise((resolve, reject) => {
    createInterface({ input: cli.child.stdout! }).once('line', (line) => resolve({ ...cli, info: JSON.parse(line) as ServiceInfo }));
    cli.child.once('exit', (code) => reject(new Error(`service exited with ${code}: ${cli.stderr()}`)));
  });
}
