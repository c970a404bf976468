/**
 * The app's surface for a passkey ceremony: a small window main opens over the app window on main's own loopback page
 * (passkey-page.ts), with no preload and a session of its own, so nothing of the app's page (its storage, its bridge)
 * reaches it and the app's page cannot reach into it. The page itself asks the authenticator and answers main.
 */
import { BrowserWindow } from 'electron';
import { QkError } from '../../shared/errors';
import { ownWindowSession } from '../windows/own-window-session';
import type { OpenPasskeyPage } from './passkey-page';

/** The partition of the passkey window's own session, apart from the app window's. */
const PASSKEY_PARTITION = 'qk-passkey';

/** Opens main's passkey page in a modal window over `parent()`; only main's own loopback pages are opened. */
export function openPasskeyWindow(parent: () => BrowserWindow | undefined): OpenPasskeyPage {
  return async (url) => {
    if (!/^http:\/\/localhost:\d+\/passkey\/[A-Za-z0-9_-]+$/.test(url)) {
      throw new QkError('INTERNAL', `the passkey window opens only main's loopback passkey page, not ${JSON.stringify(url)}`);
    }
    const owner = parent();
    const window = new BrowserWindow({
      width: 520,
      height: 400,
      resizable: false,
      minimizable: false,
      maximizable: false,
      ...(owner === undefined ? {} : { parent: owner, modal: true }),
      title: 'QuorumKey: security key',
      show: false,
      webPreferences: {
        session: ownWindowSession(PASSKEY_PARTITION),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        spellcheck: false,
        devTools: false,
      },
    });
    const contents = window.webContents;
    // The page stays where main put it: no navigation, no new windows.
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    const closed = new Promise<void>((done) => window.on('closed', () => done()));
    window.once('ready-to-show', () => window.show());
    // A page that fails to load answers nothing: the ceremony's time-out or the person closing the window ends it.
    void window.loadURL(url).catch(() => undefined);
    return {
      close: () => {
        if (!window.isDestroyed()) window.close();
      },
      closed,
    };
  };
}
