/**
 * The window main opens its passkey page in: isolated from the app's page (no preload, a session of its own), kept on
 * main's loopback page, and closed by main once the ceremony is over.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

type Listener = (...args: unknown[]) => void;

class FakeSession {
  static byPartition = new Map<string, FakeSession>();
  permissionRequest: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
  permissionCheck: ((...args: unknown[]) => boolean) | undefined;
  setPermissionRequestHandler(handler: FakeSession['permissionRequest']) {
    this.permissionRequest = handler;
  }
  setPermissionCheckHandler(handler: FakeSession['permissionCheck']) {
    this.permissionCheck = handler;
  }
}

class FakeBrowserWindow {
  static created: FakeBrowserWindow[] = [];
  readonly listeners = new Map<string, Listener>();
  readonly contentListeners = new Map<string, Listener>();
  windowOpenHandler: (() => unknown) | undefined;
  url = '';
  destroyed = false;
  closeCalls = 0;
  readonly webContents = {
    on: (name: string, listener: Listener) => this.contentListeners.set(name, listener),
    setWindowOpenHandler: (handler: () => unknown) => {
      this.windowOpenHandler = handler;
    },
  };
  constructor(readonly options: Record<string, unknown> & { webPreferences: Record<string, unknown> }) {
    FakeBrowserWindow.created.push(this);
  }
  on(name: string, listener: Listener) {
    this.listeners.set(name, listener);
  }
  once(name: string, listener: Listener) {
    this.listeners.set(name, listener);
  }
  show = vi.fn();
  async loadURL(url: string) {
    this.url = url;
  }
  isDestroyed() {
    return this.destroyed;
  }
  close() {
    this.closeCalls++;
    this.destroyed = true;
    this.listeners.get('closed')?.();
  }
}

vi.mock('electron', () => ({
  BrowserWindow: FakeBrowserWindow,
  session: {
    fromPartition: (partition: string) => {
      const existing = FakeSession.byPartition.get(partition) ?? new FakeSession();
      FakeSession.byPartition.set(partition, existing);
      return existing;
    },
  },
}));

const { openPasskeyWindow } = await import('../../src/main/passkeys/passkey-window');

const PAGE_URL = 'http://localhost:43123/passkey/Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
const parentWindow = { id: 'the app window' };

beforeEach(() => {
  FakeBrowserWindow.created = [];
  FakeSession.byPartition.clear();
});

describe('the passkey window', () => {
  it("opens main's page modal over the app window, with no preload and a session of its own", async () => {
    await openPasskeyWindow(() => parentWindow as never)(PAGE_URL);
    const [window] = FakeBrowserWindow.created;
    expect(window!.url).toBe(PAGE_URL);
    expect(window!.options).toMatchObject({ parent: parentWindow, modal: true, show: false });
    const preferences = window!.options.webPreferences;
    expect(preferences).not.toHaveProperty('preload');
    expect(preferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, devTools: false });
    expect(preferences.session).toBe(FakeSession.byPartition.get('qk-passkey'));
  });

  it('denies every permission, navigation and new window', async () => {
    await openPasskeyWindow(() => undefined)(PAGE_URL);
    const [window] = FakeBrowserWindow.created;
    const session = FakeSession.byPartition.get('qk-passkey')!;
    const granted = vi.fn();
    session.permissionRequest!({}, 'media', granted);
    expect(granted).toHaveBeenCalledWith(false);
    expect(session.permissionCheck!({}, 'hid')).toBe(false);
    const navigation = { preventDefault: vi.fn() };
    window!.contentListeners.get('will-navigate')!(navigation, 'https://evil.example/');
    expect(navigation.preventDefault).toHaveBeenCalledOnce();
    expect(window!.windowOpenHandler!()).toEqual({ action: 'deny' });
    expect(window!.options).not.toHaveProperty('parent');
  });

  it('is closed by main once, and tells main when the person closed it', async () => {
    const shown = await openPasskeyWindow(() => undefined)(PAGE_URL);
    const [window] = FakeBrowserWindow.created;
    let closed = false;
    void shown.closed.then(() => (closed = true));
    shown.close();
    shown.close();
    await shown.closed;
    expect(closed).toBe(true);
    expect(window!.closeCalls).toBe(1);
  });

  it("opens nothing but main's loopback passkey page", async () => {
    for (const url of [
      'https://evil.example/passkey/x',
      'http://127.0.0.1:43123/passkey/x',
      'http://localhost:43123/index.html',
      'file:///etc/passwd',
    ]) {
      await expect(openPasskeyWindow(() => undefined)(url)).rejects.toMatchObject({ code: 'INTERNAL' });
    }
    expect(FakeBrowserWindow.created).toEqual([]);
  });
});
