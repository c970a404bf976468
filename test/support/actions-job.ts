/**
 * Runs a GitHub Actions job, as a workflow file declares it, the way its runner would on this machine: each `run`
 * step in bash (`-eo pipefail`, as the runner's default shell) in one folder with the job's environment, a step after
 * a failed one only when its `if` asks for `failure()` or `always()`. Of the actions, those that set up the runner
 * (checkout, setup-node) are what the test provides already: the folder and this node; `actions/upload-artifact`
 * copies its `path` into `artifactsDir`/`name`, where a test finds what a CI run would have kept.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface ActionsStep {
  name?: string;
  run?: string;
  uses?: string;
  if?: string;
  with?: Record<string, string | number | boolean>;
}

export interface ActionsJob {
  env?: Record<string, string | number>;
  steps: ActionsStep[];
}

export interface StepResult {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  output: string;
}

export interface JobRun {
  failed: boolean;
  steps: StepResult[];
  /** Stops what the steps left running (a Sandbox started in the background), process group by process group. */
  stop(): void;
}

export interface JobOptions {
  /** The checkout: every step runs here. */
  folder: string;
  /** Added to the job's own `env`, over it. */
  env: Record<string, string>;
  /** Where `actions/upload-artifact` copies to. */
  artifactsDir: string;
}

/** Actions that prepare the runner, which a test on this machine has done already. */
const PROVIDED_ACTIONS = [/^actions\/checkout@/, /^actions\/setup-node@/];

export async function runActionsJob(job: ActionsJob, options: JobOptions): Promise<JobRun> {
  const env = { ...process.env, ...Object.fromEntries(Object.entries(job.env ?? {}).map(([key, value]) => [key, String(value)])), ...options.env };
  const groups: number[] = [];
  const steps: StepResult[] = [];
  let failed = false;
  for (const step of job.steps) {
    const name = step.name ?? step.run ?? step.uses ?? '(unnamed)';
    if (!shouldRun(step.if, failed)) {
      steps.push({ name, outcome: 'skipped', output: '' });
      continue;
    }
    const result = step.run !== undefined ? await runScript(step.run, options.folder, env, groups) : useAction(step, options);
    steps.push({ name, ...result });
    if (result.outcome === 'failure') failed = true;
  }
  return {
    failed,
    steps,
    stop() {
      for (const group of groups) {
        try {
          process.kill(-group, 'SIGTERM');
        } catch {
          // The group has ended already.
        }
      }
    },
  };
}

function shouldRun(condition: string | undefined, failed: boolean): boolean {
  if (condition === undefined || condition === 'success()') return !failed;
  if (condition === 'failure()') return failed;
  if (condition === 'always()') return true;
  throw new Error(`this runner does not evaluate the step condition ${JSON.stringify(condition)}`);
}

async function runScript(script: string, folder: string, env: NodeJS.ProcessEnv, groups: number[]): Promise<Omit<StepResult, 'name'>> {
  // Its own process group, so that what it leaves running can be stopped with it.
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: folder, env, detached: true });
  groups.push(child.pid!);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { outcome: code === 0 ? 'success' : 'failure', output };
}

function useAction(step: ActionsStep, options: JobOptions): Omit<StepResult, 'name'> {
  const action = step.uses ?? '';
  if (PROVIDED_ACTIONS.some((provided) => provided.test(action))) return { outcome: 'success', output: '' };
  if (/^actions\/upload-artifact@/.test(action)) {
    const path = String(step.with?.path ?? '');
    const name = String(step.with?.name ?? 'artifact');
    const source = join(options.folder, path);
    // As the action does by default: a path with nothing there is a warning, not a failure.
    if (path === '' || !existsSync(source)) return { outcome: 'success', output: `no files found at ${JSON.stringify(path)}` };
    mkdirSync(join(options.artifactsDir, name), { recursive: true });
    cpSync(source, join(options.artifactsDir, name, path), { recursive: true });
    return { outcome: 'success', output: `uploaded ${path} as ${name}` };
  }
  throw new Error(`this runner does not run the action ${action}`);
}
