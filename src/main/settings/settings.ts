import { join } from 'node:path';
import { formatUnits } from 'viem';
import { z } from 'zod';
import { grouped } from '../../shared/clear-signing/amounts';
import { tokenPlaceWords } from '../../shared/clear-signing/token-reservation';
import { appSettingsSchema, declaredTokenKey, type AppSettings, type TokenCatalogEntry } from '../../shared/ipc/contract';
import { JsonFile } from '../storage/json-file';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { migratedThresholds, tokenCatalog, tokenKeyText } from '../tokens/token-thresholds';

export const DEFAULT_SETTINGS: AppSettings = {
  idleLockMinutes: 10,
  reauthMinutes: 5,
  theme: 'system',
  captureProtection: true,
  inbox: { intervalSeconds: 10, notifyWaiting: true, notifyDecided: true, notifyExpiring: true },
};

const tokenThresholdSchema = appSettingsSchema.shape.tokenWarnAbove.unwrap().element;
/** A token threshold as files written before base units held it: in the token's units ("10000"). */
const legacyTokenThresholdSchema = z.strictObject({ token: declaredTokenKey, amount: z.string().max(200) });

/**
 * What the file holds: any subset, so a file written before a setting existed still reads (with its default); token
 * thresholds in the token's units are read until the file is first read and migrated (see `Settings.get`).
 */
const storedSettingsSchema = appSettingsSchema.partial().extend({
  tokenWarnAbove: z
    .array(z.union([tokenThresholdSchema, legacyTokenThresholdSchema]))
    .max(500)
    .optional(),
});
type StoredSettings = z.infer<typeof storedSettingsSchema>;

/** Some settings; a member that is absent or undefined leaves that setting as it is. */
export type SettingsChanges = { [Name in keyof AppSettings]?: AppSettings[Name] | undefined };

/** App preferences in `<dataDir>/settings.json`; absent means the defaults. */
export class Settings {
  private readonly file: JsonFile<StoredSettings>;
  private readonly tokens: Pick<DeclaredTokens, 'list'> | undefined;
  private readonly changeListeners: ((settings: AppSettings) => void)[] = [];

  /** `tokens`: the declarations whose decimals convert token thresholds a file still holds in units (the app's own). */
  constructor({ dataDir, tokens }: { dataDir: string; tokens?: Pick<DeclaredTokens, 'list'> }) {
    this.file = new JsonFile(join(dataDir, 'settings.json'), storedSettingsSchema);
    this.tokens = tokens;
  }

  /**
   * The settings in force. A file holding token thresholds in the token's units is migrated to base units at its first
   * read, with the decimals the tokens have then, and written back, so a later declaration cannot re-read them.
   */
  async get(): Promise<AppSettings> {
    const inForce = alreadyCurrent(await this.file.read());
    if (inForce !== undefined) return settingsOf(inForce);
    return this.file.update(async (stored) => {
      const migrated = await this.migrated(stored);
      return { next: migrated, result: settingsOf(migrated) };
    });
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
      const before = settingsOf(await this.migrated(current));
      // A field sent as undefined means "unchanged", never "erase".
      const updated: AppSettings = { ...before, ...withoutUndefined(changes) };
      await approve?.(before, updated);
      return { next: updated, result: updated };
    });
    for (const listener of this.changeListeners) listener(next);
    return next;
  }

  private async migrated(stored: StoredSettings | undefined): Promise<SettingsChanges> {
    const current = alreadyCurrent(stored);
    if (current !== undefined) return current;
    const { tokenWarnAbove = [], ...rest } = stored ?? {};
    return { ...rest, tokenWarnAbove: migratedThresholds(tokenWarnAbove, tokenCatalog((await this.tokens?.list()) ?? [], undefined)) };
  }
}

/** `stored` when it holds no token threshold in units (nothing to migrate); undefined when it does. */
function alreadyCurrent(stored: StoredSettings | undefined): SettingsChanges | undefined {
  const { tokenWarnAbove, ...rest } = stored ?? {};
  if (tokenWarnAbove === undefined) return rest;
  const current = tokenWarnAbove.flatMap((entry) => ('baseUnits' in entry ? [entry] : []));
  return current.length === tokenWarnAbove.length ? { ...rest, tokenWarnAbove: current } : undefined;
}

/** The settings in force from a file with no threshold in units left. */
function settingsOf(stored: SettingsChanges): AppSettings {
  return { ...DEFAULT_SETTINGS, ...withoutUndefined(stored) };
}

function withoutUndefined(values: SettingsChanges): Partial<AppSettings> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/**
 * What a change of settings widens, in words: more time before the app locks or asks for the passphrase again, the
 * window open to screen capture, fewer signing requests flagged as large, simulations on another node's state. A
 * compromised page could use any of these to see or slip through more, so with an unlock passphrase set they need it;
 * narrowing changes and the theme do not. `catalog` names token thresholds' tokens and reads their amounts in units;
 * without it they read in base units.
 */
export function wideningChanges(before: AppSettings, after: AppSettings, catalog: readonly TokenCatalogEntry[] = []): WideningChange[] {
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
  const tokens = new Map(catalog.map((entry) => [tokenKeyText(entry.token), entry]));
  const tokensAfter = new Map((after.tokenWarnAbove ?? []).map(({ token, baseUnits }) => [tokenKeyText(token), BigInt(baseUnits)]));
  for (const { token, baseUnits } of before.tokenWarnAbove ?? []) {
    const [was, now] = [BigInt(baseUnits), tokensAfter.get(tokenKeyText(token))];
    if (now !== undefined && now <= was) continue;
    const read = tokens.get(tokenKeyText(token));
    // Read as the person typed it: the symbol and grouped digits, the address only to say which token it is.
    const amount = (raw: bigint) =>
      read === undefined ? `${grouped(raw.toString())} base units` : `${grouped(formatUnits(raw, read.decimals))} ${read.symbol}`;
    const named = read === undefined ? `the token at ${tokenPlaceWords(token)}` : `${read.symbol} (${tokenPlaceWords(token)})`;
    const label = `Warn above (token ${token.address}${token.family === 'ethereum' ? ` on chain id ${token.chainId}` : ' on Solana'})`;
    widened.push(
      now === undefined
        ? { label, change: `${amount(was)} → no threshold`, words: `removing the large-transfer warning of ${named} (at ${amount(was)})` }
        : {
            label,
            change: `${amount(was)} → ${amount(now)}`,
            words: `raising the large-transfer warning of ${named} from ${amount(was)} to ${amount(now)}`,
          },
    );
  }
  // A simulation is as true as its node's state: a page pointing a chain at a node of its choosing could make a drain
  // read as harmless, so a node set or replaced needs the passphrase; removing one only leaves requests unsimulated.
  for (const [chain, url] of Object.entries(after.nodeUrls ?? {})) {
    const was = before.nodeUrls?.[chain];
    if (was === url) continue;
    widened.push({
      label: `Simulation node (${chain})`,
      change: `${was ?? 'none'} → ${url}`,
      words: `simulating ${chain} transactions on the state ${url} gives${was === undefined ? '' : ` instead of ${was}`}`,
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
/** The schema allows at most 18 decimals for a coin. */
const WHOLE_UNIT_DECIMALS = 18;

/** "1.5" as an integer of 10^-18 units, so two thresholds of one coin compare exactly. */
function wholeUnitsValue(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * 10n ** BigInt(WHOLE_UNIT_DECIMALS) + BigInt(fraction.padEnd(WHOLE_UNIT_DECIMALS, '0'));
}
