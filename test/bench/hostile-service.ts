/**
 * Main against a hostile hosted service (issue 36, item 5): two fake services in processes of their own, one whose
 * `list_activities` answers 300 MiB, one whose answer holds 100,000 waiting activities. This process polls both as the
 * inbox and the activity watch do (waitingActivities, through the real ApiClient), every second, in windows that take
 * turns with idle ones, and measures its event-loop delay p99 over each kind and its resident memory beside what it
 * was idle before any. Bounds: p99 within 3× idle, memory within 100 MiB of idle.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ApiClient } from '../../src/main/client/api-client.js';
import { waitingActivities } from '../../src/main/client/waiting-activities.js';
import { generateApiKeyPair } from '../../src/shared/crypto/keys.js';
import { stampBody } from '../../src/shared/crypto/stamp.js';
import { createNodeStampSigner } from '../../src/node/stamp-backend.js';
import { ORGANIZATION_ID, type HostileServiceOptions } from '../support/hostile-service.js';

const MIB = 1024 * 1024;
const WINDOW_MS = 3_000;
const TURNS = 4;
/** Twice as often as the inbox at its shortest interval (2 s), and the activity watch (3 s), look. */
const LOOK_EVERY_MS = 1_000;
const FLOOD_BYTES = 300 * MIB;
const WAITING = 100_000;
const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

type ServiceProcess = ChildProcessByStdio<null, Readable, Readable>;

export async function run(): Promise<void> {
  const children: ServiceProcess[] = [];
  try {
    const flooding = await startServiceProcess({ waiting: 0, floodBytes: FLOOD_BYTES }, children);
    const crowded = await startServiceProcess({ waiting: WAITING }, children);
    const clients = [clientFor(flooding), clientFor(crowded)];

    // Idle is main after it has talked to a service: fetch and the schemas are loaded before any window.
    for (const client of clients) await client.query('whoami', {});
    const outcomes = new Map<string, number>();
    const look = () =>
      Promise.all(
        clients.map((client) =>
          waitingActivities(client).then(
            () => count(outcomes, 'answered'),
            (error: unknown) => count(outcomes, (error as { code?: string }).code ?? 'other'),
          ),
        ),
      );
    // Idle and hostile windows take turns, so that whatever else loads this machine weighs on both alike.
    const idle = new Window();
    const hostile = new Window();
    for (let turn = 0; turn < TURNS; turn += 1) {
      await idle.measure(async () => undefined);
      await hostile.measure(async (stillRunning) => {
        while (stillRunning()) {
          await sleep(LOOK_EVERY_MS);
          await look();
        }
      });
    }
    const idleRss = idle.firstPeakRss;
    const hostileRss = hostile.peakRss;
    const idleP99 = idle.p99Ms();
    const hostileP99 = hostile.p99Ms();

    const delayRatio = hostileP99 / idleP99;
    const memoryGrowthMiB = (hostileRss - idleRss) / MIB;
    console.log(
      `${FLOOD_BYTES / MIB} MiB answer and ${WAITING.toLocaleString('en')} waiting activities, polled every ${LOOK_EVERY_MS / 1000} s in ${TURNS} windows of ${WINDOW_MS / 1000} s between as many idle ones: ${[...outcomes].map(([outcome, times]) => `${outcome} ×${times}`).join(', ')}`,
    );
    console.log(
      `main event-loop delay p99: ${hostileP99.toFixed(2)} ms hostile   beside ${idleP99.toFixed(2)} ms idle (${delayRatio.toFixed(2)}×)   bound: 3×   ${delayRatio <= 3 ? 'met' : 'NOT MET'}`,
    );
    console.log(
      `main resident memory peak: ${(hostileRss / MIB).toFixed(0)} MiB hostile   beside ${(idleRss / MIB).toFixed(0)} MiB idle before any (+${memoryGrowthMiB.toFixed(0)} MiB)   bound: +100 MiB   ${memoryGrowthMiB <= 100 ? 'met' : 'NOT MET'}`,
    );
  } finally {
    for (const child of children) await stopServiceProcess(child);
  }
}

function count(outcomes: Map<string, number>, outcome: string): void {
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
}

function clientFor(baseUrl: string): ApiClient {
  // Stamped as main stamps, with node:crypto, so what is measured is reading the answers.
  const signer = createNodeStampSigner('p256', generateApiKeyPair('p256').privateKey);
  return new ApiClient({
    profile: { baseUrl, organizationId: ORGANIZATION_ID, apiKeyName: 'operator' },
    stamper: { stamp: (_name, body) => stampBody(body, signer) },
  });
}

/**
 * Windows of `WINDOW_MS` of one kind: this process's event-loop delay over all of them (sampled every millisecond),
 * and its peak resident memory, in the first and in all.
 */
class Window {
  readonly #histogram = monitorEventLoopDelay({ resolution: 1 });
  firstPeakRss = 0;
  peakRss = 0;

  async measure(work: (stillRunning: () => boolean) => Promise<void>): Promise<void> {
    let peakRss = process.memoryUsage.rss();
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
    const endsAt = performance.now() + WINDOW_MS;
    this.#histogram.enable();
    await Promise.all([work(() => performance.now() < endsAt), sleep(WINDOW_MS)]);
    this.#histogram.disable();
    clearInterval(sampler);
    if (this.firstPeakRss === 0) this.firstPeakRss = peakRss;
    this.peakRss = Math.max(this.peakRss, peakRss);
  }

  p99Ms(): number {
    return this.#histogram.percentile(99) / 1e6;
  }
}

async function startServiceProcess(options: HostileServiceOptions, children: ServiceProcess[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/hostile-service-process.ts', JSON.stringify(options)], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  // A hosted service runs on another machine: here it shares the CPU with main, so it gets only what main leaves.
  if (child.pid !== undefined) setPriority(child.pid, 19);
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`the hostile service exited with ${code} before listening: ${stderr.join('')}`)));
  });
  return (JSON.parse(firstLine) as { baseUrl: string }).baseUrl;
}

async function stopServiceProcess(child: ServiceProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

function sleep(ms: number): Promise<void> {
  return new Promise((settle) => setTimeout(settle, ms));
}
