import type { IpcHandlers } from '../ipc/register';
import type { Unlocker } from '../lock/unlocker';
import { wideningChanges, type Settings } from './settings';

export function settingsHandlers({ settings, unlocker }: { settings: Settings; unlocker: Unlocker }): Pick<IpcHandlers, 'app.getSettings' | 'app.setSettings'> {
  return {
    'app.getSettings': () => settings.get(),
    // A change that widens what the app shows or lets through needs the unlock passphrase (when one is set).
    'app.setSettings': ({ passphrase, ...changes }) =>
      settings.set(changes, async (before, after) => {
        const widened = wideningChanges(before, after);
        if (widened.length > 0) await unlocker.confirm(passphrase, widened.join('; '));
      }),
  };
}
