import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { IpcHandlers } from '../ipc/register';
import type { Unlocker } from '../lock/unlocker';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { checkTokenWarnAbove, tokenCatalog } from '../tokens/token-thresholds';
import { wideningChanges, type Settings, type WideningChange } from './settings';

export function settingsHandlers({
  settings,
  unlocker,
  journal,
  tokens,
}: {
  settings: Settings;
  unlocker: Unlocker;
  journal: Pick<Journal, 'record'>;
  tokens: Pick<DeclaredTokens, 'list'>;
}): Pick<IpcHandlers, 'app.getSettings' | 'app.setSettings'> {
  return {
    'app.getSettings': () => settings.get(),
    // A change that widens what the app shows or lets through needs the unlock passphrase (when one is set), and is
    // journaled: the changes an auditor asks about.
    'app.setSettings': async ({ passphrase, ...asked }) => {
      // Token thresholds name a token amounts read in units, and an amount within its decimals.
      const changes =
        asked.tokenWarnAbove === undefined
          ? asked
          : { ...asked, tokenWarnAbove: checkTokenWarnAbove(asked.tokenWarnAbove, tokenCatalog(await tokens.list(), undefined)) };
      let widened: WideningChange[] = [];
      const after = await settings.set(changes, async (before, next) => {
        widened = wideningChanges(before, next);
        if (widened.length > 0) await unlocker.confirm(passphrase, widened.map(({ words }) => words).join('; '));
      });
      if (widened.length > 0) {
        const facts = Object.fromEntries(widened.map(({ label, change }) => [label, change]));
        await journal.record(localRecord('settings.widened', { title: 'Settings widened exposure', summary: Object.keys(facts).join(', '), facts, verdict: 'saved' }));
      }
      return after;
    },
  };
}
