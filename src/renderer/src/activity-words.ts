/** Time in words; what an activity asks for is the shared describer's (src/shared/describe), who proposed it main's. */

/** `5400000` → `1 h 30 min`; under a minute reads `under a minute`. */
export function durationInWords(ms: number): string {
  if (ms <= 0) return 'expired';
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 0) return 'under a minute';
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
