import { useEffect, useRef, useState } from 'react';
import type { AppSettings } from '../../shared/ipc/contract';
import { call } from './api';
import { useUi } from './store';

/** Applies the theme setting to <html data-theme>, following the OS while it is 'system'. */
export function useTheme(theme: AppSettings['theme'] | undefined): void {
  useEffect(() => {
    const dark = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => {
      const resolved = theme === 'light' || theme === 'dark' ? theme : dark.matches ? 'dark' : 'light';
      document.documentElement.dataset.theme = resolved;
    };
    apply();
    dark.addEventListener('change', apply);
    return () => dark.removeEventListener('change', apply);
  }, [theme]);
}

const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart'] as const;
const IDLE_CHECK_MS = 15_000;

/**
 * Locks the app after `idleMinutes` without input in this window. A lock decided in main (system idle, screen lock,
 * suspend) arrives as main's lock event (see queries.ts) and hides the data here at once.
 */
export function useLockWatch(idleMinutes: number | undefined): void {
  const locked = useUi((state) => state.locked);
  // The person's last input since the app was unlocked (0 while locked). It outlives a change of the idle minutes: a
  // shorter time, once saved, counts the idleness so far (the setting reaches this hook a moment after the save's click).
  const lastActivity = useRef(0);

  useEffect(() => {
    if (locked) {
      lastActivity.current = 0;
      return;
    }
    if (lastActivity.current === 0) lastActivity.current = Date.now();
    const touched = () => {
      lastActivity.current = Date.now();
    };
    for (const name of ACTIVITY_EVENTS) window.addEventListener(name, touched, { passive: true });
    const idleTimer =
      idleMinutes === undefined
        ? undefined
        : setInterval(() => {
            if (Date.now() - lastActivity.current >= idleMinutes * 60_000) void lockApp();
          }, IDLE_CHECK_MS);
    return () => {
      for (const name of ACTIVITY_EVENTS) window.removeEventListener(name, touched);
      clearInterval(idleTimer);
    };
  }, [locked, idleMinutes]);
}

/** Hides everything at once, then tells main; a failure to tell main is logged, the UI stays locked either way. */
export async function lockApp(): Promise<void> {
  useUi.getState().setLocked(true);
  await call((api) => api.app.lock()).catch((error: unknown) => console.error('main refused to lock', error));
}

/** `value` once it has stayed the same for `delayMs`: a read that follows typing waits for a pause. */
export function useDebouncedValue<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
