/**
 * The page of main's token PIN prompt (pin-window.ts shows it): one hashed script, every value escaped, and what the
 * PIN unlocks restated. Kept apart from the window so it can be rendered and checked without Electron.
 */
import { createHash } from 'node:crypto';
import type { PinRequest } from './pkcs11-tokens';

/** The page sets its title to one of these to tell main what the person chose; no other channel exists. */
export const SUBMITTED_TITLE = 'qk-pin:submit';
export const CANCELLED_TITLE = 'qk-pin:cancel';

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

export const READ_AND_CLEAR = `(() => { const field = document.getElementById('pin'); const pin = field.value; field.value = ''; return pin; })()`;

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

/** The prompt's whole page; every value from the request is escaped. */
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
