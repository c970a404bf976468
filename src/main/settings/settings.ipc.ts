import type { AppSettings } from '../../shared/ipc/contract';
import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { IpcHandlers } from '../ipc/register';
import type { Settings } from './settings';

export function settingsHandlers({ settings, journal }: { settings: Settings; journal: Pick<Journal, 'record'> }): Pick<IpcHandlers, 'app.getSettings' | 'app.setSettings'> {
  return {
    'app.getSettings': () => settings.get(),
    'app.setSettings': async (changes) => {
      const before = await settings.get();
      const after = await settings.set(changes);
      const widened = widenedSettings(before, after);
      if (Object.keys(widened).length > 0) {
        await journal.record(
          localRecord('settings.widened', { title: 'Settings widened exposure', summary: Object.keys(widened).join(', '), facts: widened, verdict: 'saved' }),
        );
      }
      return after;
    },
  };
}

/** The changes that leave more exposed than before, each as before → after: the ones an auditor asks about. */
export function widenedSettings(before: AppSettings, after: AppSettings): Record<string, string> {
  const widened: Record<string, string> = {};
  if (before.captureProtection && !after.captureProtection) widened['Capture protection'] = 'on → off';
  if (after.idleLockMinutes > before.idleLockMinutes) widened['Idle lock'] = `${before.idleLockMinutes} → ${after.idleLockMinutes} minutes`;
  if (after.reauthMinutes > before.reauthMinutes) widened['Re-ask before reveal'] = `${before.reauthMinutes} → ${after.reauthMinutes} minutes`;
  for (const coin of ['ETH', 'SOL', 'BTC'] as const) {
    const was = before.warnAbove?.[coin];
    const is = after.warnAbove?.[coin];
    // A threshold removed or raised flags fewer requests.
    if (was !== undefined && (is === undefined || Number(is) > Number(was))) widened[`Warn above (${coin})`] = `${was} → ${is ?? 'no threshold'}`;
  }
  return widened;
}
