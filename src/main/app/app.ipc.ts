/**
 * The `app.*` channels: the app itself rather than any profile — whether it is locked and unlocking it, its settings,
 * and hiding the window from screen capture while a secret is shown.
 */
import { toQkError } from '../../shared/errors';
import type { CaptureProtection } from '../capture/capture-protection';
import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { IpcHandlers } from '../ipc/register';
import type { AppLock } from '../lock/lock';
import type { Unlocker } from '../lock/unlocker';
import { wideningChanges, type Settings, type WideningChange } from '../settings/settings';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { checkTokenWarnAbove, tokenCatalog } from '../tokens/token-thresholds';

type AppChannel = Extract<keyof IpcHandlers, `app.${string}`>;
type LockChannel = 'app.info' | 'app.lock' | 'app.unlock' | 'app.reauthenticate' | 'app.setUnlockPassphrase';

export interface AppHandlerDeps {
  lock: AppLock;
  unlocker: Unlocker;
  settings: Settings;
  captureProtection: CaptureProtection;
  tokens: Pick<DeclaredTokens, 'list'>;
  app: { version: string; platform: string; packaged: boolean };
  journal: Pick<Journal, 'record'>;
}

export function appHandlers(deps: AppHandlerDeps): Pick<IpcHandlers, AppChannel> {
  return { ...lockHandlers(deps), ...settingsHandlers(deps), ...captureHandlers(deps) };
}

/** Whether the app is locked (with the app's identity), locking, unlocking, the unlock passphrase. */
function lockHandlers({
  lock,
  unlocker,
  app,
  captureProtection,
  journal,
}: Pick<AppHandlerDeps, 'lock' | 'unlocker' | 'app' | 'captureProtection' | 'journal'>): Pick<IpcHandlers, LockChannel> {
  /** Runs an unlock (or a re-authentication) and journals how it went, a refusal before it is answered. */
  const journaled = async (what: 'Unlock' | 'Re-authentication', credentials: { touchId?: true | undefined }, attempt: () => Promise<void>) => {
    const method = credentials.touchId === true ? 'Touch ID' : 'passphrase';
    try {
      await attempt();
    } catch (error) {
      const reason = toQkError(error).code;
      await journal.record(
        localRecord('app.unlock-failed', {
          title: `${what} refused`,
          summary: `${what} with ${method} was refused (${reason})`,
          facts: { Method: method, Reason: reason },
          verdict: 'refused',
        }),
      );
      throw error;
    }
    await journal.record(
      localRecord('app.unlocked', { title: `${what} passed`, summary: `${what} with ${method}`, facts: { Method: method }, verdict: 'unlocked' }),
    );
  };
  return {
    'app.info': async () => ({ ...app, captureProtectionSupported: captureProtection.supported, locked: lock.locked, ...(await unlocker.status()) }),
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

function settingsHandlers({
  settings,
  unlocker,
  journal,
  tokens,
}: Pick<AppHandlerDeps, 'settings' | 'unlocker' | 'journal' | 'tokens'>): Pick<IpcHandlers, 'app.getSettings' | 'app.setSettings'> {
  return {
    'app.getSettings': () => settings.get(),
    // A change that widens what the app shows or lets through needs the unlock passphrase (when one is set), and is
    // journaled: the changes an auditor asks about.
    'app.setSettings': async ({ passphrase, tokenWarnAbove, ...asked }) => {
      // Token thresholds name a token amounts read in units, and an amount within its decimals; held in base units.
      const catalog = tokenCatalog(await tokens.list(), undefined);
      const changes = tokenWarnAbove === undefined ? asked : { ...asked, tokenWarnAbove: checkTokenWarnAbove(tokenWarnAbove, catalog) };
      let widened: WideningChange[] = [];
      const after = await settings.set(changes, async (before, next) => {
        widened = wideningChanges(before, next, catalog);
        if (widened.length > 0) await unlocker.confirm(passphrase, widened.map(({ words }) => words).join('; '));
      });
      if (widened.length > 0) {
        const facts = Object.fromEntries(widened.map(({ label, change }) => [label, change]));
        await journal.record(
          localRecord('settings.widened', { title: 'Settings widened exposure', summary: Object.keys(facts).join(', '), facts, verdict: 'saved' }),
        );
      }
      return after;
    },
  };
}

export function captureHandlers({ captureProtection }: Pick<AppHandlerDeps, 'captureProtection'>): Pick<IpcHandlers, 'app.setSecretOnScreen'> {
  return {
    'app.setSecretOnScreen': async ({ onScreen }) => {
      captureProtection.setSecretOnScreen(onScreen);
      return { captureProtectionSupported: captureProtection.supported };
    },
  };
}
