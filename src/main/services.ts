/**
 * The composition root: builds main's services with their dependencies, and the IPC handler table as the union of
 * each domain's handlers. Electron-free, so the app, the CLI, tests and the e2e harness build exactly the same thing.
 */
import { join } from 'node:path';
import { activitiesHandlers } from './activities/activities.ipc';
import { approvalsHandlers } from './approvals/approvals.ipc';
import { exporterHandlers } from './exporter/exporter.ipc';
import { importerHandlers } from './importer/importer.ipc';
import { InFlightRequests } from './client/in-flight';
import { requestsHandlers } from './client/requests.ipc';
import { clipboardHandlers } from './clipboard/clipboard.ipc';
import { SecretClipboard, type TextClipboard } from './clipboard/secret-clipboard';
import type { IpcHandlers } from './ipc/register';
import { keychainHandlers } from './keychain/keychain.ipc';
import { DEFAULT_KEYCHAIN_SERVICE, Keychain } from './keychain/keychain';
import { OsSecretStore, type SecretStore } from './keychain/secret-store';
import { AppLock, guardWhileLocked } from './lock/lock';
import { lockHandlers } from './lock/lock.ipc';
import { guardReveals } from './lock/reveal-guard';
import { UnlockPassphrase } from './lock/unlock-passphrase';
import { Unlocker, type TouchId } from './lock/unlocker';
import { policiesHandlers } from './policies/policies.ipc';
import { ActiveProfile } from './profiles/active-profile';
import type { Confirm } from './profiles/confirmation';
import { Profiles } from './profiles/profiles';
import { profilesHandlers } from './profiles/profiles.ipc';
import { Sandbox } from './sandbox/sandbox';
import { sandboxHandlers } from './sandbox/sandbox.ipc';
import { DEFAULT_SETTINGS, Settings } from './settings/settings';
import { settingsHandlers } from './settings/settings.ipc';
import { signingHandlers } from './signing/signing.ipc';
import { Stamper } from './stamper/stamper';
import { walletsHandlers } from './wallets/wallets.ipc';

/** Where offline-stamped request files are written and read, inside the data dir. */
export const STAMPED_REQUESTS_DIR = 'stamped-requests';

export interface MainServicesOptions {
  /** Where the key index, profiles and settings live (app.getPath('userData') in the app). */
  dataDir: string;
  /** OS keychain service name; tests pass their own so they never touch the user's keys. */
  keychainServiceName?: string;
  secretStore?: SecretStore;
  /** Clock for request timestamps and approval windows (milliseconds since the epoch). */
  now?: () => number;
  /** Where the sandbox service writes its log lines (stderr without one). */
  sandboxLog?: (line: string) => void;
  /** Touch ID as an alternative to the unlock passphrase (Electron's on macOS); absent elsewhere. */
  touchId?: TouchId;
  /** How long a request to a service may take before it fails with TIMEOUT (default 30 s). */
  requestTimeoutMs?: number;
}

export interface MainServices {
  dataDir: string;
  now: () => number;
  keychain: Keychain;
  profiles: Profiles;
  settings: Settings;
  lock: AppLock;
  unlocker: Unlocker;
  stamper: Stamper;
  /** Requests to services still waiting for an answer, for the screens to show and cancel. */
  inFlight: InFlightRequests;
  /** The embedded service; started by `sandbox.start` (the app starts it when ready). */
  sandbox: Sandbox;
  /** The services acting for the active (or a chosen) profile. */
  active: ActiveProfile;
  /** Runs `cleanup` on close, before the sandbox stops (e.g. clearing a secret copied to the clipboard). */
  onClose(cleanup: () => Promise<void>): void;
  /** Runs the cleanups, then stops the sandbox (in-flight requests finish first). */
  close(): Promise<void>;
}

export function createMainServices({
  dataDir,
  keychainServiceName,
  secretStore,
  now = Date.now,
  sandboxLog,
  touchId,
  requestTimeoutMs,
}: MainServicesOptions): MainServices {
  const profiles = new Profiles({ dataDir });
  // One OS keychain store for the keys and the sandbox's service secret.
  const store = secretStore ?? new OsSecretStore(keychainServiceName ?? DEFAULT_KEYCHAIN_SERVICE);
  const keychain = new Keychain({ dataDir, store, profiles });
  const unlockPassphrase = new UnlockPassphrase({ dataDir, now });
  // With a passphrase set, the app starts locked: opening it is an unlock like any other.
  const lock = new AppLock({ locked: unlockPassphrase.isSetSync() });
  const sandbox = new Sandbox({ dataDir, keychain, secrets: store, profiles, now, ...(sandboxLog === undefined ? {} : { log: sandboxLog }) });
  const stamper = new Stamper(keychain);
  const inFlight = new InFlightRequests({ now });
  const cleanups: (() => Promise<void>)[] = [];
  return {
    dataDir,
    now,
    keychain,
    profiles,
    settings: new Settings({ dataDir }),
    lock,
    unlocker: new Unlocker({ lock, passphrase: unlockPassphrase, touchId, now }),
    stamper,
    inFlight,
    sandbox,
    active: new ActiveProfile({ profiles, keychain, stamper, sandbox, now, inFlight, ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) }),
    onClose: (cleanup) => void cleanups.push(cleanup),
    close: async () => {
      for (const cleanup of cleanups) await cleanup();
      await sandbox.stop();
    },
  };
}

export interface MainHandlersOptions {
  app: { version: string; platform: string; packaged: boolean };
  /**
   * Asks the user, in UI main controls (a native dialog in the app), before a renderer request redirects a profile
   * (service URL, enclave signer key) or adds a hosted profile trusting a non-production signer.
   */
  confirm: Confirm;
  /** The system clipboard (Electron's in the app); secrets copied through it are cleared after 30 s and on lock. */
  clipboard: TextClipboard;
}

/**
 * Every channel's handler, answering APP_LOCKED while the app is locked and asking again for the unlock passphrase
 * before a reveal when the last unlock is older than the re-ask setting. Also answers the secret clipboard, which
 * the caller clears on close.
 */
export function createMainHandlers(services: MainServices, { app, confirm, clipboard }: MainHandlersOptions): IpcHandlers {
  const { keychain, profiles, settings, lock, unlocker, sandbox, active, inFlight, now } = services;
  const secretClipboard = new SecretClipboard({ clipboard });
  lock.onLock(() => void secretClipboard.clearCopied());
  services.onClose(() => secretClipboard.clearCopied());
  // An unreadable settings file must not switch the re-ask off: fall back to the default.
  const reauthMaxAgeMs = async () =>
    (await settings.get().then((current) => current.reauthMinutes, () => DEFAULT_SETTINGS.reauthMinutes)) * 60_000;
  const handlers: IpcHandlers = {
    ...lockHandlers({ lock, unlocker, app }),
    ...clipboardHandlers({ clipboard: secretClipboard }),
    ...requestsHandlers({ inFlight }),
    ...settingsHandlers({ settings }),
    ...keychainHandlers({ keychain }),
    ...profilesHandlers({ profiles, confirm }),
    ...sandboxHandlers({ sandbox, profiles }),
    ...activitiesHandlers({ active, now }),
    ...approvalsHandlers({ active, now, stampedRequestsDir: join(services.dataDir, STAMPED_REQUESTS_DIR) }),
    ...policiesHandlers({ active, now }),
    ...walletsHandlers({ active, now }),
    ...exporterHandlers({ active, now, keychain, profiles }),
    ...importerHandlers({ active, now }),
    ...signingHandlers({ active, now, settings, stampedRequestsDir: join(services.dataDir, STAMPED_REQUESTS_DIR) }),
  };
  return guardWhileLocked(guardReveals(handlers, unlocker, reauthMaxAgeMs), lock);
}
