/**
 * This process's event-loop delay, as the benches that watch main's responsiveness measure it: how late a timer set
 * every `resolutionMs` fires, over a window or while some work runs.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The delay while `work` runs, and what it resolved to. */
export async function loopDelayDuring<T>(work: () => Promise<T>, resolutionMs = 1): Promise<{ value: T; delay: LoopDelay }> {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  let value: T;
  try {
    value = await work();
  } finally {
    histogram.disable();
  }
  return { value, delay: { p50Ms: histogram.percentile(50) / 1e6, p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6 } };
}

/** The delay over `windowMs` with nothing else of the bench running. */
export async function loopDelayOver(windowMs: number, resolutionMs = 1): Promise<LoopDelay> {
  const { delay } = await loopDelayDuring(() => new Promise((settle) => setTimeout(settle, windowMs)), resolutionMs);
  return delay;
}

/** "p50 … ms, p99 … ms, max … ms". */
export function formatLoopDelay(delay: LoopDelay): string {
  return `p50 ${delay.p50Ms.toFixed(2)} ms, p99 ${delay.p99Ms.toFixed(2)} ms, max ${delay.maxMs.toFixed(2)} ms`;
}
