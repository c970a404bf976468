import { join } from 'node:path';
import { appSettingsSchema, type AppSettings } from '../../shared/ipc/contract';
import { JsonFile } from '../storage/json-file';

export const DEFAULT_SETTINGS: AppSettings = { idleLockMinutes: 10, theme: 'system' };

/** App preferences in `<dataDir>/settings.json`; absent means the defaults. */
export class Settings {
  private readonly file: JsonFile<AppSettings>;

  constructor({ dataDir }: { dataDir: string }) {
    this.file = new JsonFile(join(dataDir, 'settings.json'), appSettingsSchema);
  }

  async get(): Promise<AppSettings> {
    return (await this.file.read()) ?? { ...DEFAULT_SETTINGS };
  }

  /** Applies the given fields and returns the settings now in force. */
  async set(changes: Partial<AppSettings>): Promise<AppSettings> {
    return this.file.update(async (current) => {
      // A field sent as undefined means "unchanged", never "erase".
      const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      const next = { ...(current ?? DEFAULT_SETTINGS), ...given };
      return { next, result: next };
    });
  }
}
