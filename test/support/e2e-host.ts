/**
 * The end-to-end host: the real main-process services and IPC dispatch, with the built renderer (out/renderer) served
 * over loopback http, and a way to give a Playwright page exactly the preload's `window.quorumkey`. Used by the
 * Playwright tests and by `npm run preview:browser`, on machines where Electron's binary cannot run.
 *
 * It builds nothing: run `electron-vite build` first. The Sandbox runs from that build too (out/main/service.js, the
 * entry the packaged app starts), so each test's service starts without compiling the service's source.
 */
import { randomUUID } from 'node:crypto';
import { readFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import * as esbuild from 'esbuild';
import type { Page } from '@playwright/test';
import { createDispatch, type Dispatch, type IpcHandlers } from '../../src/main/ipc/register';
import type { ConfirmationRequest } from '../../src/main/confirmation/confirmation';
import type { PinRequest } from '../../src/main/pkcs11/pkcs11-tokens';
import type { OpenPasskeyPage } from '../../src/main/passkeys/passkey-page';
import type { SecretStore } from '../../src/main/keychain/secret-store';
import { createRendererUrlCheck } from '../../src/main/ipc/sender';
import { nodeServiceProcess } from '../../src/main/sandbox/node-process';
import { startInOwnProcess } from '../../src/main/sandbox/service-process';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import { QkError } from '../../src/shared/errors';
import { MemoryClipboard } from './memory-clipboard';
import { NotificationRecorder } from './notification-recorder';
import { TrafficRecorder } from './traffic-recorder';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const DEFAULT_RENDERER_DIR = join(REPO_ROOT, 'out/renderer');
/** The service entry electron-vite builds for the app's utility process; it runs in plain Node too. */
const BUILT_SERVICE_ENTRY = join(REPO_ROOT, 'out/main/service.js');

export interface E2eHostOptions {
  /** The built renderer; defaults to out/renderer. */
  rendererDir?: string;
  /** OS keychain service name; a fresh one per host by default, so hosts never see each other's keys. */
  keychainServiceName?: string;
  /** Where keys are kept instead of the OS keychain (a bench's memory store, where no Secret Service runs). */
  secretStore?: SecretStore;
}

export interface E2eHost {
  /** The renderer's URL (http://127.0.0.1:PORT/). */
  readonly url: string;
  readonly services: MainServices;
  /** Main's handler table, for setting up and checking state without going through the page. */
  readonly handlers: IpcHandlers;
  readonly dispatch: Dispatch;
  /** Every confirmation main showed on its surface (stamps and profile changes), in order. */
  readonly confirmations: readonly ConfirmationRequest[];
  /**
   * How the host, playing the person at main's confirmation, answers from now on: `continue` (the default) or
   * `cancel` at once, or `wait`: each confirmation waits until the test reads it and answers (nextConfirmation).
   */
  answerConfirmations(mode: 'continue' | 'cancel' | 'wait'): void;
  /** Every token PIN prompt main showed on its surface (which token), in order. */
  readonly pinPrompts: readonly PinRequest[];
  /** What the host, playing the person at main's PIN prompt, types from now on; undefined (the default) cancels. */
  answerPinPrompts(pin: string | undefined): void;
  /**
   * Where main's passkey pages are shown from now on (the app's window of its own): a test's second page with a
   * virtual authenticator (test/support/virtual-authenticator.ts). Until then a passkey ceremony is cancelled.
   */
  showPasskeyPages(open: OpenPasskeyPage): void;
  /** The next confirmation main shows while answering `wait`, with the person's two buttons. */
  nextConfirmation(): Promise<ShownConfirmation>;
  /** The clipboard main copies secrets to (the system clipboard in the app). */
  readonly clipboard: MemoryClipboard;
  /** The inbox's desktop notifications and badge (the OS's in the app); a click here is the person's. */
  readonly notifications: NotificationRecorder;
  /** The page's IPC calls and main's service requests, each request tied to the call it was made for. */
  readonly traffic: TrafficRecorder;
  /** What main last told the window about screen capture (setContentProtection in the app): true = kept out. */
  windowCaptureProtected(): boolean;
  /** Moves the clock of main and of the sandbox service it starts forward (the page's clock is Playwright's). */
  advanceClock(ms: number): void;
  /** Gives `page` the preload's API; call before the page's first navigation. */
  installBridge(page: Page): Promise<void>;
  /** Stops serving, deletes every key this host stored in the keychain, removes its data dir. */
  close(): Promise<void>;
}

/** A confirmation on main's surface, waiting for the person. */
export interface ShownConfirmation {
  readonly request: ConfirmationRequest;
  /** The dialog's title, question and detail as one text, as a person reads it. */
  readonly text: string;
  /** The go-ahead button's words ("Continue", or the look-alike question's "I checked: this is not …"). */
  readonly goAhead: string;
  /** `true` clicks the go-ahead button, `false` Cancel (the dialog's default). */
  answer(goAhead: boolean): void;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export async function startE2eHost({
  rendererDir = DEFAULT_RENDERER_DIR,
  keychainServiceName = `quorumkey-e2e-${randomUUID()}`,
  secretStore,
}: E2eHostOptions = {}): Promise<E2eHost> {
  const indexPath = join(rendererDir, 'index.html');
  const indexHtml = await readFile(indexPath, 'utf8').catch((error: unknown) => {
    throw new QkError('FILE_ERROR', `cannot read the built renderer at ${indexPath} (${String(error)}); run \`npx electron-vite build\` first`);
  });
  const contentSecurityPolicy = cspOf(indexHtml, indexPath);
  await stat(BUILT_SERVICE_ENTRY).catch((error: unknown) => {
    throw new QkError(
      'FILE_ERROR',
      `cannot find the built service at ${BUILT_SERVICE_ENTRY} (${String(error)}); run \`npx electron-vite build\` first`,
    );
  });
  const bridgeScript = await bridgeBundle();

  const dataDir = await mkdtemp(join(tmpdir(), 'quorumkey-e2e-'));
  // The app asks in a native dialog, which a browser page cannot show or click: the host stands in for the person,
  // records each request, and answers it as the test says (at once, or once the test has read it).
  const confirmations: ConfirmationRequest[] = [];
  // The app asks a token's PIN in a window main draws; here the host types it, as the test says.
  const pinPrompts: PinRequest[] = [];
  let pinAnswer: string | undefined;
  let openPasskeyPage: OpenPasskeyPage = async () => {
    throw new QkError('PASSKEY_CANCELLED', 'this e2e host shows no passkey page: the test has not called showPasskeyPages');
  };
  let answering: 'continue' | 'cancel' | 'wait' = 'continue';
  const shown: ShownConfirmation[] = [];
  const watchers: ((confirmation: ShownConfirmation) => void)[] = [];
  const show = (request: ConfirmationRequest): Promise<boolean> => {
    confirmations.push(request);
    if (answering !== 'wait') return Promise.resolve(answering === 'continue');
    return new Promise((answer) => {
      const confirmation = {
        request,
        text: [request.title, request.message, request.detail].join('\n'),
        goAhead: request.goAhead ?? 'Continue',
        answer,
      };
      const watcher = watchers.shift();
      if (watcher === undefined) shown.push(confirmation);
      else watcher(confirmation);
    });
  };
  // The system clipboard main writes secrets to; a browser page's navigator.clipboard is another one.
  const clipboard = new MemoryClipboard();
  const notifications = new NotificationRecorder();
  const traffic = new TrafficRecorder();
  let clockOffsetMs = 0;
  // The Sandbox in its own process, as in the app (a Node child process here: there is no Electron).
  const services = createMainServices({
    dataDir,
    now: () => Date.now() + clockOffsetMs,
    keychainServiceName,
    ...(secretStore === undefined ? {} : { secretStore }),
    clipboard,
    startSandboxService: startInOwnProcess(nodeServiceProcess(BUILT_SERVICE_ENTRY)),
    notifier: notifications,
    askPkcs11Pin: async (request) => {
      pinPrompts.push(request);
      return pinAnswer;
    },
    openPasskeyPage: (url) => openPasskeyPage(url),
    fetch: traffic.fetch,
  });
  // The window the app would protect from screen capture: here, what it was last told.
  let windowCaptureProtected = services.captureProtection.protected;
  services.captureProtection.attach((protect) => {
    windowCaptureProtected = protect;
  });
  const handlers = createMainHandlers(services, {
    app: { version: 'e2e', platform: process.platform, packaged: false },
    confirm: show,
  });

  const server = createServer((request, response) => {
    void serveFile(rendererDir, request.url ?? '/').then(
      ({ status, type, body }) => {
        response.writeHead(status, {
          'Content-Type': type,
          'Content-Security-Policy': contentSecurityPolicy,
          'X-Content-Type-Options': 'nosniff',
          'Cache-Control': 'no-store',
        });
        response.end(body);
      },
      (error: unknown) => {
        response.writeHead(500, { 'Content-Type': 'text/plain' });
        response.end(String(error));
      },
    );
  });
  const origin = await listen(server);

  // Only in this mode is the served origin the app's own renderer; the app itself trusts just its file:// index.
  const dispatch = createDispatch({
    handlers,
    isTrustedSender: createRendererUrlCheck({ rendererIndexPath: indexPath, devServerUrl: origin }),
  });

  return {
    url: `${origin}/`,
    services,
    handlers,
    dispatch,
    confirmations,
    pinPrompts,
    answerPinPrompts(pin) {
      pinAnswer = pin;
    },
    showPasskeyPages(open) {
      openPasskeyPage = open;
    },
    answerConfirmations(mode) {
      answering = mode;
    },
    nextConfirmation() {
      const waiting = shown.shift();
      return waiting === undefined ? new Promise((take) => watchers.push(take)) : Promise.resolve(waiting);
    },
    clipboard,
    notifications,
    traffic,
    windowCaptureProtected: () => windowCaptureProtected,
    advanceClock(ms) {
      clockOffsetMs += ms;
      services.sandbox.syncClock();
    },
    async installBridge(page) {
      await page.exposeBinding('__qkInvoke', ({ frame }, channel: unknown, input: unknown) =>
        // Like ipcMain's handlers: only a top-level frame has a sender URL; subframes are refused by dispatch.
        traffic.call(String(channel), input, () => dispatch(String(channel), input, frame.parentFrame() === null ? frame.url() : undefined)),
      );
      await page.addInitScript({ content: bridgeScript });
      // Like webContents.send: each event goes to the page's top frame, to whatever the bridge's onEvent listeners are.
      const stopEvents = services.events.subscribe((event) => {
        void traffic.delivering(
          page
            .evaluate((appEvent) => (window as unknown as { __qkEvent?: (event: unknown) => void }).__qkEvent?.(appEvent), event)
            // A page that is navigating or closed misses the event, as a reloading window would.
            .catch(() => undefined),
        );
      });
      page.once('close', stopEvents);
      services.activityFeeds.start();
      services.inbox.start();
    },
    async close() {
      services.activityFeeds.stop();
      // The browser's context outlives this fixture, with its connections to the renderer's server: one whose load the
      // test cut short (a navigation away) stays active, and close() alone waited for it until the test timed out.
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      // Stop the embedded sandbox first: it holds the 'sandbox' key the next step deletes.
      await services.close();
      await forgetKeys(services);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The policy from index.html's meta tag, so the header and the page always agree. */
function cspOf(html: string, indexPath: string): string {
  const match = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html);
  if (!match?.[1]) throw new QkError('FILE_ERROR', `${indexPath} has no Content-Security-Policy meta tag; the renderer must carry one`);
  return match[1];
}

let bridgeBundled: Promise<string> | undefined;

/** The bridge is the same for every host, so a process (a Playwright worker) bundles it once. */
function bridgeBundle(): Promise<string> {
  bridgeBundled ??= bundleBridge();
  return bridgeBundled;
}

/** The page-side half of the preload, as one IIFE: the same builder and error shaping, over a Playwright binding. */
async function bundleBridge(): Promise<string> {
  const result = await esbuild.build({
    stdin: {
      contents: `
        import { createBridgeApi, withPlainErrors } from './src/shared/ipc/bridge';
        // The host delivers main's events by calling __qkEvent, as ipcRenderer.on would in the preload.
        const listeners = new Set();
        Object.defineProperty(window, '__qkEvent', { value: (event) => listeners.forEach((listener) => listener(event)) });
        const subscribe = (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        };
        Object.defineProperty(window, 'quorumkey', {
          value: Object.freeze(withPlainErrors(createBridgeApi((channel, input) => window.__qkInvoke(channel, input), subscribe))),
          enumerable: true,
        });
      `,
      resolveDir: REPO_ROOT,
      loader: 'ts',
      sourcefile: 'e2e-preload.ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new QkError('INTERNAL', 'esbuild produced no bundle for the e2e bridge');
  return output.text;
}

async function serveFile(root: string, requestUrl: string): Promise<{ status: number; type: string; body: Buffer | string }> {
  const pathname = decodeURIComponent(new URL(requestUrl, 'http://host').pathname);
  const relative = pathname === '/' ? 'index.html' : pathname.slice(1);
  const file = resolve(root, relative);
  if (!file.startsWith(resolve(root) + sep)) return { status: 403, type: 'text/plain', body: 'outside the renderer' };
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return { status: 404, type: 'text/plain', body: `not found: ${pathname}` };
  return { status: 200, type: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', body: await readFile(file) };
}

function listen(server: Server): Promise<string> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      done(`http://127.0.0.1:${port}`);
    });
  });
}

/** Keys live in the OS keychain, outside the data dir: delete them so a host leaves nothing behind. */
async function forgetKeys({ keychain, profiles }: MainServices): Promise<void> {
  for (const profile of await profiles.list()) await profiles.remove(profile.id);
  for (const key of await keychain.listApiKeys()) await keychain.deleteApiKey(key.name);
  for (const key of await keychain.listEncryptionKeys()) await keychain.deleteEncryptionKey(key.name);
  for (const { activityId } of await keychain.listOneTimeKeys()) await keychain.releaseOneTimeKey(activityId);
}
