/**
 * Main's own page for a passkey ceremony (docs/architecture.md#passkeys-and-security-keys): a one-shot loopback HTTP
 * server, on 127.0.0.1 at a random port and an unguessable path, served as http://localhost so the page's origin can
 * use the relying-party id `localhost` (the app's page, file:// or another host, cannot). Its one script (the only
 * one the page's policy lets run) asks the authenticator (navigator.credentials.get or .create) and posts the answer
 * back to the same path; the first answer ends the ceremony and the server. The page states main's reading of what
 * is signed and the body's fingerprint; who shows the page (a window main owns, a test's browser) is given.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64UrlEncode } from '../../shared/crypto/encoding';
import { QkError, toQkError } from '../../shared/errors';
import { visibleText } from '../../shared/visible-text';
import { PASSKEY_RP_ID } from './passkey';

/** What the page's script asks the authenticator: an assertion for one credential, or a new credential. */
export type PasskeyCeremony =
  | { kind: 'get'; challenge: Uint8Array; credentialId: string }
  | { kind: 'create'; challenge: Uint8Array; user: { handle: Uint8Array; name: string } };

export interface PasskeyPage {
  /** The page's heading: "Approve with your security key". */
  heading: string;
  /** Main's reading of what the touch signs, shown line by line (escaped here). */
  reading: readonly string[];
  /** `sha256:` + hex of the exact body signed, when the ceremony signs a body. */
  bodyFingerprint?: string | undefined;
  ceremony: PasskeyCeremony;
}

/** A page shown by `OpenPasskeyPage`: main closes it once answered; `closed` settles when the person closed it. */
export interface ShownPasskeyPage {
  close(): void;
  closed: Promise<void>;
}

/** Shows main's page at `url` on a surface the app's page cannot reach (a window of main's; a test's browser). */
export type OpenPasskeyPage = (url: string) => Promise<ShownPasskeyPage>;

export const DEFAULT_PASSKEY_TIMEOUT_MS = 120_000;
/** An answer is four base64url members of a few hundred bytes each; anything far larger is not one. */
const ANSWER_BYTE_CAP = 64 * 1024;

const PAGE_SCRIPT = `
const request = JSON.parse(document.getElementById('ceremony').textContent);
const status = document.getElementById('status');
const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const cancel = document.getElementById('cancel');
// Once an answer is on its way, whatever it is, nothing is left to cancel.
const answer = (body) => { cancel.hidden = true; return fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }); };
const TRANSPORTS = { usb: 'AUTHENTICATOR_TRANSPORT_USB', nfc: 'AUTHENTICATOR_TRANSPORT_NFC', ble: 'AUTHENTICATOR_TRANSPORT_BLE', internal: 'AUTHENTICATOR_TRANSPORT_INTERNAL', hybrid: 'AUTHENTICATOR_TRANSPORT_HYBRID' };
async function ceremony() {
  if (request.kind === 'get') {
    const credential = await navigator.credentials.get({ publicKey: {
      rpId: request.rpId, challenge: bytes(request.challenge), timeout: request.timeoutMs, userVerification: 'preferred',
      allowCredentials: [{ type: 'public-key', id: bytes(request.credentialId) }],
    } });
    const response = credential.response;
    return { outcome: 'assertion', credentialId: text(credential.rawId), authenticatorData: text(response.authenticatorData),
      clientDataJson: text(response.clientDataJSON), signature: text(response.signature) };
  }
  const credential = await navigator.credentials.create({ publicKey: {
    rp: { id: request.rpId, name: 'QuorumKey' }, user: { id: bytes(request.userHandle), name: request.userName, displayName: request.userName },
    challenge: bytes(request.challenge), timeout: request.timeoutMs, pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
    authenticatorSelection: { residentKey: 'discouraged', userVerification: 'preferred' }, attestation: 'none',
  } });
  const response = credential.response;
  return { outcome: 'attestation', credentialId: text(credential.rawId), clientDataJson: text(response.clientDataJSON),
    attestationObject: text(response.attestationObject),
    transports: (response.getTransports ? response.getTransports() : []).map((name) => TRANSPORTS[name]).filter(Boolean) };
}
cancel.addEventListener('click', () => { void answer({ outcome: 'cancelled', reason: 'Cancel was pressed' }); status.textContent = 'Cancelled.'; });
ceremony().then(
  (body) => answer(body).then((reply) => { status.textContent = reply.ok ? 'Done: you can close this window.' : 'QuorumKey refused the answer.'; }),
  (error) => { status.textContent = 'No answer: ' + error.name; void answer({ outcome: 'cancelled', reason: error.name + ': ' + error.message }); },
);
`;
/** Only this script runs: the policy names its hash, so nothing inserted into the page could run. */
const PAGE_SCRIPT_HASH = createHash('sha256').update(PAGE_SCRIPT).digest('base64');
const PAGE_POLICY = [
  "default-src 'none'",
  `script-src 'sha256-${PAGE_SCRIPT_HASH}'`,
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The JSON the script reads, safe inside a <script type="application/json"> element (no `<` can close it). */
function ceremonyJson(ceremony: PasskeyCeremony, timeoutMs: number): string {
  const common = { kind: ceremony.kind, rpId: PASSKEY_RP_ID, challenge: base64UrlEncode(ceremony.challenge), timeoutMs };
  const request =
    ceremony.kind === 'get'
      ? { ...common, credentialId: ceremony.credentialId }
      : { ...common, userHandle: base64UrlEncode(ceremony.user.handle), userName: ceremony.user.name };
  return JSON.stringify(request).replace(/</g, '\\u003c');
}

/** The page's whole HTML (exported for its tests and screenshots); every value from a service or the page is escaped. */
export function passkeyPageHtml(page: PasskeyPage, timeoutMs = DEFAULT_PASSKEY_TIMEOUT_MS): string {
  const lines = page.reading.map((line) => `<li>${escapeHtml(visibleText(line))}</li>`).join('\n');
  const fingerprint =
    page.bodyFingerprint === undefined
      ? ''
      : `<p>Body fingerprint: <code id="body-fingerprint">${escapeHtml(visibleText(page.bodyFingerprint))}</code></p>
<p>It must match the fingerprint QuorumKey's confirmation just showed. If it does not, press Cancel or do not touch the key.</p>`;
  return `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}">
<title>${escapeHtml(page.heading)}</title>
<style>
:root { color-scheme: light dark; font: 14px system-ui, sans-serif; }
body { margin: 0; padding: 18px 20px; }
h1 { font-size: 16px; margin: 0 0 10px; }
ul { margin: 0 0 12px; padding-left: 18px; }
li, p { overflow-wrap: anywhere; }
p { margin: 0 0 8px; }
.signing { border-left: 3px solid #c80; padding-left: 10px; margin-bottom: 12px; }
code { font-size: 12px; }
#status { opacity: 0.8; }
.buttons { display: flex; justify-content: flex-end; margin-top: 14px; }
</style></head><body>
<h1>${escapeHtml(page.heading)}</h1>
<section class="signing"><ul id="reading">${lines}</ul>
${fingerprint}</section>
<p id="status">Touch your security key (or confirm the passkey prompt) to go ahead.</p>
<div class="buttons"><button type="button" id="cancel">Cancel</button></div>
<script type="application/json" id="ceremony">${ceremonyJson(page.ceremony, timeoutMs)}</script>
<script>${PAGE_SCRIPT}</script>
</body></html>`;
}

export interface RunPasskeyPageOptions<Answer> {
  page: PasskeyPage;
  openPage: OpenPasskeyPage;
  /** Reads the page's posted answer (`outcome` other than "cancelled"); throws REQUEST_INVALID naming what is wrong. */
  readAnswer: (posted: Record<string, unknown>) => Answer;
  timeoutMs?: number;
}

/**
 * Serves `page` once at a fresh loopback URL, has `openPage` show it, and answers what its script posts back, read by
 * `readAnswer`. PASSKEY_CANCELLED when the person cancels, the authenticator refuses, the page is closed or nothing
 * comes within `timeoutMs`; REQUEST_INVALID when what came is not an answer. Either way the server and page close.
 */
export async function runPasskeyPage<Answer>({
  page,
  openPage,
  readAnswer,
  timeoutMs = DEFAULT_PASSKEY_TIMEOUT_MS,
}: RunPasskeyPageOptions<Answer>): Promise<Answer> {
  const path = `/passkey/${base64UrlEncode(randomBytes(32))}`;
  const html = passkeyPageHtml(page, timeoutMs);
  let settle: { resolve: (answer: Answer) => void; reject: (error: QkError) => void } | undefined;
  const outcome = new Promise<Answer>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Settled (a time-out, say) while the page is still opening: awaited below, so not an unhandled rejection.
  outcome.catch(() => undefined);
  let served = false;
  let answered = false;
  let host = '';
  const server = createServer((request, response) => {
    // Another name for this server (a rebinding DNS name) is not the page's origin: refuse it.
    if (request.headers.host !== host || request.url !== path) return reply(response, 404, 'not found');
    if (request.method === 'GET') {
      if (served) return reply(response, 410, 'this page was already shown once');
      served = true;
      response.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': PAGE_POLICY,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
      });
      response.end(html);
      return;
    }
    if (request.method !== 'POST') return reply(response, 405, 'only GET and POST');
    if (answered) return reply(response, 410, 'this ceremony was already answered');
    answered = true;
    void readPosted(request)
      .then((posted) => {
        if (posted.outcome === 'cancelled') {
          reply(response, 200, 'cancelled');
          const reason = typeof posted.reason === 'string' ? visibleText(posted.reason.slice(0, 200)) : 'no reason given';
          return settle?.reject(new QkError('PASSKEY_CANCELLED', `the security key gave no answer (${reason}); nothing was signed`));
        }
        const answer = readAnswer(posted);
        reply(response, 200, 'received');
        settle?.resolve(answer);
      })
      .catch((error: unknown) => {
        const refused = toQkError(error);
        reply(response, 400, refused.message);
        settle?.reject(refused);
      });
  });
  await new Promise<void>((listening, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => listening());
  });
  host = `localhost:${(server.address() as AddressInfo).port}`;
  const timer = setTimeout(
    () => settle?.reject(new QkError('PASSKEY_CANCELLED', `no security key answered within ${Math.round(timeoutMs / 1000)} s; nothing was signed`)),
    timeoutMs,
  );
  let shown: ShownPasskeyPage | undefined;
  try {
    shown = await openPage(`http://${host}${path}`);
    void shown.closed.then(() =>
      settle?.reject(new QkError('PASSKEY_CANCELLED', 'the security key window was closed before it answered; nothing was signed')),
    );
    return await outcome;
  } finally {
    clearTimeout(timer);
    shown?.close();
    // New connections are refused from now on; the answer's reply still goes out on its own.
    server.close();
    server.closeIdleConnections();
  }
}

function reply(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(text);
}

async function readPosted(request: IncomingMessage): Promise<Record<string, unknown>> {
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    throw new QkError('REQUEST_INVALID', 'the passkey page posted something other than JSON; nothing was signed');
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of request) {
    received += (chunk as Buffer).length;
    if (received > ANSWER_BYTE_CAP)
      throw new QkError('REQUEST_INVALID', `the passkey page posted more than ${ANSWER_BYTE_CAP} bytes; nothing was signed`);
    chunks.push(chunk as Buffer);
  }
  let posted: unknown;
  try {
    posted = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new QkError('REQUEST_INVALID', 'the passkey page posted text that is not JSON; nothing was signed');
  }
  if (typeof posted !== 'object' || posted === null || Array.isArray(posted)) {
    throw new QkError('REQUEST_INVALID', 'the passkey page posted JSON that is not an object; nothing was signed');
  }
  return posted as Record<string, unknown>;
}
