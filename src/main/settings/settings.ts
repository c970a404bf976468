import { join } from 'node:path';
import { appSettingsSchema, type AppSettings } from '../../shared/ipc/contract';
import { JsonFile } from '../storage/json-file';
import { tokenKeyText } from '../tokens/token-thresholds';

export const DEFAULT_SETTINGS: AppSettings = {
  idleLockMinutes: 10,
  reauthMinutes: 5,
  theme: 'system',
  captureProtection: true,
  inbox: { intervalSeconds: 10, notifyWaiting: true, notifyDecided: true, notifyExpiring: true },
};

/** What the file holds: any subset, so a file written before a setting existed still reads (with its default). */
const storedSettingsSchema = appSettingsSchema.partial();

/** Some settings; a member that is absent or undefined leaves that setting as it is. */
export type SettingsChanges = { [Name in keyof AppSettings]?: AppSettings[Name] | undefined };

/** App preferences in `<dataDir>/settings.json`; absent means the defaults. */
export class Settings {
  private readonly file: JsonFile<SettingsChanges>;
  private readonly changeListeners: ((settings: AppSettings) => void)[] = [];

  constructor({ dataDir }: { dataDir: string }) {
    this.file = new JsonFile(join(dataDir, 'settings.json'), storedSettingsSchema);
  }

  async get(): Promise<AppSettings> {
    return { ...DEFAULT_SETTINGS, ...withoutUndefined((await this.file.read()) ?? {}) };
  }

  /** Runs `listener` with the settings now in force after every change, so a change can take effect at once. */
  onChange(listener: (settings: AppSettings) => void): void {
    this.changeListeners.push(listener);
  }

  /**
   * Applies the given fields and returns the settings now in force. `approve` sees the settings before and after,
   * inside the file's update (so no other change slips in between), and throws to refuse the change.
   */
  async set(changes: SettingsChanges, approve?: (before: AppSettings, after: AppSettings) => Promise<void>): Promise<AppSettings> {
    const next = await this.file.update(async (current) => {
      const before: AppSettings = { ...DEFAULT_SETTINGS, ...withoutUndefined(current ?? {}) };
      // A field sent as undefined means "unchanged", never "erase".
      const updated: AppSettings = { ...before, ...withoutUndefined(changes) };
      await approve?.(before, updated);
      return { next: updated, result: updated };
    });
    for (const listener of this.changeListeners) listener(next);
    return next;
  }
}

function withoutUndefined(values: SettingsChanges): Partial<AppSettings> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/**
 * What a change of settings widens, in words: more time before the app locks or asks for the passphrase again, the
 * window open to screen capture, fewer signing requests flagged as large. A compromised page could use any of these
 * to see or slip through more, so with an unlock passphrase set they need it; narrowing changes and the theme do not.
 */
export function wideningChanges(before: AppSettings, after: AppSettings): WideningChange[] {
  const widened: WideningChange[] = [];
  if (after.idleLockMinutes > before.idleLockMinutes) {
    widened.push({
      label: 'Idle lock',
      change: `${before.idleLockMinutes} → ${after.idleLockMinutes} minutes`,
      words: `locking after ${after.idleLockMinutes} idle minutes instead of ${before.idleLockMinutes}`,
    });
  }
  if (after.reauthMinutes > before.reauthMinutes) {
    widened.push({
      label: 'Re-ask before reveal',
      change: `${before.reauthMinutes} → ${after.reauthMinutes} minutes`,
      words: `asking for the passphrase before a reveal after ${after.reauthMinutes} minutes instead of ${before.reauthMinutes}`,
    });
  }
  if (before.captureProtection && !after.captureProtection) {
    widened.push({ label: 'Capture protection', change: 'on → off', words: 'turning screen capture protection off' });
  }
  for (const coin of WARN_ABOVE_COINS) {
    const [was, now] = [before.warnAbove?.[coin], after.warnAbove?.[coin]];
    if (was === undefined) continue;
    const label = `Warn above (${coin})`;
    if (now === undefined) widened.push({ label, change: `${was} → no threshold`, words: `removing the ${coin} large-value warning (above ${was})` });
    else if (wholeUnitsValue(now) > wholeUnitsValue(was))
      widened.push({ label, change: `${was} → ${now}`, words: `raising the ${coin} large-value warning from ${was} to ${now}` });
  }
  const tokensAfter = new Map((after.tokenWarnAbove ?? []).map(({ token, amount }) => [tokenKeyText(token), amount]));
  for (const { token, amount: was } of before.tokenWarnAbove ?? []) {
    const now = tokensAfter.get(tokenKeyText(token));
    const label = `Warn above (token ${token.address}${token.family === 'ethereum' ? ` on chain id ${token.chainId}` : ' on Solana'})`;
    if (now === undefined)
      widened.push({
        label,
        change: `${was} → no threshold`,
        words: `removing the large-transfer warning of the token at ${token.address} (at ${was})`,
      });
    else if (wholeUnitsValue(now) > wholeUnitsValue(was))
      widened.push({
        label,
        change: `${was} → ${now}`,
        words: `raising the large-transfer warning of the token at ${token.address} from ${was} to ${now}`,
      });
  }
  return widened;
}

/** A setting changed so that more is exposed: the passphrase prompt says `words`, the journal `label` and `change`. */
export interface WideningChange {
  label: string;
  /** Before → after. */
  change: string;
  words: string;
}

const WARN_ABOVE_COINS = ['ETH', 'SOL', 'BTC'] as const satisfies readonly (keyof NonNullable<AppSettings['warnAbove']>)[];
/** The schemas allow at most 18 decimals for a coin, 77 for a token. */
const WHOLE_UNIT_DECIMALS = 77;

/** "1.5" as an integer of 10^-77 units, so two thresholds of one coin or token compare exactly. */
function wholeUnitsValue(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * 10n ** BigInt(WHOLE_UNIT_DECIMALS) + BigInt(fraction.padEnd(WHOLE_UNIT_DECIMALS, '0'));
}
