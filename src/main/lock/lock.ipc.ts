import { toQkError } from '../../shared/errors';
import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { IpcHandlers } from '../ipc/register';
import type { AppLock } from './lock';
import type { Unlocker } from './unlocker';

type LockChannel = 'app.info' | 'app.lock' | 'app.unlock' | 'app.reauthenticate' | 'app.setUnlockPassphrase';

export interface LockHandlerDeps {
  lock: AppLock;
  unlocker: Unlocker;
  app: { version: string; platform: string; packaged: boolean; captureProtectionSupported: boolean };
  journal: Pick<Journal, 'record'>;
}

/** What the lock screen needs: whether the app is locked (with the app's identity), locking, unlocking, the passphrase. */
export function lockHandlers({ lock, unlocker, app, journal }: LockHandlerDeps): Pick<IpcHandlers, LockChannel> {
  /** Runs an unlock (or a re-authentication) and journals how it went, a refusal before it is answered. */
  const journaled = async (what: 'Unlock' | 'Re-authentication', credentials: { touchId?: true | undefined }, attempt: () => Promise<void>) => {
    const method = credentials.touchId === true ? 'Touch ID' : 'passphrase';
    try {
      await attempt();
    } catch (error) {
      const reason = toQkError(error).code;
      await journal.record(
        localRecord('app.unlock-failed', { title: `${what} refused`, summary: `${what} with ${method} was refused (${reason})`, facts: { Method: method, Reason: reason }, verdict: 'refused' }),
      );
      throw error;
    }
    await journal.record(localRecord('app.unlocked', { title: `${what} passed`, summary: `${what} with ${method}`, facts: { Method: method }, verdict: 'unlocked' }));
  };
  return {
    'app.info': async () => ({ ...app, locked: lock.locked, ...(await unlocker.status()) }),
    'app.lock': async () => {
      lock.lock();
      return null;
    },
    'app.unlock': async (credentials) => {
      await journaled('Unlock', credentials, () => unlocker.unlock(credentials));
      return null;
    },
    'app.reauthenticate': async (credentials) => {
      await journaled('Re-authentication', credentials, () => unlocker.reauthenticate(credentials));
      return null;
    },
    'app.setUnlockPassphrase': async ({ passphrase, currentPassphrase }) => {
      await unlocker.setPassphrase(passphrase, currentPassphrase);
      return null;
    },
  };
}
