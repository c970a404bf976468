import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';

/** A BrowserWindow stand-in that records its options, listeners and loads. */
class FakeBrowserWindow {
  static created: FakeBrowserWindow[] = [];
  readonly listeners = new Map<string, (...args: unknown[]) => void>();
  readonly contentListeners = new Map<string, (...args: unknown[]) => void>();
  windowOpenHandler: ((details: unknown) => unknown) | undefined;
  loaded: { url?: string; file?: string } = {};
  contentProtection: boolean | undefined;
  readonly webContents = {
    on: (name: string, listener: (...args: unknown[]) => void) => this.contentListeners.set(name, listener),
    setWindowOpenHandler: (handler: (details: unknown) => unknown) => {
      this.windowOpenHandler = handler;
    },
  };

  constructor(readonly options: Record<string, unknown> & { webPreferences: Record<string, unknown> }) {
    FakeBrowserWindow.created.push(this);
  }
  once(name: string, listener: () => void) {
    this.listeners.set(name, listener);
  }
  show = vi.fn();
  async loadURL(url: string) {
    this.loaded = { url };
  }
  async loadFile(file: string) {
    this.loaded = { file };
  }
  setContentProtection(enabled: boolean) {
    this.contentProtection = enabled;
  }
}

vi.mock('electron', () => ({ BrowserWindow: FakeBrowserWindow }));

const { CONTENT_SECURITY_POLICY, WINDOW_SIZE, createMainWindow, followCaptureProtection, hardenSession } = await import('../../src/main/window');

const options = { preloadPath: '/app/out/preload/index.cjs', rendererIndexPath: '/app/out/renderer/index.html' };

beforeEach(() => {
  FakeBrowserWindow.created = [];
});

describe('createMainWindow', () => {
  it('creates a 1280×800 isolated, sandboxed window with the preload and no node', () => {
    const window = createMainWindow({ ...options, isPackaged: true }) as unknown as FakeBrowserWindow;
    expect(window.options).toMatchObject({ width: 1280, height: 800 });
    expect(WINDOW_SIZE).toEqual({ width: 1280, height: 800 });
    expect(window.options.webPreferences).toMatchObject({
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: false,
    });
    expect(window.loaded).toEqual({ file: options.rendererIndexPath });
  });

  it('allows devtools and the dev server only when not packaged', () => {
    const dev = createMainWindow({ ...options, isPackaged: false, devServerUrl: 'http://localhost:5173' }) as unknown as FakeBrowserWindow;
    expect(dev.options.webPreferences.devTools).toBe(true);
    expect(dev.loaded).toEqual({ url: 'http://localhost:5173' });
    const packaged = createMainWindow({ ...options, isPackaged: true, devServerUrl: 'http://localhost:5173' }) as unknown as FakeBrowserWindow;
    expect(packaged.loaded).toEqual({ file: options.rendererIndexPath });
  });

  it('prevents navigation, redirects and webviews, and denies window.open', () => {
    const window = createMainWindow({ ...options, isPackaged: true }) as unknown as FakeBrowserWindow;
    for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const event = { preventDefault: vi.fn() };
      window.contentListeners.get(name)!(event, 'https://evil.example/');
      expect(event.preventDefault, name).toHaveBeenCalledOnce();
    }
    expect(window.windowOpenHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
  });

  it('is out of screen capture from the start, before anything loads', () => {
    const window = createMainWindow({ ...options, isPackaged: true }) as unknown as FakeBrowserWindow;
    expect(window.contentProtection).toBe(true);
  });

  it('shows the window once it is ready', () => {
    const window = createMainWindow({ ...options, isPackaged: true }) as unknown as FakeBrowserWindow;
    expect(window.show).not.toHaveBeenCalled();
    window.listeners.get('ready-to-show')!();
    expect(window.show).toHaveBeenCalledOnce();
  });
});

describe('hardenSession', () => {
  function fakeSession() {
    const session = {
      headersListener: undefined as undefined | ((details: unknown, callback: (response: unknown) => void) => void),
      requestHandler: undefined as undefined | ((...args: unknown[]) => void),
      checkHandler: undefined as undefined | ((...args: unknown[]) => boolean),
      webRequest: {
        onHeadersReceived(listener: (details: unknown, callback: (response: unknown) => void) => void) {
          session.headersListener = listener;
        },
      },
      setPermissionRequestHandler(handler: (...args: unknown[]) => void) {
        session.requestHandler = handler;
      },
      setPermissionCheckHandler(handler: (...args: unknown[]) => boolean) {
        session.checkHandler = handler;
      },
    };
    hardenSession(session as never);
    return session;
  }

  it('replaces any CSP header on responses with the strict policy', () => {
    const session = fakeSession();
    const callback = vi.fn();
    session.headersListener!({ responseHeaders: { 'content-security-policy': ['default-src *'], 'Content-Type': ['text/html'] } }, callback);
    expect(callback).toHaveBeenCalledWith({
      responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
    session.headersListener!({}, callback);
    expect(callback).toHaveBeenLastCalledWith({ responseHeaders: { 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });

  it('denies every permission request and check', () => {
    const session = fakeSession();
    for (const permission of ['media', 'geolocation', 'clipboard-read', 'notifications', 'openExternal']) {
      const callback = vi.fn();
      session.requestHandler!({}, permission, callback, {});
      expect(callback).toHaveBeenCalledWith(false);
      expect(session.checkHandler!(null, permission, 'file://', {})).toBe(false);
    }
  });

  it('uses the same policy as the renderer index.html meta tag', () => {
    const html = readFileSync(new URL('../../src/renderer/index.html', import.meta.url), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html);
    expect(meta?.[1]).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
  });
});

describe('followCaptureProtection', () => {
  it('applies the decision now and on every change, and stops when the window closes', () => {
    const window = new FakeBrowserWindow({ webPreferences: {} });
    let apply: ((protect: boolean) => void) | undefined;
    const detach = vi.fn();
    followCaptureProtection(window as never, {
      attach: (given) => {
        apply = given;
        given(false);
        return detach;
      },
      setSecretOnScreen: vi.fn(),
    });
    expect(window.contentProtection).toBe(false);
    apply!(true);
    expect(window.contentProtection).toBe(true);
    expect(detach).not.toHaveBeenCalled();
    window.listeners.get('closed')!();
    expect(detach).toHaveBeenCalledOnce();
  });

  it('counts no secret on screen once the page has (re)loaded', () => {
    const window = new FakeBrowserWindow({ webPreferences: {} });
    const setSecretOnScreen = vi.fn();
    followCaptureProtection(window as never, { attach: () => () => undefined, setSecretOnScreen });
    expect(setSecretOnScreen).not.toHaveBeenCalled();
    window.contentListeners.get('did-finish-load')!();
    expect(setSecretOnScreen).toHaveBeenCalledExactlyOnceWith(false);
  });
});
