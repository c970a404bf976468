/**
 * The service process's garbage collections during a bench phase, read from V8's `--trace-gc-nvp` lines on its
 * stdout. Each line is stamped with the bench's clock as it arrives, so a phase's window picks out its own
 * collections. Only the main thread's count (Node's thread 0): a collection on a worker stops that worker alone,
 * while one on the main thread stops every request in flight. How many objects survive the young generation is what
 * showed a set of in-flight responses that kept answered requests alive (docs/performance.md, "Eighth round").
 */
import { monotonicMicros, type ProfileWindow } from './cpu-profile';

/** Node flag for the service process: one line per collection, with its pause and what it promoted. */
export const GC_TRACE_FLAG = '--trace-gc-nvp';

interface Collection {
  atMicros: number;
  /** A scavenge of the young generation; otherwise a full (mark-compact) collection. */
  young: boolean;
  pauseMs: number;
  /** Bytes moved from the young generation to the old one. */
  promotedBytes: number;
}

/** `[pid:isolate:thread] time ms: pause=… gc=s …` */
const TRACE_LINE = /^\[\d+:0x[0-9a-f]+:(\d+)\]\s+[\d.]+ ms: pause=([\d.]+) .*?\bgc=(\w+)\b/;
const PROMOTED = /\bpromoted=(\d+)\b/;
const MAIN_THREAD = '0';

export class GcTrace {
  private readonly collections: Collection[] = [];

  /** Takes one line of the service's stdout; whether it was a collection's trace line (of any thread). */
  take(line: string): boolean {
    const match = TRACE_LINE.exec(line);
    if (match === null) return false;
    const [, thread, pause, kind] = match;
    if (thread === MAIN_THREAD) {
      this.collections.push({
        atMicros: monotonicMicros(),
        young: kind === 's',
        pauseMs: Number(pause),
        promotedBytes: Number(PROMOTED.exec(line)?.[1] ?? 0),
      });
    }
    return true;
  }

  /** The main thread's collections within `window`, as one line of the bench's report. */
  describe(window: ProfileWindow): string {
    const within = this.collections.filter((collection) => collection.atMicros >= window.fromMicros && collection.atMicros <= window.toMicros);
    const young = within.filter((collection) => collection.young);
    const full = within.filter((collection) => !collection.young);
    const seconds = (window.toMicros - window.fromMicros) / 1e6;
    const pauses = (collections: Collection[]): string =>
      `pauses ${mean(collections.map((collection) => collection.pauseMs)).toFixed(1)} ms on average, ` +
      `${Math.max(...collections.map((collection) => collection.pauseMs)).toFixed(1)} ms the longest`;
    const promotedMb = mean(young.map((collection) => collection.promotedBytes)) / 1e6;
    return (
      `  service main-thread GC: ${young.length} young-generation collections in ${seconds.toFixed(1)} s` +
      (young.length === 0 ? '' : ` (${pauses(young)}; ${promotedMb.toFixed(2)} MB promoted by each)`) +
      `, ${full.length} full` +
      (full.length === 0 ? '' : ` (${pauses(full)})`)
    );
  }
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
