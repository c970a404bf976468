const RFC3339_UTC = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|[+-]00:00)$/;

/**
 * Nanoseconds since the Unix epoch for an RFC 3339 time with a zero offset (`Z` or `±00:00`), or undefined when
 * the text is not one or names a date that does not exist (Feb 30). Leap seconds are not accepted.
 */
export function parseTimestamp(text: string): bigint | undefined {
  const match = RFC3339_UTC.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const milliseconds = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(milliseconds);
  // Date.UTC rolls over out-of-range parts (month 13, day 31 in April); a real date survives the round trip.
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    date.getUTCHours() !== hour ||
    date.getUTCMinutes() !== minute ||
    date.getUTCSeconds() !== second
  ) {
    return undefined;
  }
  const fraction = (match[7] ?? '').padEnd(9, '0');
  return BigInt(milliseconds) * 1_000_000n + BigInt(fraction);
}
