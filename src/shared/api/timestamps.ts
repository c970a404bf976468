import type { Timestamp } from './primitives';

/** A wire timestamp (`{seconds, nanos}` as decimal strings) as whole milliseconds since the epoch. */
export function timestampMs(timestamp: Timestamp): number {
  return Number(timestamp.seconds) * 1000 + Math.floor(Number(timestamp.nanos) / 1e6);
}

/** Milliseconds since the epoch as a wire timestamp. */
export function toTimestamp(epochMs: number): Timestamp {
  const seconds = Math.floor(epochMs / 1000);
  return { seconds: String(seconds), nanos: String((epochMs - seconds * 1000) * 1_000_000) };
}
