import { getPriority, platform, setPriority } from 'node:os';

/** The highest nice value, the lowest priority. */
const LOWEST_PRIORITY = 19;

/**
 * Lowers the calling worker thread's CPU priority by `steps` nice values (at most to the lowest), so that when it and
 * the event loop that serves every request both want a core, the event loop gets it first. On Linux a nice value is
 * the calling thread's own; elsewhere it would lower the whole process, so the thread is left as it is there. Relative
 * to the thread's own value: a process that already runs lowered (the app's Sandbox) lowers its workers further.
 */
export function lowerThisThreadPriority(steps: number): void {
  if (platform() !== 'linux') return;
  setPriority(Math.min(LOWEST_PRIORITY, getPriority() + steps));
}
