import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { channels } from '../../src/shared/ipc/contract';
import { AppLock } from '../../src/main/app/lock';
import { watchIdle } from '../../src/main/app/idle-lock';

const userData = await mkdtemp(join(tmpdir(), 'qk-shell-'));
const recorded = vi.hoisted(() => ({
  handled: [] as string[],
  windows: [] as Record<string, unknown>[],
  appEvents: [] as string[],
  powerEvents: [] as string[],
  sessionHardened: false,
}));

vi.mock('electron', () => {
  const on = (events: string[]) =>
    function (this: unknown, name: string) {
      events.push(name);
      return this;
    };
  class BrowserWindow {
    webContents = { on: () => undefined, setWindowOpenHandler: () => undefined };
    constructor(options: Record<string, unknown>) {
      recorded.windows.push(options);
    }
    once() {}
    on() {}
    async loadFile() {}
    async loadURL() {}
  }
  return {
    app: {
      requestSingleInstanceLock: () => true,
      whenReady: async () => undefined,
      getPath: () => userData,
      getVersion: () => '9.9.9',
      isPackaged: true,
      on: on(recorded.appEvents),
      quit: vi.fn(),
      exit: vi.fn(),
    },
    ipcMain: { handle: (name: string) => recorded.handled.push(name) },
    powerMonitor: { on: on(recorded.powerEvents), getSystemIdleTime: () => 0 },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: () => (recorded.sessionHardened = true) },
        setPermissionRequestHandler: () => undefined,
        setPermissionCheckHandler: () => undefined,
      },
    },
    dialog: { showErrorBox: vi.fn() },
    BrowserWindow,
  };
});

afterAll(() => rm(userData, { recursive: true, force: true }));

describe('src/main/index.ts', () => {
  it('wires lifecycle, session, every IPC channel once, the lock triggers and one window', async () => {
    await import('../../src/main/index');
    await vi.waitFor(() => expect(recorded.windows).toHaveLength(1));
    expect(recorded.handled.sort()).toEqual([...channels].sort());
    expect(recorded.sessionHardened).toBe(true);
    expect(recorded.appEvents).toEqual(expect.arrayContaining(['second-instance', 'web-contents-created', 'window-all-closed']));
    expect(recorded.powerEvents).toEqual(expect.arrayContaining(['lock-screen', 'suspend']));
    expect(recorded.windows[0]).toMatchObject({ webPreferences: { sandbox: true, contextIsolation: true, devTools: false } });
  });
});

describe('watchIdle', () => {
  it('locks once system idle time reaches the configured minutes, using the default if settings are unreadable', async () => {
    vi.useFakeTimers();
    try {
      let idleSeconds = 0;
      const lock = new AppLock();
      const stop = watchIdle({ lock, settings: { get: async () => ({ idleLockMinutes: 2, theme: 'system' }) }, systemIdleSeconds: () => idleSeconds, checkEveryMs: 1000 });
      idleSeconds = 119;
      await vi.advanceTimersByTimeAsync(1000);
      expect(lock.locked).toBe(false);
      idleSeconds = 120;
      await vi.advanceTimersByTimeAsync(1000);
      expect(lock.locked).toBe(true);
      stop();

      const fallback = new AppLock();
      const stopFallback = watchIdle({
        lock: fallback,
        settings: { get: async () => Promise.reject(new Error('corrupt')) },
        systemIdleSeconds: () => 10 * 60,
        checkEveryMs: 1000,
      });
      await vi.advanceTimersByTimeAsync(1000);
      expect(fallback.locked).toBe(true);
      stopFallback();
    } finally {
      vi.useRealTimers();
    }
  });
});
