import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureHandlers } from '../../src/main/app/app.ipc';
import { CaptureProtection, captureProtectionSupported } from '../../src/main/capture/capture-protection';
import { DEFAULT_SETTINGS, Settings } from '../../src/main/settings/settings';
import type { AppSettings } from '../../src/shared/ipc/contract';

let dataDir: string;
let settings: Settings;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-capture-'));
  settings = new Settings({ dataDir });
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

/** A protection over the real settings file, attached to a recorder of what the window was told. */
function attached(platform = 'darwin') {
  const protection = new CaptureProtection({ settings, platform });
  const applied: boolean[] = [];
  const detach = protection.attach((protect) => applied.push(protect));
  return { protection, applied, detach };
}

describe('the captureProtection setting', () => {
  it('is on by default, and a file written before it existed still reads with it on', async () => {
    expect(DEFAULT_SETTINGS.captureProtection).toBe(true);
    expect((await settings.get()).captureProtection).toBe(true);
    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ idleLockMinutes: 3 }));
    expect(await settings.get()).toMatchObject({ idleLockMinutes: 3, captureProtection: true });
  });

  it('tells every change listener the settings now in force, after they are saved', async () => {
    const heard: AppSettings[] = [];
    settings.onChange((current) => heard.push(current));
    const saved = await settings.set({ captureProtection: false });
    expect(heard).toEqual([saved]);
    expect(saved.captureProtection).toBe(false);
    expect(await settings.get()).toEqual(saved);
  });
});

describe('CaptureProtection', () => {
  it('protects the window before the settings are read, and as the setting says once they are', async () => {
    await settings.set({ captureProtection: false });
    const { protection, applied } = attached();
    expect(applied).toEqual([true]);
    await protection.load();
    expect(applied).toEqual([true, false]);
    expect(protection.protected).toBe(false);
  });

  it('applies a change of the setting at once', async () => {
    const { protection, applied } = attached();
    await protection.load();
    await settings.set({ captureProtection: false });
    expect(applied.at(-1)).toBe(false);
    await settings.set({ theme: 'dark' });
    expect(applied.at(-1)).toBe(false);
    await settings.set({ captureProtection: true });
    expect(applied.at(-1)).toBe(true);
  });

  it('forces protection while a secret is on screen, whatever the setting, until it is hidden', async () => {
    const { protection, applied } = attached();
    await protection.load();
    await settings.set({ captureProtection: false });
    protection.setSecretOnScreen(true);
    expect(applied.at(-1)).toBe(true);
    // A settings change while the secret is shown does not drop the protection.
    await settings.set({ captureProtection: false });
    expect(applied.at(-1)).toBe(true);
    protection.setSecretOnScreen(false);
    expect(applied.at(-1)).toBe(false);

    await settings.set({ captureProtection: true });
    protection.setSecretOnScreen(true);
    protection.setSecretOnScreen(false);
    expect(applied.at(-1)).toBe(true);
  });

  it('stays on when the settings file cannot be read', async () => {
    await writeFile(join(dataDir, 'settings.json'), '{ not json');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const { protection, applied } = attached();
      await protection.load();
      expect(applied).toEqual([true]);
      expect(protection.protected).toBe(true);
      expect(warn).toHaveBeenCalledOnce();
    } finally {
      warn.mockRestore();
    }
  });

  it('keeps a change made while the settings were being read over what was read', async () => {
    let answer: (settings: AppSettings) => void = () => undefined;
    const listeners: ((settings: AppSettings) => void)[] = [];
    const slow = {
      get: () => new Promise<AppSettings>((resolve) => (answer = resolve)),
      onChange: (listener: (settings: AppSettings) => void) => void listeners.push(listener),
    };
    const protection = new CaptureProtection({ settings: slow, platform: 'win32' });
    const loading = protection.load();
    for (const listener of listeners) listener({ ...DEFAULT_SETTINGS, captureProtection: false });
    answer({ ...DEFAULT_SETTINGS, captureProtection: true });
    await loading;
    expect(protection.protected).toBe(false);
  });

  it('stops telling a detached window, and applies to the next one attached', async () => {
    const { protection, applied, detach } = attached();
    detach();
    protection.setSecretOnScreen(true);
    expect(applied).toEqual([true]);
    const next: boolean[] = [];
    protection.attach((protect) => next.push(protect));
    protection.setSecretOnScreen(false);
    expect(next).toEqual([true, true]);
  });

  it('knows that macOS and Windows honour it and Linux does not', () => {
    expect(captureProtectionSupported('darwin')).toBe(true);
    expect(captureProtectionSupported('win32')).toBe(true);
    expect(captureProtectionSupported('linux')).toBe(false);
    expect(new CaptureProtection({ settings, platform: 'linux' }).supported).toBe(false);
  });
});

describe('app.setSecretOnScreen', () => {
  it('forces protection while shown and answers whether the OS honours it', async () => {
    for (const platform of ['darwin', 'linux']) {
      const { protection, applied } = attached(platform);
      await protection.load();
      await settings.set({ captureProtection: false });
      const handlers = captureHandlers({ captureProtection: protection });
      expect(await handlers['app.setSecretOnScreen']({ onScreen: true })).toEqual({ captureProtectionSupported: platform === 'darwin' });
      expect(applied.at(-1)).toBe(true);
      await handlers['app.setSecretOnScreen']({ onScreen: false });
      expect(applied.at(-1)).toBe(false);
    }
  });
});
