/**
 * Service throughput over loopback, as a client sees it: the service runs in its own process (the CLI on a
 * temporary file database), the load comes from worker threads over keep-alive connections. Measures stamped
 * whoami queries/s and update_policy activities/s (each a full authenticate → authorize → execute → record
 * transaction) with p50/p99, beside the node:crypto P-256 verify bound measured in the same run, before the service starts.
 * Each is printed against its budget in docs/performance.md: queries at ≥ 0.5× the verify bound, activities at
 * ≥ 2,000/s with p99 ≤ 25 ms. Numbers and ratios only; no assertions.
 *
 * On a 2-core machine the load threads and the service share the cores; the CPU lines show what each side costs
 * per request, which does not depend on what else the machine runs.
 * QK_BENCH_CPU_PROFILE=DIR runs the service under `node --cpu-prof`, keeps the profile in DIR and prints the
 * service's top self-time functions, and its event-loop CPU per request by stage for each phase (docs/performance.md).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ServiceInfo } from '../../src/service';
import { stampPublicKeyOf } from '../../src/service/auth/stamp-public-key';
import { createNodeStampSigner } from '../../src/node/stamp-backend';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { stampBody } from '../../src/shared/crypto/stamp';
import { listProfiles, monotonicMicros, printNewProfiles, type ProfiledPhase, type ProfileWindow } from './cpu-profile';
import { GC_TRACE_FLAG, GcTrace } from './gc-trace';
import type { LoadWorkerInput, LoadWorkerMessage } from './service-load-worker';

/** The budgets of docs/performance.md. */
const BUDGET_QUERIES_OF_VERIFY_BOUND = 0.5;
const BUDGET_ACTIVITIES_PER_SECOND = 2_000;
const BUDGET_ACTIVITY_P99_MS = 25;
const LOAD_WORKERS = 2;
const IN_FLIGHT_PER_WORKER = 16;
const QUERIES = 20_000;
const ACTIVITIES = 5_000;
/**
 * As many as the phase measured: the phase after 2,000 ran 12 to 27% slower than the same phase run again right after
 * it (docs/performance.md, "Eighth round"). The bench reports each warm-up's rate too, which is what a fresh service
 * gives its first requests.
 */
const WARMUP_QUERIES = 20_000;
/**
 * A fresh service's first thousand or so activities run slower than the ones after (docs/performance.md, "Eighth
 * round"): with 300 signatures ahead of each signing phase, whichever phase came first read about a tenth lower.
 */
export const WARMUP_ACTIVITIES = 1_200;
/** Each phase stops issuing requests after this long, whatever its count. */
const MAX_PHASE_MS = 20_000;
const VERIFY_ROUNDS = 5_000;
const PROFILE_TOP_FUNCTIONS = 30;

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface PhaseResult {
  completed: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  /** On-CPU time of the service's event-loop thread per completed request (Linux only). */
  serviceCpuMicrosPerRequest: number | undefined;
  /** On-CPU time of the whole service process (event loop, signature checks on the thread pool, WAL checkpoints). */
  serviceProcessCpuMicrosPerRequest: number | undefined;
  /** CPU time of this process (the load threads, mostly) per completed request: what the load takes from the service. */
  loadCpuMicrosPerRequest: number;
  /** When the phase ran, to find its samples in the service's CPU profile. */
  window: ProfileWindow;
}

export interface ServiceBenchResult {
  queries: PhaseResult;
  activities: PhaseResult;
  verifyPerSecond: number;
}

type ServiceProcess = ChildProcessByStdio<null, Readable, Readable>;

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Single-threaded OpenSSL P-256 verifications per second over a body the size of a small activity. */
function verifyBound(): number {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const message = Buffer.alloc(200, 7);
  const signature = sign('sha256', message, privateKey);
  const started = performance.now();
  for (let index = 0; index < VERIFY_ROUNDS; index += 1) verify('sha256', message, publicKey, signature);
  return VERIFY_ROUNDS / ((performance.now() - started) / 1000);
}

/**
 * Nanoseconds the service's main (event-loop) thread has spent on a CPU. Unlike wall-clock rates this does not
 * depend on what else the machine is running, so it shows the service's own cost per request.
 */
function eventLoopCpuNanos(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

/** Clock ticks (user + system) the whole service process has used, its ended threads included (Linux only). */
function processCpuTicks(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Linux reports process CPU in USER_HZ ticks, 100 a second on every mainstream architecture. */
const TICKS_PER_SECOND = 100;

/**
 * Starts the CLI (`npm run service`) on a file database and resolves with the info line it prints, and the trace of
 * its collections (V8 writes those to stdout too, which is read to its end).
 */
export async function startServiceProcess(
  directory: string,
  rootPublicKey: string,
  profileDirectory: string | undefined,
  extraArguments: readonly string[] = [],
): Promise<{ child: ServiceProcess; info: ServiceInfo; gc: GcTrace }> {
  const profiling = profileDirectory === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDirectory];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      GC_TRACE_FLAG,
      ...profiling,
      'src/service/cli.ts',
      '--db',
      join(directory, 'service.db'),
      '--root-public-key',
      `${rootPublicKey}:p256`,
      ...extraArguments,
    ],
    { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const gc = new GcTrace();
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!gc.take(line) && line.startsWith('{')) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before starting: ${stderr.join('')}`)));
  });
  return { child, info: JSON.parse(firstLine) as ServiceInfo, gc };
}

export async function stopServiceProcess(child: ServiceProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/** Runs LOAD_WORKERS load threads together; the clock starts once every thread has prepared its requests. */
export async function runPhase(
  servicePid: number,
  template: Omit<LoadWorkerInput, 'workerIndex' | 'requests' | 'concurrency' | 'maxDurationMs'>,
  requests: number,
): Promise<PhaseResult> {
  const workers = Array.from(
    { length: LOAD_WORKERS },
    (_, workerIndex) =>
      new Worker(new URL('./service-load-worker.ts', import.meta.url), {
        workerData: {
          ...template,
          workerIndex,
          requests: Math.ceil(requests / LOAD_WORKERS),
          concurrency: IN_FLIGHT_PER_WORKER,
          maxDurationMs: MAX_PHASE_MS,
        } satisfies LoadWorkerInput,
      }),
  );
  const next = (worker: Worker): Promise<LoadWorkerMessage> =>
    new Promise((resolve, reject) => {
      worker.once('message', (message: LoadWorkerMessage) =>
        message.type === 'error' ? reject(new Error(`load worker failed: ${message.message}`)) : resolve(message),
      );
      worker.once('error', reject);
    });
  try {
    await Promise.all(workers.map(next));
    const cpuBefore = eventLoopCpuNanos(servicePid);
    const processTicksBefore = processCpuTicks(servicePid);
    const loadCpuBefore = process.cpuUsage();
    const started = performance.now();
    const fromMicros = monotonicMicros();
    const finished = workers.map(next);
    for (const worker of workers) worker.postMessage('go');
    const reports = (await Promise.all(finished)).filter((message) => message.type === 'done');
    const seconds = (performance.now() - started) / 1000;
    const toMicros = monotonicMicros();
    const cpuAfter = eventLoopCpuNanos(servicePid);
    const processTicksAfter = processCpuTicks(servicePid);
    const loadCpu = process.cpuUsage(loadCpuBefore);
    const latencies = Float64Array.from(reports.flatMap((report) => [...report.latencies])).sort();
    const failures = reports.reduce((sum, report) => sum + report.failureCount, 0);
    for (const sample of reports.flatMap((report) => report.failureSamples)) console.error(`  failed request: ${sample}`);
    return {
      completed: latencies.length,
      perSecond: latencies.length / seconds,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      failures,
      serviceCpuMicrosPerRequest:
        cpuBefore === undefined || cpuAfter === undefined || latencies.length === 0 ? undefined : (cpuAfter - cpuBefore) / 1000 / latencies.length,
      serviceProcessCpuMicrosPerRequest:
        processTicksBefore === undefined || processTicksAfter === undefined || latencies.length === 0
          ? undefined
          : ((processTicksAfter - processTicksBefore) * 1e6) / TICKS_PER_SECOND / latencies.length,
      loadCpuMicrosPerRequest: (loadCpu.user + loadCpu.system) / Math.max(1, latencies.length),
      window: { fromMicros, toMicros },
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

export function report(label: string, phase: PhaseResult, goal: number): void {
  console.log(
    `${label}: ${phase.perSecond.toFixed(0)}/s (${(phase.perSecond / goal).toFixed(2)}× the budget of ${goal}/s)  ` +
      `p50 ${phase.p50Ms.toFixed(2)} ms  p99 ${phase.p99Ms.toFixed(2)} ms  ` +
      `(${phase.completed} completed, ${phase.failures} failed, ${LOAD_WORKERS}×${IN_FLIGHT_PER_WORKER} in flight)`,
  );
  const micros = phase.serviceCpuMicrosPerRequest;
  const processMicros = phase.serviceProcessCpuMicrosPerRequest;
  if (micros !== undefined && processMicros !== undefined) {
    // The event loop is the serial part; the rest (signature checks) spreads over the thread pool.
    console.log(
      `  service CPU per request: ${micros.toFixed(0)} µs on its event loop (alone it would allow ${(1e6 / micros).toFixed(0)}/s, ` +
        `${(1e6 / micros / goal).toFixed(2)}× the budget), ${processMicros.toFixed(0)} µs in all its threads; ` +
        `the load threads used ${phase.loadCpuMicrosPerRequest.toFixed(0)} µs`,
    );
  }
}

/** The warm-up ahead of a phase, for what the service gives before it runs at its steady rate. */
export function reportWarmUp(warmUp: PhaseResult): void {
  const micros = warmUp.serviceCpuMicrosPerRequest;
  console.log(
    `  warm-up before it: ${warmUp.completed} requests at ${warmUp.perSecond.toFixed(0)}/s` +
      (micros === undefined ? '' : `, ${micros.toFixed(0)} µs of event-loop CPU each`),
  );
}

async function createBenchPolicy(info: ServiceInfo, privateKey: string): Promise<string> {
  const body = JSON.stringify({
    type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
    timestampMs: String(Date.now()),
    organizationId: info.organizationId,
    parameters: { policyName: 'bench', effect: 'EFFECT_ALLOW', condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", notes: '' },
  });
  const stamp = await stampBody(body, createNodeStampSigner('p256', privateKey));
  const response = await fetch(`${info.baseUrl}/public/v1/submit/create_policy`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [stamp.headerName]: stamp.headerValue },
    body,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`create_policy answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { activity: { result: { createPolicyResult: { policyId: string } } } }).activity.result.createPolicyResult.policyId;
}

export async function run(): Promise<ServiceBenchResult> {
  const directory = mkdtempSync(join(tmpdir(), 'quorumkey-bench-'));
  const profileDirectory = process.env.QK_BENCH_CPU_PROFILE || undefined;
  const profilesBefore = new Set(profileDirectory === undefined ? [] : listProfiles(profileDirectory));
  const root = generateApiKeyPair('p256');
  // Before the service starts: its start (compiling the TypeScript, starting its workers) takes a core for seconds.
  const verifyPerSecond = verifyBound();
  console.log(`node:crypto P-256 verify bound (one core, this process, measured before the service started): ${verifyPerSecond.toFixed(0)}/s`);
  const { child, info, gc } = await startServiceProcess(directory, stampPublicKeyOf({ publicKey: root.publicKey, curve: 'p256' }), profileDirectory);
  const profiled: ProfiledPhase[] = [];
  try {
    const queryLoad = { baseUrl: info.baseUrl, organizationId: info.organizationId, privateKey: root.privateKey, kind: 'query' as const };
    const queryWarmUp = await runPhase(child.pid!, queryLoad, WARMUP_QUERIES);
    const queries = await runPhase(child.pid!, queryLoad, QUERIES);
    profiled.push({
      label: 'whoami',
      window: queries.window,
      requests: queries.completed,
      eventLoopMicrosPerRequest: queries.serviceCpuMicrosPerRequest,
    });
    report('stamped whoami queries', queries, Math.round(BUDGET_QUERIES_OF_VERIFY_BOUND * verifyPerSecond));
    console.log(gc.describe(queries.window));
    reportWarmUp(queryWarmUp);
    const activityLoad = { ...queryLoad, kind: 'activity' as const, policyId: await createBenchPolicy(info, root.privateKey) };
    const activityWarmUp = await runPhase(child.pid!, activityLoad, WARMUP_ACTIVITIES);
    const activities = await runPhase(child.pid!, activityLoad, ACTIVITIES);
    profiled.push({
      label: 'update_policy',
      window: activities.window,
      requests: activities.completed,
      eventLoopMicrosPerRequest: activities.serviceCpuMicrosPerRequest,
    });
    report('activities (update_policy)', activities, BUDGET_ACTIVITIES_PER_SECOND);
    console.log(gc.describe(activities.window));
    reportWarmUp(activityWarmUp);
    const queryRatio = queries.perSecond / verifyPerSecond;
    console.log(
      `budget (docs/performance.md): queries at ${queryRatio.toFixed(2)}× the verify bound (≥ ${BUDGET_QUERIES_OF_VERIFY_BOUND}×: ` +
        `${queryRatio >= BUDGET_QUERIES_OF_VERIFY_BOUND ? 'met' : 'NOT met'}); activities ${activities.perSecond.toFixed(0)}/s ` +
        `(≥ ${BUDGET_ACTIVITIES_PER_SECOND}/s: ${activities.perSecond >= BUDGET_ACTIVITIES_PER_SECOND ? 'met' : 'NOT met'}), ` +
        `p99 ${activities.p99Ms.toFixed(1)} ms (≤ ${BUDGET_ACTIVITY_P99_MS} ms: ${activities.p99Ms <= BUDGET_ACTIVITY_P99_MS ? 'met' : 'NOT met'})`,
    );
    return { queries, activities, verifyPerSecond };
  } finally {
    await stopServiceProcess(child);
    if (profileDirectory !== undefined) printNewProfiles(profileDirectory, profilesBefore, PROFILE_TOP_FUNCTIONS, profiled);
    rmSync(directory, { recursive: true, force: true });
  }
}
