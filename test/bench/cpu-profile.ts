/**
 * Reads a V8 `.cpuprofile` (as written by `node --cpu-prof`) and ranks functions by self time, so a bench can
 * print where the profiled process spent its CPU.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
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
