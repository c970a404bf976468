/**
 * The Electron shell: app lifecycle only. Services are built by the composition root, exposed through the
 * sender-checked IPC handlers, and shown in the one hardened window.
 */
import { join } from 'node:path';
import {
  app,
  dialog,
  ipcMain,
  powerMonitor,
  session,
  type BrowserWindow,
  type MessageBoxOptions,
  type OpenDialogOptions,
  type SaveDialogOptions,
} from 'electron';
import { toQkError } from '../shared/errors';
import { APP_EVENT_CHANNEL } from '../shared/ipc/events';
import { electronClipboard } from './clipboard/electron-clipboard';
import { electronNotifier } from './inbox/electron-notifier';
import { registerIpcHandlers } from './ipc/register';
import { createRendererUrlCheck } from './ipc/sender';
import { watchIdle } from './lock/idle-lock';
import { electronTouchId } from './lock/touch-id';
import type { ConfirmationRequest } from './confirmation/confirmation';
import { startInOwnProcess } from './sandbox/service-process';
import { askPinInWindow } from './pkcs11/pin-window';
import { openPasskeyWindow } from './passkeys/passkey-window';
import { utilityServiceProcess } from './sandbox/utility-process';
import { createMainHandlers, createMainServices, type MainServices } from './services';
import type { StateBundleFiles } from './simulation/simulation.ipc';
import { createMainWindow, followCaptureProtection, hardenSession } from './window';

const rendererIndexPath = join(import.meta.dirname, '../renderer/index.html');
const preloadPath = join(import.meta.dirname, '../preload/index.cjs');
/** The service entry (src/service/cli.ts), built beside main; the Sandbox runs it in a utility process. */
const serviceEntryPath = join(import.meta.dirname, 'service.js');

let mainWindow: BrowserWindow | undefined;
let services: MainServices | undefined;

/** Button order of the confirmation dialog: Cancel (the default, and what Escape answers), then the go-ahead. */
const CANCEL_BUTTON = 0;
const GO_AHEAD_BUTTON = 1;

/**
 * A native dialog drawn by main, modal to the app window: the renderer can ask for it but can neither draw it nor
 * answer it.
 */
async function confirmInDialog({ title, message, detail, goAhead = 'Continue' }: ConfirmationRequest): Promise<boolean> {
  const options: MessageBoxOptions = {
    type: 'warning',
    title,
    message,
    detail,
    buttons: ['Cancel', goAhead],
    defaultId: CANCEL_BUTTON,
    cancelId: CANCEL_BUTTON,
    noLink: true,
  };
  const { response } = mainWindow === undefined ? await dialog.showMessageBox(options) : await dialog.showMessageBox(mainWindow, options);
  return response === GO_AHEAD_BUTTON;
}

const STATE_BUNDLE_FILTERS = [{ name: 'State bundle', extensions: ['json'] }];

/** State bundles are saved and opened where the operator picks in main's dialogs, modal to the app window. */
const stateBundleFiles: StateBundleFiles = {
  saveAs: async (suggestedName) => {
    const options: SaveDialogOptions = { title: 'Save state bundle', defaultPath: suggestedName, filters: STATE_BUNDLE_FILTERS };
    const { canceled, filePath } = mainWindow === undefined ? await dialog.showSaveDialog(options) : await dialog.showSaveDialog(mainWindow, options);
    return canceled || filePath === '' ? undefined : filePath;
  },
  open: async () => {
    const options: OpenDialogOptions = { title: 'Simulate from a state bundle', properties: ['openFile'], filters: STATE_BUNDLE_FILTERS };
    const { canceled, filePaths } =
      mainWindow === undefined ? await dialog.showOpenDialog(options) : await dialog.showOpenDialog(mainWindow, options);
    return canceled ? undefined : filePaths[0];
  },
};

/** Brings the window to the front: another launch of the app, or a click on one of its notifications. */
function showWindow(): void {
  if (mainWindow === undefined) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

async function start(): Promise<void> {
  await app.whenReady();
  // A packaged app never trusts a dev server, whatever the environment says.
  const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
  const appServices = createMainServices({
    dataDir: app.getPath('userData'),
    clipboard: electronClipboard,
    touchId: electronTouchId(),
    startSandboxService: startInOwnProcess(utilityServiceProcess(serviceEntryPath)),
    notifier: electronNotifier(),
    onNotificationOpened: showWindow,
    // A token's PIN is typed into main's own window over the app's, never into the page.
    askPkcs11Pin: askPinInWindow(() => mainWindow),
    openPasskeyPage: openPasskeyWindow(() => mainWindow),
  });
  services = appServices;
  hardenSession(session.defaultSession);
  registerIpcHandlers({
    ipcMain,
    handlers: createMainHandlers(appServices, {
      app: { version: app.getVersion(), platform: process.platform, packaged: app.isPackaged },
      confirm: confirmInDialog,
      stateBundleFiles,
    }),
    isTrustedSender: createRendererUrlCheck({ rendererIndexPath, devServerUrl }),
  });
  // The sandbox is the first-run default profile; the window does not wait for it (sandbox.status tells the renderer).
  appServices.sandbox.start().catch((error: unknown) => console.error('the sandbox did not start:', toQkError(error)));
  watchIdle({ lock: appServices.lock, settings: appServices.settings, systemIdleSeconds: () => powerMonitor.getSystemIdleTime() });
  powerMonitor.on('lock-screen', () => appServices.lock.lock());
  powerMonitor.on('suspend', () => appServices.lock.lock());
  mainWindow = createMainWindow({ preloadPath, rendererIndexPath, devServerUrl, isPackaged: app.isPackaged });
  followCaptureProtection(mainWindow, appServices.captureProtection);
  const window = mainWindow;
  // What changed reaches the page as an event (src/shared/ipc/events.ts); the page reads the rest itself.
  const stopEvents = appServices.events.subscribe((event) => {
    if (!window.isDestroyed()) window.webContents.send(APP_EVENT_CHANNEL, event);
  });
  appServices.activityFeeds.start();
  appServices.inbox.start();
  mainWindow.on('closed', () => {
    stopEvents();
    appServices.activityFeeds.stop();
    mainWindow = undefined;
  });
}

if (!app.requestSingleInstanceLock()) {
  // Another QuorumKey is running; it is told through 'second-instance' and comes to the front.
  app.quit();
} else {
  app.on('second-instance', showWindow);
  // Whatever web contents appear (now or later), none may open windows, navigate away or embed webviews.
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  app.on('window-all-closed', () => app.quit());
  // Quitting waits for the sandbox to stop, so its database is closed cleanly, then quits for real.
  let stopping: Promise<void> | undefined;
  let stopped = false;
  app.on('before-quit', (event) => {
    if (services === undefined || stopped) return;
    event.preventDefault();
    stopping ??= services
      .close()
      .catch((error: unknown) => console.error('the sandbox did not stop cleanly:', toQkError(error)))
      .finally(() => {
        stopped = true;
        app.quit();
      });
  });
  start().catch((error: unknown) => {
    const failure = toQkError(error);
    console.error(failure);
    dialog.showErrorBox('QuorumKey could not start', `${failure.code}: ${failure.message}`);
    app.exit(1);
  });
}
