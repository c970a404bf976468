/**
 * Reads a V8 `.cpuprofile` (as written by `node --cpu-prof`) and ranks functions by self time, so a bench can
 * print where the profiled process spent its CPU; and sorts a window of its samples into the stages of a request
 * (parse, stamp check, policies, store…), so a bench can print what each stage costs per request.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the system's monotonic clock, the one `process.hrtime` reads in every process. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  /** `function (file:line)`; V8's pseudo-frames keep their own names, e.g. `(garbage collector)`. */
  location: string;
  selfMs: number;
  share: number;
}

function locationOf({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const name = functionName === '' ? '(anonymous)' : functionName;
  if (url === '') return name;
  const file = url.startsWith('file://') ? relative(process.cwd(), new URL(url).pathname) : url;
  return `${name} (${file}:${lineNumber + 1})`;
}

/** Self time per function (samples attributed to the frame on top of the stack), largest first. */
export function selfTimes(path: string): SelfTime[] {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const locationById = new Map(profile.nodes.map((node) => [node.id, locationOf(node.callFrame)]));
  const microsByLocation = new Map<string, number>();
  let totalMicros = 0;
  profile.samples.forEach((nodeId, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const location = locationById.get(nodeId) ?? `(node ${nodeId})`;
    microsByLocation.set(location, (microsByLocation.get(location) ?? 0) + delta);
    totalMicros += delta;
  });
  return [...microsByLocation]
    .map(([location, micros]) => ({ location, selfMs: micros / 1000, share: totalMicros === 0 ? 0 : micros / totalMicros }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

/** The `.cpuprofile` files in `directory` (none if it does not exist yet). */
export function listProfiles(directory: string): string[] {
  return existsSync(directory) ? readdirSync(directory).filter((name) => name.endsWith('.cpuprofile')) : [];
}

export function printSelfTimes(path: string, top: number): void {
  console.log(`top ${top} functions by self time in ${path}:`);
  for (const { location, selfMs, share } of selfTimes(path).slice(0, top)) {
    console.log(`  ${(share * 100).toFixed(1).padStart(5)}%  ${selfMs.toFixed(0).padStart(7)} ms  ${location}`);
  }
}

/** The stages of a request, in the order a request meets them; `other` is what no rule below names. */
export const STAGES = [
  'HTTP in (sockets, node:http, Fastify)',
  'parse and schema',
  'stamp check',
  'authorization and policies',
  'decoding and execution (handlers)',
  'store reads, writes, commit',
  'signing worker round trip',
  'pipeline (fingerprint, records)',
  'serialization and the answer',
  'logging',
  'garbage collection',
  'other',
] as const;
export type Stage = (typeof STAGES)[number];

interface Frame {
  functionName: string;
  url: string;
}

/**
 * The stage of one frame of the service's own code, by file (and for a few files by function), or undefined for a
 * frame that only passes a call through. A sample belongs to the innermost frame of the service's code on its stack,
 * so a store read made while authenticating counts as the store's.
 */
function ownCodeStage({ functionName, url }: Frame): Stage | undefined {
  if (url.includes('/src/service/store/')) return 'store reads, writes, commit';
  if (url.includes('/src/service/enclave/signing-pool')) return 'signing worker round trip';
  if (url.includes('/src/service/server/request-log') || functionName === 'requestLog') return 'logging';
  if (functionName === 'fingerprintOf') return 'pipeline (fingerprint, records)';
  if (url.includes('/src/service/auth/') || url.includes('/src/shared/crypto/stamp') || url.includes('/src/node/stamp-backend')) return 'stamp check';
  if (url.includes('/src/service/authorize/') || url.includes('/src/shared/policy/') || url.includes('/src/shared/approvals/')) {
    return 'authorization and policies';
  }
  if (url.includes('/src/shared/api/') || functionName === 'parseJsonBody' || functionName === 'parseSubmission') return 'parse and schema';
  if (url.includes('/src/service/activities/views') || url.includes('/src/service/server/errors')) return 'serialization and the answer';
  if (url.includes('/src/service/families/') || url.includes('/src/service/enclave/') || url.includes('/src/shared/chains/')) {
    return 'decoding and execution (handlers)';
  }
  if (url.includes('/src/service/activities/')) return 'pipeline (fingerprint, records)';
  if (url.includes('/src/service/server/')) return 'HTTP in (sockets, node:http, Fastify)';
  return undefined;
}

/** The stage of a sample none of whose frames is the service's own code: Node's and the libraries' work. */
function runtimeStage(frames: readonly Frame[]): Stage {
  const leaf = frames[0];
  if (leaf?.functionName === '(garbage collector)') return 'garbage collection';
  for (const { functionName, url } of frames) {
    if (
      url.includes('/fastify/lib/reply') ||
      url.includes('_http_outgoing') ||
      /^(?:writev|writeUtf8String|writeBuffer|writeLatin1String)$/.test(functionName)
    ) {
      return 'serialization and the answer';
    }
    if (url.includes('node:internal/worker') || url.includes('node:internal/per_context/messageport') || functionName === 'postMessage') {
      return 'signing worker round trip';
    }
    if (url.includes('node:internal/crypto/')) return 'stamp check';
    if (url.includes('/fastify/') || url.includes('/find-my-way/') || /node:(?:_http_|net|internal\/streams|internal\/stream_base)/.test(url)) {
      return 'HTTP in (sockets, node:http, Fastify)';
    }
  }
  return 'other';
}

export interface ProfileWindow {
  /** Monotonic microseconds (process.hrtime), as the profile's own timestamps. */
  fromMicros: number;
  toMicros: number;
}

/**
 * Samples per stage among those taken inside `window`, idle ones left out. Samples are counted, not weighed by the
 * time between them: on a busy machine a thread waits for a core after each system call that wakes another thread
 * (a socket or pipe write, a message to a worker), and the profile charges that wait to the call; the profiler's
 * signals while it waits merge into one, so a count stays close to the time the thread ran.
 */
export function stageSamples(path: string, window: ProfileWindow): Map<Stage, number> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const stageOfNode = new Map<number, Stage | 'idle'>();
  const stageOf = (nodeId: number): Stage | 'idle' => {
    const known = stageOfNode.get(nodeId);
    if (known !== undefined) return known;
    const frames: Frame[] = [];
    for (let id: number | undefined = nodeId; id !== undefined; id = parentOf.get(id)) frames.push(byId.get(id)!.callFrame);
    const leaf = frames[0]?.functionName;
    const stage =
      leaf === '(idle)' || leaf === '(root)' ? 'idle' : (frames.map(ownCodeStage).find((own) => own !== undefined) ?? runtimeStage(frames));
    stageOfNode.set(nodeId, stage);
    return stage;
  };
  const counts = new Map<Stage, number>(STAGES.map((stage) => [stage, 0]));
  let time = profile.startTime;
  profile.samples.forEach((nodeId, index) => {
    time += profile.timeDeltas[index] ?? 0;
    if (time < window.fromMicros || time > window.toMicros) return;
    const stage = stageOf(nodeId);
    if (stage !== 'idle') counts.set(stage, counts.get(stage)! + 1);
  });
  return counts;
}

/** Monotonic microseconds now, on the clock of a profile's timestamps. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Whether `file` (a `--cpu-prof` file name, CPU.date.time.pid.thread.seq.cpuprofile) profiles a main thread. */
export function isMainThreadProfile(file: string): boolean {
  return file.split('.')[4] === '0';
}

/** node's `--cpu-prof-interval` default: a sample every 1,000 µs of the thread's running. */
const SAMPLE_INTERVAL_MICROS = 1000;

export interface ProfiledPhase {
  label: string;
  window: ProfileWindow;
  requests: number;
  /** The event loop's measured CPU per request (Linux's schedstat), which the stages' shares divide up. */
  eventLoopMicrosPerRequest: number | undefined;
}

/**
 * One column per phase: each stage's share of the samples times the event loop's measured CPU per request (or, where
 * it is not measured, the samples times the sampling interval), and the whole.
 */
export function printStageTable(path: string, phases: readonly ProfiledPhase[]): void {
  const columns = phases.map(({ label, window, requests, eventLoopMicrosPerRequest }) => {
    const counts = stageSamples(path, window);
    const samples = [...counts.values()].reduce((sum, count) => sum + count, 0);
    const microsPerSample =
      eventLoopMicrosPerRequest === undefined || samples === 0 ? SAMPLE_INTERVAL_MICROS / Math.max(1, requests) : eventLoopMicrosPerRequest / samples;
    return { label, perRequest: new Map([...counts].map(([stage, count]) => [stage, count * microsPerSample])), samples };
  });
  const firstWidth = Math.max(...STAGES.map((stage) => stage.length));
  const widths = columns.map(({ label }) => Math.max(label.length, 7));
  const row = (name: string, cells: string[]) =>
    console.log(`  ${name.padEnd(firstWidth)}  ${cells.map((cell, index) => cell.padStart(widths[index]!)).join('  ')}`);
  console.log(`event-loop CPU per request by stage, µs (shares of the samples in ${relative(process.cwd(), path)}):`);
  row(
    '',
    columns.map(({ label }) => label),
  );
  for (const stage of STAGES)
    row(
      stage,
      columns.map(({ perRequest }) => perRequest.get(stage)!.toFixed(0)),
    );
  row(
    'whole',
    columns.map(({ perRequest }) => [...perRequest.values()].reduce((sum, micros) => sum + micros, 0).toFixed(0)),
  );
  row(
    '(samples)',
    columns.map(({ samples }) => String(samples)),
  );
}

/**
 * What a bench prints of the profiles a service process wrote into `directory` (those not in `before`): each
 * thread's top functions by self time, and for the main thread the stage table of `phases`.
 */
export function printNewProfiles(directory: string, before: ReadonlySet<string>, top: number, phases: readonly ProfiledPhase[]): void {
  for (const file of listProfiles(directory).filter((name) => !before.has(name))) {
    const path = join(directory, file);
    printSelfTimes(path, top);
    if (isMainThreadProfile(file) && phases.length > 0) printStageTable(path, phases);
  }
}
