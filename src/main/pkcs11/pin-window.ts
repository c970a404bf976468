/**
 * The app's PIN prompt for a PKCS#11 token: a small modal window main draws itself, beside the app window, from a
 * page of its own (not the renderer's, and with no preload). The app window can cause a prompt (by asking for a stamp)
 * but never sees it or the PIN: main reads the field once the person presses Unlock, clears it and closes the window.
 */
import { BrowserWindow } from 'electron';
import { ownWindowSession } from '../windows/own-window-session';
import { CANCELLED_TITLE, promptPage, READ_AND_CLEAR, SUBMITTED_TITLE } from './pin-page';
import type { AskPin } from './pkcs11-tokens';

/** The partition of the PIN prompt's own session, apart from the app window's. */
const PIN_PARTITION = 'qk-pin-prompt';

/** Asks for a token's PIN in main's own modal window over `parent()`; answers undefined when the person cancelled. */
export function askPinInWindow(parent: () => BrowserWindow | undefined): AskPin {
  return (request) =>
    new Promise((resolve) => {
      const owner = parent();
      const window = new BrowserWindow({
        width: 480,
        height: request.signing === undefined ? 260 : 400,
        resizable: false,
        minimizable: false,
        maximizable: false,
        ...(owner === undefined ? {} : { parent: owner, modal: true }),
        title: `PIN for token ${request.tokenLabel}`,
        show: false,
        webPreferences: {
          session: ownWindowSession(PIN_PARTITION),
          contextIsolation: true,
          sandbox: true,
          nodeIntegration: false,
          webSecurity: true,
          spellcheck: false,
          devTools: false,
        },
      });
      // Kept out of screenshots and screen sharing whatever the app window's setting: it is where a PIN is typed.
      window.setContentProtection(true);
      const contents = window.webContents;
      contents.on('will-navigate', (event) => event.preventDefault());
      contents.setWindowOpenHandler(() => ({ action: 'deny' }));
      let answered = false;
      const answer = (pin: string | undefined) => {
        if (answered) return;
        answered = true;
        resolve(pin);
        if (!window.isDestroyed()) window.close();
      };
      contents.on('page-title-updated', (event, title) => {
        event.preventDefault();
        if (title === CANCELLED_TITLE) answer(undefined);
        if (title !== SUBMITTED_TITLE) return;
        contents.executeJavaScript(READ_AND_CLEAR).then(
          (pin: unknown) => answer(typeof pin === 'string' ? pin : undefined),
          () => answer(undefined),
        );
      });
      window.on('closed', () => answer(undefined));
      window.once('ready-to-show', () => window.show());
      void window.loadURL(`data:text/html;charset=utf-8,${encodeURIComponent(promptPage(request))}`);
    });
}
