/**
 * The one application window and the session rules around it: sandboxed, isolated renderer; strict CSP on every
 * response; no navigation, no popups, no webviews, no permissions; devtools only in development; out of screen
 * capture unless the operator's setting allows it and no secret is on screen.
 */
import { BrowserWindow, type Session } from 'electron';
import type { CaptureProtection } from './capture/capture-protection';

/**
 * The renderer's Content-Security-Policy. src/renderer/index.html carries the same policy in its meta tag (a test
 * keeps the two identical); main also sends it as a response header so it holds for anything served over http(s).
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'none'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const WINDOW_SIZE = { width: 1280, height: 800 } as const;

export interface MainWindowOptions {
  preloadPath: string;
  rendererIndexPath: string;
  /** electron-vite's dev server; only honoured when the app is not packaged. */
  devServerUrl?: string | undefined;
  isPackaged: boolean;
}

/** Sets the CSP header on every response and refuses every permission request and check. */
export function hardenSession(session: Session): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = Object.fromEntries(
      Object.entries(details.responseHeaders ?? {}).filter(([name]) => name.toLowerCase() !== 'content-security-policy'),
    );
    callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

export function createMainWindow({ preloadPath, rendererIndexPath, devServerUrl, isPackaged }: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    ...WINDOW_SIZE,
    show: false,
    title: 'QuorumKey',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      // Typed private keys must not reach the OS spellchecker's dictionaries.
      spellcheck: false,
      devTools: !isPackaged,
    },
  });
  // Out of capture from the first frame; followCaptureProtection then applies the setting.
  window.setContentProtection(true);
  const contents = window.webContents;
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.once('ready-to-show', () => window.show());

  if (!isPackaged && devServerUrl !== undefined) void window.loadURL(devServerUrl);
  else void window.loadFile(rendererIndexPath);
  return window;
}

/** Keeps the window in or out of screen capture as `protection` decides, from now until the window is closed. */
export function followCaptureProtection(window: BrowserWindow, protection: Pick<CaptureProtection, 'attach' | 'setSecretOnScreen'>): void {
  const detach = protection.attach((protect) => window.setContentProtection(protect));
  // A page that (re)loaded shows no secret: one that was on screen went with the old page, which cannot say so.
  window.webContents.on('did-finish-load', () => protection.setSecretOnScreen(false));
  window.once('closed', detach);
}
