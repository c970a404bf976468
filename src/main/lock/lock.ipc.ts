import type { IpcHandlers } from '../ipc/register';
import type { AppLock } from './lock';
import type { Unlocker } from './unlocker';

type LockChannel = 'app.info' | 'app.lock' | 'app.unlock' | 'app.reauthenticate' | 'app.setUnlockPassphrase';

export interface LockHandlerDeps {
  lock: AppLock;
  unlocker: Unlocker;
  app: { version: string; platform: string; packaged: boolean; captureProtectionSupported: boolean };
}

/** What the lock screen needs: whether the app is locked (with the app's identity), locking, unlocking, the passphrase. */
export function lockHandlers({ lock, unlocker, app }: LockHandlerDeps): Pick<IpcHandlers, LockChannel> {
  return {
    'app.info': async () => ({ ...app, locked: lock.locked, ...(await unlocker.status()) }),
    'app.lock': async () => {
      lock.lock();
      return null;
    },
    'app.unlock': async (credentials) => {
      await unlocker.unlock(credentials);
      return null;
    },
    'app.reauthenticate': async (credentials) => {
      await unlocker.reauthenticate(credentials);
      return null;
    },
    'app.setUnlockPassphrase': async ({ passphrase, currentPassphrase }) => {
      await unlocker.setPassphrase(passphrase, currentPassphrase);
      return null;
    },
  };
}
