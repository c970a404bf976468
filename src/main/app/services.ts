/**
 * The composition root: builds main's services with their dependencies and the IPC handler table over them.
 * Electron-free, so tests and the e2e harness build exactly what the app runs.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { activityResponseSchema, operationByPath, operations, parseResponse } from '../../shared/api';
import { QkError } from '../../shared/errors';
import type { ChannelOutput } from '../../shared/ipc/contract';
import { readStampedFile } from '../approvals/approvals';
import { decryptBundleOffline } from '../exporter/exporter';
import { InFlightRequests } from '../client/in-flight';
import { SecretClipboard, type TextClipboard } from '../clipboard/secret-clipboard';
import type { IpcHandlers } from '../ipc/register';
import { DEFAULT_KEYCHAIN_SERVICE, Keychain } from '../keychain/keychain';
import { OsSecretStore, type SecretStore } from '../keychain/secret-store';
import { guardReveals } from '../lock/reveal-guard';
import { UnlockPassphrase } from '../lock/unlock-passphrase';
import { Unlocker, type TouchId } from '../lock/unlocker';
import { confirmingCheck, type Confirm } from '../profiles/confirmation';
import { Profiles } from '../profiles/profiles';
import { Sandbox, SANDBOX_PROFILE_NAME } from '../sandbox/sandbox';
import { Stamper } from '../stamper/stamper';
import { ActiveProfile } from './active-profile';
import { AppLock, guardWhileLocked } from './lock';
import { DEFAULT_SETTINGS, Settings } from './settings';
import {
  activityView,
  addressViews,
  outcomeView,
  pendingApprovalView,
  policyView,
  privateKeyView,
  walletAccountView,
  walletView,
} from './views';

/**
 * Where offline-stamped request files are written and read, inside the data dir. The renderer names files, never
 * paths, so it cannot make main read or write anywhere else; people carry these files between machines by copying.
 */
export const STAMPED_REQUESTS_DIR = 'stamped-requests';

export interface MainServicesOptions {
  /** Where the key index, profiles and settings live (app.getPath('userData') in the app). */
  dataDir: string;
  app: { version: string; platform: string; packaged: boolean };
  /** OS keychain service name; tests pass their own so they never touch the user's keys. */
  keychainServiceName?: string;
  secretStore?: SecretStore;
  /** Clock for request timestamps and approval windows (milliseconds since the epoch). */
  now?: () => number;
  /** Where the sandbox service writes its log lines (it is quiet without one). */
  sandboxLog?: (line: string) => void;
  /**
   * Asks the user, in UI main controls (a native dialog in the app), before a renderer request redirects a profile
   * (service URL, enclave signer key) or adds a hosted profile trusting a non-production signer.
   */
  confirm: Confirm;
  /** The system clipboard (Electron's in the app); secrets copied through it are cleared after 30 s, on lock and on close. */
  clipboard: TextClipboard;
  /** Touch ID as an alternative to the unlock passphrase (Electron's on macOS); absent elsewhere. */
  touchId?: TouchId;
  /** How long a request to a service may take before it fails with TIMEOUT (default 30 s). */
  requestTimeoutMs?: number;
}

export interface MainServices {
  keychain: Keychain;
  profiles: Profiles;
  settings: Settings;
  lock: AppLock;
  unlocker: Unlocker;
  /** The embedded service; started by `sandbox.start` (the app starts it when ready). */
  sandbox: Sandbox;
  clipboard: SecretClipboard;
  /** Every channel's handler, answering APP_LOCKED while the app is locked. */
  handlers: IpcHandlers;
  /** Clears a copied secret from the clipboard and stops the sandbox (in-flight requests finish first). */
  close(): Promise<void>;
}

export function createMainServices({
  dataDir,
  app,
  keychainServiceName,
  secretStore,
  now = Date.now,
  sandboxLog,
  confirm,
  requestTimeoutMs,
  clipboard,
  touchId,
}: MainServicesOptions): MainServices {
  const profiles = new Profiles({ dataDir });
  // One OS keychain store for the keys and the sandbox's service secret.
  const store = secretStore ?? new OsSecretStore(keychainServiceName ?? DEFAULT_KEYCHAIN_SERVICE);
  const keychain = new Keychain({ dataDir, store, profiles });
  const settings = new Settings({ dataDir });
  const unlockPassphrase = new UnlockPassphrase({ dataDir, now });
  // With a passphrase set, the app starts locked: opening it is an unlock like any other.
  const lock = new AppLock({ locked: unlockPassphrase.isSetSync() });
  const unlocker = new Unlocker({ lock, passphrase: unlockPassphrase, touchId, now });
  // An unreadable settings file must not switch the re-ask off: fall back to the default.
  const reauthMaxAgeMs = async () =>
    (await settings.get().then((current) => current.reauthMinutes, () => DEFAULT_SETTINGS.reauthMinutes)) * 60_000;
  const secretClipboard = new SecretClipboard({ clipboard });
  lock.onLock(() => void secretClipboard.clearCopied());
  const sandbox = new Sandbox({ dataDir, keychain, secrets: store, profiles, now, ...(sandboxLog === undefined ? {} : { log: sandboxLog }) });
  const stamper = new Stamper(keychain);
  const inFlight = new InFlightRequests({ now });
  const active = new ActiveProfile({ profiles, keychain, stamper, sandbox, now, inFlight, ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) });
  const stampedRequestsDir = join(dataDir, STAMPED_REQUESTS_DIR);
  // Only the renderer's edits are checked: main's own (the sandbox following its port) are not the user's to confirm.
  const confirmedByUser = confirmingCheck(confirm);

  const sandboxStatus = async (): Promise<ChannelOutput<'sandbox.status'>> => {
    if (sandbox.isRunning) {
      // Answers the running service (start is idempotent), whoever started it.
      const { info, profile } = await sandbox.start();
      return {
        running: true,
        profileId: profile.id,
        organizationId: info.organizationId,
        rootUserId: info.rootUserId,
        baseUrl: info.baseUrl,
        enclaveSignerPublicKey: info.enclaveSignerPublicKey,
      };
    }
    // Stopped: the profile from an earlier run is still there, but its URL and root user belong to no live service.
    const stored = (await profiles.list()).find((profile) => profile.kind === 'sandbox' && profile.name === SANDBOX_PROFILE_NAME);
    return {
      running: false,
      profileId: stored?.id ?? null,
      organizationId: stored?.organizationId ?? null,
      rootUserId: null,
      baseUrl: null,
      enclaveSignerPublicKey: stored?.enclaveSignerPublicKey ?? null,
    };
  };

  const stampedFile = async (name: string): Promise<string> => {
    await mkdir(stampedRequestsDir, { recursive: true, mode: 0o700 });
    return join(stampedRequestsDir, name);
  };

  const handlers: IpcHandlers = {
    'app.info': async () => ({ ...app, locked: lock.locked, ...(await unlocker.status()) }),
    'app.lock': async () => {
      lock.lock();
      return null;
    },
    'app.unlock': async (credentials) => {
      await unlocker.unlock(credentials);
      return null;
    },
    'app.reauthenticate': async (credentials) => {
      await unlocker.reauthenticate(credentials);
      return null;
    },
    'app.setUnlockPassphrase': async ({ passphrase, currentPassphrase }) => {
      await unlocker.setPassphrase(passphrase, currentPassphrase);
      return null;
    },
    'app.getSettings': () => settings.get(),
    'app.setSettings': (changes) => settings.set(changes),

    'clipboard.copySecret': async ({ text }) => {
      await secretClipboard.copy(text);
      return { clearAfterMs: secretClipboard.clearAfterMs };
    },
    'clipboard.clearPasted': async ({ text }) => {
      await secretClipboard.clearPasted(text);
      return null;
    },

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
    'profiles.add': (input) => profiles.add(input, confirmedByUser),
    'profiles.update': ({ id, changes }) => profiles.update(id, changes, confirmedByUser),
    'profiles.remove': async ({ id }) => {
      await profiles.remove(id);
      return null;
    },
    'profiles.setActive': async ({ id }) => {
      await profiles.setActive(id);
      return null;
    },

    'requests.pending': async () => inFlight.list(),
    'requests.cancel': async ({ id }) => ({ cancelled: inFlight.cancel(id) }),

    'sandbox.status': sandboxStatus,
    'sandbox.start': async () => {
      await sandbox.start();
      return sandboxStatus();
    },

    'activities.list': async ({ status, type, limit, before }) => {
      const { client } = await active.services();
      const paginationOptions = {
        ...(limit === undefined ? {} : { limit: String(limit) }),
        ...(before === undefined ? {} : { before }),
      };
      const { activities } = await client.query('list_activities', {
        ...(status === undefined ? {} : { filterByStatus: status }),
        ...(type === undefined ? {} : { filterByType: type }),
        ...(Object.keys(paginationOptions).length === 0 ? {} : { paginationOptions }),
      });
      return activities.map((activity) => activityView(activity, now()));
    },
    'activities.get': async ({ activityId }) => {
      const { client } = await active.services();
      return activityView((await client.query('get_activity', { activityId })).activity, now());
    },

    'approvals.whoami': async () => {
      const { client } = await active.services();
      const { organizationId, organizationName, userId, username } = await client.query('whoami', {});
      return { organizationId, organizationName, userId, username };
    },
    'approvals.pending': async () => (await (await active.services()).approvals.pending()).map((pending) => pendingApprovalView(pending, now())),
    'approvals.approve': async ({ fingerprint }) => activityView(await (await active.services()).approvals.approve(fingerprint), now()),
    'approvals.reject': async ({ fingerprint }) => activityView(await (await active.services()).approvals.reject(fingerprint), now()),
    'approvals.stampToFile': async ({ fingerprint, vote = 'approve', file: name }) => {
      const { client, approvals } = await active.services();
      const request =
        vote === 'approve'
          ? { path: operations.approve_activity.path, body: client.envelope('approve_activity', { fingerprint }) }
          : { path: operations.reject_activity.path, body: client.envelope('reject_activity', { fingerprint }) };
      const file = await stampedFile(name);
      const stamped = await approvals.stampToFile(request.path, request.body, file);
      return { file, stampedRequestsDir, path: stamped.path, body: stamped.body };
    },
    'approvals.postStampedFile': async ({ file: name }) => {
      const { client } = await active.services();
      const file = join(stampedRequestsDir, name);
      const request = await readStampedFile(file);
      // Checked before posting: an activity's answer is what this channel returns, and nothing is sent otherwise.
      if (operationByPath(request.path)?.kind !== 'activity') {
        throw new QkError('REQUEST_INVALID', `${name} holds a request for ${request.path.slice(0, 100)}, which is not an activity submission`, {
          field: 'file',
        });
      }
      const answer = await client.postRaw(request.path, request.body, request.stamp);
      return activityView(parseResponse(activityResponseSchema, answer, `${request.path} response`).activity, now());
    },

    'policies.list': async () => (await (await active.services()).policies.list()).map(policyView),
    'policies.get': async ({ policyId }) => policyView(await (await active.services()).policies.get(policyId)),
    'policies.create': async (input) => outcomeView(await (await active.services()).policies.create(input), policyIdOf, now()),
    'policies.update': async ({ policyId, changes }) =>
      outcomeView(await (await active.services()).policies.update(policyId, changes), policyIdOf, now()),
    'policies.delete': async ({ policyId }) => outcomeView(await (await active.services()).policies.delete(policyId), policyIdOf, now()),

    'wallets.list': async () => {
      const { client } = await active.services();
      return (await client.query('list_wallets', {})).wallets.map(walletView);
    },
    'wallets.accounts': async ({ walletId }) => {
      const { client } = await active.services();
      return (await client.query('list_wallet_accounts', { walletId })).accounts.map(walletAccountView);
    },
    'wallets.create': async ({ name, mnemonicLength, accounts }) => {
      const { client } = await active.services();
      const outcome = await client.submit('create_wallet', {
        walletName: name,
        accounts,
        ...(mnemonicLength === undefined ? {} : { mnemonicLength }),
      });
      return outcomeView(outcome, ({ walletId, addresses }) => ({ walletId, addresses }), now());
    },
    'wallets.createAccounts': async ({ walletId, accounts }) => {
      const { client } = await active.services();
      return outcomeView(await client.submit('create_wallet_accounts', { walletId, accounts }), ({ addresses }) => ({ addresses }), now());
    },
    'privateKeys.list': async () => {
      const { client } = await active.services();
      return (await client.query('list_private_keys', {})).privateKeys.map(privateKeyView);
    },
    'privateKeys.create': async ({ name, curve, addressFormats }) => {
      const { client } = await active.services();
      const outcome = await client.submit('create_private_keys', {
        privateKeys: [{ privateKeyName: name, curve, privateKeyTags: [], addressFormats }],
      });
      return outcomeView(outcome, ({ privateKeys }) => {
        const created = privateKeys[0];
        if (created?.privateKeyId === undefined) {
          throw new QkError('RESPONSE_INVALID', 'create_private_keys completed without the id of the key it created');
        }
        return { privateKeyId: created.privateKeyId, addresses: addressViews(created.addresses ?? []) };
      }, now());
    },

    'exports.reveal': async ({ subject, target, keyFormat }) => {
      const { exporter } = await active.services();
      if (subject.kind === 'completed-export') {
        if (target.kind !== 'encryption-key') {
          throw new QkError('REQUEST_INVALID', 'a completed export can only be opened with the stored encryption key it was sealed to', {
            field: 'target',
          });
        }
        const secret = await exporter.revealCompleted(subject.activityId, target.name, keyFormat);
        return { state: 'revealed', secret, activityId: subject.activityId };
      }
      const result = await exporter.reveal(subject, target, keyFormat);
      return result.state === 'revealed'
        ? { state: 'revealed', secret: result.secret, activityId: result.activity.id }
        : { state: result.state, activity: activityView(result.activity, now()) };
    },
    'exports.decryptBundle': async ({ bundle, encryptionKeyName, organizationId, signerPublicKey, keyFormat }) => {
      const signer = signerPublicKey ?? (await profiles.getActive())?.enclaveSignerPublicKey;
      if (signer === undefined) {
        throw new QkError('REQUEST_INVALID', 'no profile is active to take the enclave signer key from; give signerPublicKey', {
          field: 'signerPublicKey',
        });
      }
      return decryptBundleOffline({
        bundle,
        key: { kind: 'encryption-key', name: encryptionKeyName },
        keychain,
        expected: { signerPublicKey: signer, organizationId },
        format: keyFormat ?? 'mnemonic',
      });
    },

    'imports.wallet': async (input) => {
      const result = await (await active.services()).importer.importWallet(input);
      return result.state === 'imported'
        ? { state: 'imported', result: { walletId: result.result.walletId, addresses: result.result.addresses }, activity: activityView(result.activity, now()) }
        : { state: result.state, activity: activityView(result.activity, now()), step: result.step };
    },
    'imports.privateKey': async ({ name, privateKey, format, curve, addressFormats }) => {
      const result = await (await active.services()).importer.importPrivateKey({ name, privateKey, format, curve, addressFormats });
      return result.state === 'imported'
        ? {
            state: 'imported',
            result: { privateKeyId: result.result.privateKeyId, addresses: addressViews(result.result.addresses) },
            activity: activityView(result.activity, now()),
          }
        : { state: result.state, activity: activityView(result.activity, now()), step: result.step };
    },
  };
  return {
    keychain,
    profiles,
    settings,
    lock,
    unlocker,
    sandbox,
    clipboard: secretClipboard,
    handlers: guardWhileLocked(guardReveals(handlers, unlocker, reauthMaxAgeMs), lock),
    close: async () => {
      await secretClipboard.clearCopied();
      await sandbox.stop();
    },
  };
}

function policyIdOf({ policyId }: { policyId: string }): { policyId: string } {
  return { policyId };
}
