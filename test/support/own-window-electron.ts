/**
 * The part of Electron a window main draws itself (the token PIN prompt, the passkey window) uses, as stand-ins that
 * keep what main did: the window's options and listeners, the page loaded, the session's permission handlers. A test
 * mocks Electron with it: `vi.mock('electron', () => import('../support/own-window-electron'))`.
 */
import { vi } from 'vitest';

type Listener = (...args: unknown[]) => void;

/** A session stand-in that keeps the handlers main installs. */
export class FakeSession {
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

/** A BrowserWindow stand-in: records options, listeners and the page loaded, and answers a script run in the page. */
export class FakeBrowserWindow {
  static created: FakeBrowserWindow[] = [];
  readonly listeners = new Map<string, Listener>();
  readonly contentListeners = new Map<string, Listener>();
  windowOpenHandler: (() => unknown) | undefined;
  url = '';
  contentProtection = false;
  destroyed = false;
  /** What a script main runs in the page answers (the PIN field's value); the scripts are kept to check them. */
  scriptResult: unknown = '';
  readonly scriptsRun: string[] = [];
  readonly webContents = {
    on: (name: string, listener: Listener) => this.contentListeners.set(name, listener),
    setWindowOpenHandler: (handler: () => unknown) => {
      this.windowOpenHandler = handler;
    },
    executeJavaScript: async (script: string) => {
      this.scriptsRun.push(script);
      return this.scriptResult;
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
  setContentProtection(enabled: boolean) {
    this.contentProtection = enabled;
  }
  async loadURL(url: string) {
    this.url = url;
  }
  isDestroyed() {
    return this.destroyed;
  }
  /** Closes as Electron does: the window is destroyed, then its 'closed' listener runs. */
  close = vi.fn(() => {
    this.destroyed = true;
    this.listeners.get('closed')?.();
  });
  /** The page sets its title (what the PIN page's script does on submit, cancel or Escape). */
  setPageTitle(title: string) {
    this.contentListeners.get('page-title-updated')!({ preventDefault: vi.fn() }, title);
  }
}

export const BrowserWindow = FakeBrowserWindow;

export const session = {
  fromPartition: (partition: string) => {
    const existing = FakeSession.byPartition.get(partition) ?? new FakeSession();
    FakeSession.byPartition.set(partition, existing);
    return existing;
  },
};

/** Forgets every window and session made so far: each test starts with none. */
export function resetOwnWindowElectron(): void {
  FakeBrowserWindow.created = [];
  FakeSession.byPartition.clear();
}
