/**
 * The composition root: builds main's services with their dependencies, and the IPC handler table as the union of
 * each domain's handlers. Electron-free, so the app, the CLI, tests and the e2e harness build exactly the same thing.
 */
import { join } from 'node:path';
import { activitiesHandlers } from './activities/activities.ipc';
import { approvalsHandlers } from './approvals/approvals.ipc';
import { exporterHandlers } from './exporter/exporter.ipc';
import { importerHandlers } from './importer/importer.ipc';
import type { IpcHandlers } from './ipc/register';
import { keychainHandlers } from './keychain/keychain.ipc';
import { Keychain } from './keychain/keychain';
import type { SecretStore } from './keychain/secret-store';
import { AppLock, guardWhileLocked } from './lock/lock';
import { lockHandlers } from './lock/lock.ipc';
import { policiesHandlers } from './policies/policies.ipc';
import { ActiveProfile } from './profiles/active-profile';
import type { Confirm } from './profiles/confirmation';
import { Profiles } from './profiles/profiles';
import { profilesHandlers } from './profiles/profiles.ipc';
import { Sandbox } from './sandbox/sandbox';
import { sandboxHandlers } from './sandbox/sandbox.ipc';
import { Settings } from './settings/settings';
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
}

export interface MainServices {
  dataDir: string;
  now: () => number;
  keychain: Keychain;
  profiles: Profiles;
  settings: Settings;
  lock: AppLock;
  stamper: Stamper;
  /** The embedded service; started by `sandbox.start` (the app starts it when ready). */
  sandbox: Sandbox;
  /** The services acting for the active (or a chosen) profile. */
  active: ActiveProfile;
  /** Stops the sandbox (in-flight requests finish first). */
  close(): Promise<void>;
}

export function createMainServices({ dataDir, keychainServiceName, secretStore, now = Date.now, sandboxLog }: MainServicesOptions): MainServices {
  const profiles = new Profiles({ dataDir });
  const keychain = new Keychain({ dataDir, serviceName: keychainServiceName, store: secretStore, profiles });
  const sandbox = new Sandbox({ dataDir, keychain, profiles, now, ...(sandboxLog === undefined ? {} : { log: sandboxLog }) });
  const stamper = new Stamper(keychain);
  return {
    dataDir,
    now,
    keychain,
    profiles,
    settings: new Settings({ dataDir }),
    lock: new AppLock(),
    stamper,
    sandbox,
    active: new ActiveProfile({ profiles, keychain, stamper, sandbox, now }),
    close: () => sandbox.stop(),
  };
}

export interface MainHandlersOptions {
  app: { version: string; platform: string; packaged: boolean };
  /**
   * Asks the user, in UI main controls (a native dialog in the app), before a renderer request redirects a profile
   * (service URL, enclave signer key) or adds a hosted profile trusting a non-production signer.
   */
  confirm: Confirm;
}

/** Every channel's handler, answering APP_LOCKED while the app is locked. */
export function createMainHandlers(services: MainServices, { app, confirm }: MainHandlersOptions): IpcHandlers {
  const { keychain, profiles, settings, lock, sandbox, active, now } = services;
  const handlers: IpcHandlers = {
    ...lockHandlers({ lock, app }),
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
  return guardWhileLocked(handlers, lock);
}
