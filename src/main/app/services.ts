/**
 * The composition root: builds main's services with their dependencies and the IPC handler table over them.
 * Electron-free, so tests and the e2e harness build exactly what the app runs.
 */
import { Keychain } from '../keychain/keychain';
import type { SecretStore } from '../keychain/secret-store';
import { Profiles } from '../profiles/profiles';
import type { IpcHandlers } from '../ipc/register';
import { AppLock, guardWhileLocked } from './lock';
import { Settings } from './settings';

export interface MainServicesOptions {
  /** Where the key index, profiles and settings live (app.getPath('userData') in the app). */
  dataDir: string;
  app: { version: string; platform: string; packaged: boolean };
  /** OS keychain service name; tests pass their own so they never touch the user's keys. */
  keychainServiceName?: string;
  secretStore?: SecretStore;
}

export interface MainServices {
  keychain: Keychain;
  profiles: Profiles;
  settings: Settings;
  lock: AppLock;
  /** Every channel's handler, answering APP_LOCKED while the app is locked. */
  handlers: IpcHandlers;
}

export function createMainServices({ dataDir, app, keychainServiceName, secretStore }: MainServicesOptions): MainServices {
  const profiles = new Profiles({ dataDir });
  const keychain = new Keychain({ dataDir, serviceName: keychainServiceName, store: secretStore, profiles });
  const settings = new Settings({ dataDir });
  const lock = new AppLock();

  const handlers: IpcHandlers = {
    'app.info': async () => ({ ...app, locked: lock.locked }),
    'app.lock': async () => {
      lock.lock();
      return null;
    },
    'app.unlock': async () => {
      lock.unlock();
      return null;
    },
    'app.getSettings': () => settings.get(),
    'app.setSettings': (changes) => settings.set(changes),

    'keys.generateApiKey': (input) => keychain.generateApiKey(input),
    'keys.importApiKey': (input) => keychain.importApiKey(input),
    'keys.importTkcliApiKey': (input) => keychain.importTkcliApiKey(input),
    'keys.listApiKeys': () => keychain.listApiKeys(),
    'keys.renameApiKey': ({ name, newName }) => keychain.renameApiKey(name, newName),
    'keys.deleteApiKey': async ({ name }) => {
      await keychain.deleteApiKey(name);
      return null;
    },
    'keys.generateEncryptionKey': (input) => keychain.generateEncryptionKey(input),
    'keys.importEncryptionKey': (input) => keychain.importEncryptionKey(input),
    'keys.listEncryptionKeys': () => keychain.listEncryptionKeys(),
    'keys.deleteEncryptionKey': async ({ name }) => {
      await keychain.deleteEncryptionKey(name);
      return null;
    },

    'profiles.list': () => profiles.list(),
    'profiles.get': ({ id }) => profiles.get(id),
    'profiles.getActive': async () => (await profiles.getActive()) ?? null,
    'profiles.add': (input) => profiles.add(input),
    'profiles.update': ({ id, changes }) => profiles.update(id, changes),
    'profiles.remove': async ({ id }) => {
      await profiles.remove(id);
      return null;
    },
    'profiles.setActive': async ({ id }) => {
      await profiles.setActive(id);
      return null;
    },
  };
  return { keychain, profiles, settings, lock, handlers: guardWhileLocked(handlers, lock) };
}
