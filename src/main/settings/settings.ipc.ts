import type { IpcHandlers } from '../ipc/register';
import type { Settings } from './settings';

export function settingsHandlers({ settings }: { settings: Settings }): Pick<IpcHandlers, 'app.getSettings' | 'app.setSettings'> {
  return {
    'app.getSettings': () => settings.get(),
    'app.setSettings': (changes) => settings.set(changes),
  };
}
