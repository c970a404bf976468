import type { AppLock } from './lock';
import { DEFAULT_SETTINGS, type Settings } from '../settings/settings';

export interface IdleLockOptions {
  lock: AppLock;
  settings: Pick<Settings, 'get'>;
  /** Seconds since the user last touched keyboard or mouse anywhere (Electron's powerMonitor.getSystemIdleTime). */
  systemIdleSeconds: () => number;
  checkEveryMs?: number;
}

/** Locks the app once the system has been idle for the configured minutes. Returns a function that stops watching. */
export function watchIdle({ lock, settings, systemIdleSeconds, checkEveryMs = 15_000 }: IdleLockOptions): () => void {
  const check = async () => {
    if (lock.locked) return;
    // An unreadable settings file must not disable the lock: fall back to the default timeout.
    const minutes = await settings.get().then(
      (current) => current.idleLockMinutes,
      () => DEFAULT_SETTINGS.idleLockMinutes,
    );
    if (systemIdleSeconds() >= minutes * 60) lock.lock();
  };
  const timer = setInterval(() => void check(), checkEveryMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
