import type { IpcHandlers } from '../ipc/register';
import type { AppLock } from './lock';

export interface LockHandlerDeps {
  lock: AppLock;
  app: { version: string; platform: string; packaged: boolean };
}

/** What the lock screen needs: whether the app is locked (with the app's identity), and locking and unlocking. */
export function lockHandlers({ lock, app }: LockHandlerDeps): Pick<IpcHandlers, 'app.info' | 'app.lock' | 'app.unlock'> {
  return {
    'app.info': async () => ({ ...app, locked: lock.locked }),
    'app.lock': async () => {
      lock.lock();
      return null;
    },
    'app.unlock': async () => {
      lock.unlock();
      return null;
    },
  };
}
