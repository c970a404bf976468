import { join } from 'node:path';
import { appSettingsSchema, type AppSettings } from '../../shared/ipc/contract';
import { JsonFile } from '../storage/json-file';

export const DEFAULT_SETTINGS: AppSettings = { idleLockMinutes: 10, reauthMinutes: 5, theme: 'system', captureProtection: true };

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

  /** Applies the given fields and returns the settings now in force. */
  async set(changes: SettingsChanges): Promise<AppSettings> {
    const next = await this.file.update(async (current) => {
      // A field sent as undefined means "unchanged", never "erase".
      const updated: AppSettings = { ...DEFAULT_SETTINGS, ...withoutUndefined(current ?? {}), ...withoutUndefined(changes) };
      return { next: updated, result: updated };
    });
    for (const listener of this.changeListeners) listener(next);
    return next;
  }
}

function withoutUndefined(values: SettingsChanges): Partial<AppSettings> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}
