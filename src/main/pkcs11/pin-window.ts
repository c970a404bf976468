/**
 * The app's PIN prompt for a PKCS#11 token: a small modal window main draws itself, beside the app window, from a
 * page of its own (not the renderer's, and with no preload). The app window can cause a prompt (by asking for a stamp)
 * but never sees it or the PIN: main reads the field once the person presses Unlock, clears it and closes the window.
 */
import { createHash } from 'node:crypto';
import { BrowserWindow, session as electronSession, type Session } from 'electron';
import type { AskPin, PinRequest } from './pkcs11-tokens';

/** Its own in-memory session: nothing of the app window's (storage, cache) is shared with it. */
const PIN_PARTITION = 'qk-pin-prompt';
/** The page sets its title to one of these to tell main what the person chose; no other channel exists. */
const SUBMITTED_TITLE = 'qk-pin:submit';
const CANCELLED_TITLE = 'qk-pin:cancel';

const PAGE_SCRIPT = `
const form = document.getElementById('pin-form');
form.addEventListener('submit', (event) => { event.preventDefault(); document.title = '${SUBMITTED_TITLE}'; });
document.getElementById('cancel').addEventListener('click', () => { document.title = '${CANCELLED_TITLE}'; });
document.addEventListener('keydown', (event) => { if (event.key === 'Escape') document.title = '${CANCELLED_TITLE}'; });
document.getElementById('pin').focus();
`;
/** Only this script runs: the policy names its hash, so nothing inserted into the page could run. */
const PAGE_SCRIPT_HASH = createHash('sha256').update(PAGE_SCRIPT).digest('base64');
const PAGE_POLICY = `default-src 'none'; script-src 'sha256-${PAGE_SCRIPT_HASH}'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'`;

const READ_AND_CLEAR = `(() => { const field = document.getElementById('pin'); const pin = field.value; field.value = ''; return pin; })()`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** What the PIN unlocks: the signature it is asked for (the line and fingerprint main's confirmation showed), if any. */
function signingSection(signing: PinRequest['signing']): string {
  if (signing === undefined) return `<p>It lists or makes keys on the token; it signs nothing now.</p>`;
  return `<section class="signing"><p>It will sign: <strong id="reading">${escapeHtml(signing.reading)}</strong></p>
<p>Body fingerprint: <code id="body-fingerprint">${escapeHtml(signing.bodyFingerprint)}</code></p>
<p>It must match the fingerprint QuorumKey's confirmation just showed. If it does not, cancel.</p></section>`;
}

/** The prompt's whole page (exported for its tests and screenshots); every value from the request is escaped. */
export function promptPage({ tokenLabel, module, signing }: PinRequest): string {
  return `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}">
<title>PIN for token ${escapeHtml(tokenLabel)}</title>
<style>
:root { color-scheme: light dark; font: 14px system-ui, sans-serif; }
body { margin: 0; padding: 18px 20px; }
h1 { font-size: 16px; margin: 0 0 6px; }
p { margin: 0 0 12px; opacity: 0.8; overflow-wrap: anywhere; }
input { width: 100%; box-sizing: border-box; padding: 6px 8px; font: inherit; }
.signing { border-left: 3px solid #c80; padding-left: 10px; margin-bottom: 12px; }
.signing p { margin: 0 0 6px; }
code { font-size: 12px; overflow-wrap: anywhere; }
.buttons { display: flex; justify-content: flex-end; gap: 8px; margin-top: 14px; }
</style></head><body>
<form id="pin-form">
<h1>Unlock token “${escapeHtml(tokenLabel)}”</h1>
<p>QuorumKey needs this token's user PIN to use a key on it. The PIN goes to the token only; the token stays
unlocked until QuorumKey locks or quits. Module: ${escapeHtml(module)}</p>
${signingSection(signing)}
<label>User PIN <input id="pin" type="password" autocomplete="off" spellcheck="false" required maxlength="256"></label>
<div class="buttons"><button type="button" id="cancel">Cancel</button><button type="submit">Unlock token</button></div>
</form>
<script>${PAGE_SCRIPT}</script>
</body></html>`;
}

function hardenedSession(): Session {
  const session = electronSession.fromPartition(PIN_PARTITION);
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  return session;
}

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
          session: hardenedSession(),
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
