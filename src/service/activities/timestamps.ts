import type { Timestamp } from '../../shared/api/common';

/** Milliseconds since the epoch → `externaldatav1Timestamp` ({seconds, nanos} as decimal strings). */
export function toTimestamp(epochMs: number): Timestamp {
  const seconds = Math.floor(epochMs / 1000);
  return { seconds: String(seconds), nanos: String((epochMs - seconds * 1000) * 1_000_000) };
}
