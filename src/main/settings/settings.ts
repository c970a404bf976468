import { join } from 'node:path';
import { appSettingsSchema, type AppSettings } from '../../shared/ipc/contract';
import { JsonFile } from '../storage/json-file';

export const DEFAULT_SETTINGS: AppSettings = { idleLockMinutes: 10, reauthMinutes: 5, theme: 'system' };

/** What the file holds: any subset, so a file written before a setting existed still reads (with its default). */
const storedSettingsSchema = appSettingsSchema.partial();

/** Some settings; a member that is absent or undefined leaves that setting as it is. */
export type SettingsChanges = { [Name in keyof AppSettings]?: AppSettings[Name] | undefined };

/** App preferences in `<dataDir>/settings.json`; absent means the defaults. */
export class Settings {
  private readonly file: JsonFile<SettingsChanges>;

  constructor({ dataDir }: { dataDir: string }) {
    this.file = new JsonFile(join(dataDir, 'settings.json'), storedSettingsSchema);
  }

  async get(): Promise<AppSettings> {
    return { ...DEFAULT_SETTINGS, ...withoutUndefined((await this.file.read()) ?? {}) };
  }

  /** Applies the given fields and returns the settings now in force. */
  async set(changes: SettingsChanges): Promise<AppSettings> {
    return this.file.update(async (current) => {
      // A field sent as undefined means "unchanged", never "erase".
      const next: AppSettings = { ...DEFAULT_SETTINGS, ...withoutUndefined(current ?? {}), ...withoutUndefined(changes) };
      return { next, result: next };
    });
  }
}

function withoutUndefined(values: SettingsChanges): Partial<AppSettings> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}
