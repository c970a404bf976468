/**
 * The composition root: builds main's services with their dependencies, and the IPC handler table as the union of
 * each domain's handlers. Electron-free, so the app, the CLI, tests and the e2e harness build exactly the same thing.
 */
import { join } from 'node:path';
import { QkError } from '../shared/errors';
import { activitiesHandlers, readingsWith } from './activities/activities.ipc';
import { ActivityFeeds } from './activities/feed';
import { approvalsHandlers } from './approvals/approvals.ipc';
import { CaptureProtection } from './capture/capture-protection';
import { ApiClient } from './client/api-client';
import { InFlightRequests } from './client/in-flight';
import { UnansweredSubmissions } from './client/unanswered';
import { clipboardHandlers } from './clipboard/clipboard.ipc';
import { SecretClipboard, type TextClipboard } from './clipboard/secret-clipboard';
import { ActivityWatch } from './events/activity-watch';
import { ExportRequests, followExport } from './exports/export-requests';
import { AppEvents } from './events/app-events';
import { exportsHandlers } from './exports/exports.ipc';
import { importsHandlers } from './imports/imports.ipc';
import { Inbox } from './inbox/inbox';
import { changesOrganization, OrganizationReadModels } from './organization/read-model';
import { inboxHandlers } from './inbox/inbox.ipc';
import type { Notifier } from './inbox/notifier';
import type { IpcHandlers } from './ipc/register';
import { Journal } from './journal/journal';
import { journalHandlers } from './journal/journal.ipc';
import { keysHandlers } from './keys/keys.ipc';
import { DEFAULT_KEYCHAIN_SERVICE, Keychain } from './keychain/keychain';
import { OsSecretStore, type SecretStore } from './keychain/secret-store';
import { AppLock, guardWhileLocked } from './lock/lock';
import { guardReveals } from './lock/reveal-guard';
import { UnlockPassphrase } from './lock/unlock-passphrase';
import { Unlocker, type TouchId } from './lock/unlocker';
import { organizationHandlers } from './organization/organization.ipc';
import { Pkcs11Tokens, type AskPin } from './pkcs11/pkcs11-tokens';
import { TokenKeys } from './pkcs11/token-keys';
import { policiesHandlers } from './policies/policies.ipc';
import { ActiveProfile, assertServed } from './profiles/active-profile';
import type { Confirm } from './confirmation/confirmation';
import { ConfirmedReadings } from './confirmation/confirmed-readings';
import { assertPasskeyOnPage } from './passkeys/passkey-ceremonies';
import type { OpenPasskeyPage } from './passkeys/passkey-page';
import { PendingPasskeys } from './passkeys/pending-passkeys';
import { passkeysHandlers } from './passkeys/passkeys.ipc';
import { confirmingStampCheck } from './confirmation/stamp-check';
import { Profiles } from './profiles/profiles';
import { profilesHandlers } from './profiles/profiles.ipc';
import { Sandbox, type StartSandboxService } from './sandbox/sandbox';
import { sandboxHandlers } from './sandbox/sandbox.ipc';
import { DEFAULT_SETTINGS, Settings } from './settings/settings';
import { DeclaredTokens } from './tokens/declared-tokens';
import { AddressBook } from './address-book/address-book';
import { addressBookHandlers } from './address-book/address-book.ipc';
import { tokensHandlers } from './tokens/tokens.ipc';
import { TokenUsage } from './tokens/token-usage';
import { signingHandlers } from './signing/signing.ipc';
import { Simulations } from './simulation/simulation';
import { simulationHandlers, type StateBundleFiles } from './simulation/simulation.ipc';
import { Stamper } from './stamper/stamper';
import { usersHandlers } from './users/users.ipc';
import { walletsHandlers } from './wallets/wallets.ipc';
import { appHandlers } from './app/app.ipc';
import { contractsHandlers } from './contracts/contracts.ipc';
import { privateKeysHandlers } from './private-keys/private-keys.ipc';
import { requestsHandlers } from './requests/requests.ipc';
import { isWaitingForApprovals } from '../shared/approvals/voting';

/** Where offline-stamped request files are written and read, inside the data dir. */
export const STAMPED_REQUESTS_DIR = 'stamped-requests';
/** Where journal exports and checkpoints are written, inside the data dir. */
export const JOURNAL_EXPORTS_DIR = 'journal-exports';
/** Where approved exports are saved for the offline desktop, inside the data dir. */
export const EXPORTS_DIR = 'exports';
/** Completed signatures the requester saved (`signing.saveResult`). */
export const SIGNATURES_DIR = 'signatures';

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
  /**
   * The system clipboard (Electron's in the app); secrets copied through it are cleared after 30 s, on lock and on
   * close. Without one (the CLI) the clipboard channels refuse.
   */
  clipboard?: TextClipboard;
  /** Touch ID as an alternative to the unlock passphrase (Electron's on macOS); absent elsewhere. */
  touchId?: TouchId;
  /** How long a request to a service may take before it fails with TIMEOUT (default 30 s). */
  requestTimeoutMs?: number;
  /** Where the sandbox service runs: its own process in the app (see sandbox/service-process.ts); this one otherwise. */
  startSandboxService?: StartSandboxService;
  /** The OS, for whether it can keep the window out of screen capture (default: this process's). */
  platform?: string;
  /** How requests reach a profile's service (the global fetch by default; tests watch what leaves). */
  fetch?: typeof fetch;
  /** Where the inbox's notifications and waiting count go (the OS in the app, a recorder in tests); none in the CLI. */
  notifier?: Notifier;
  /** Told when a notification's click made its profile active, to bring the window forward. */
  onNotificationOpened?: () => void;
  /**
   * Asks a person for a PKCS#11 token's PIN on main's surface (the app's own prompt, the CLI's terminal or
   * QK_PKCS11_PIN); without one, a token key cannot sign.
   */
  askPkcs11Pin?: AskPin;
  /**
   * Shows main's passkey page (a window of main's in the app, a test browser's page in the e2e host); without one, a
   * profile's passkey can neither vote nor be added (the CLI).
   */
  openPasskeyPage?: OpenPasskeyPage;
}

export interface MainServices {
  dataDir: string;
  now: () => number;
  keychain: Keychain;
  profiles: Profiles;
  settings: Settings;
  /** Whether the window is kept out of screen capture; the app attaches its window to it. */
  captureProtection: CaptureProtection;
  /** Tokens operators declared, read by clear signing. */
  tokens: DeclaredTokens;
  /** Names this desktop gives addresses, per organization (`<dataDir>/address-book.json`), read by clear signing. */
  addressBook: AddressBook;
  /** Which declared tokens each organization's signing activities used on this desktop (`<dataDir>/token-usage.json`). */
  tokenUsage: TokenUsage;
  /** The signed record of what this desktop stamped, approved and revealed (`<dataDir>/journal.jsonl`). */
  journal: Journal;
  lock: AppLock;
  unlocker: Unlocker;
  clipboard: SecretClipboard | undefined;
  stamper: Stamper;
  /** The lines main's confirmation showed, waiting for the stamp whose hardware prompt restates them. */
  confirmedReadings: ConfirmedReadings;
  /** What a signing request's transaction would do: one for the card, the Sign screen and main's confirmation alike. */
  simulations: Simulations;
  /** Where main's passkey page is shown, when this process can show one. */
  openPasskeyPage: OpenPasskeyPage | undefined;
  /** Keys on PKCS#11 tokens and their logged-in sessions, closed on lock and on close. */
  pkcs11: Pkcs11Tokens;
  /** The embedded service; started by `sandbox.start` (the app starts it when ready). */
  sandbox: Sandbox;
  /** The services acting for the active (or a chosen) profile. */
  active: ActiveProfile;
  /** The service requests main is waiting on, for the screens to show and cancel. */
  inFlight: InFlightRequests;
  /** What changed, for the window to read again (the app sends each over the event channel). */
  events: AppEvents;
  /** The one poller: a feed per profile of what waits for votes; started by whoever shows a window (the app, the e2e host). */
  activityFeeds: ActivityFeeds;
  /** Reports the active profile's activities proposed or decided elsewhere, from the feed's looks. */
  activityWatch: ActivityWatch;
  /** Exports this desktop asked for that wait for votes, and the one-time keys held for them. */
  exportRequests: ExportRequests;
  /** Security keys whose registration waits for approvals, attached to their profile once it completes. */
  pendingPasskeys: PendingPasskeys;
  /** What waits on this desktop's users in every profile, from the feed's looks; notifies once started. */
  inbox: Inbox;
  /** Stops the activity feeds, clears a copied secret from the clipboard and stops the sandbox (in-flight requests finish first). */
  close(): Promise<void>;
}

export function createMainServices({
  dataDir,
  keychainServiceName,
  secretStore,
  now = Date.now,
  sandboxLog,
  clipboard,
  touchId,
  requestTimeoutMs,
  startSandboxService,
  platform = process.platform,
  fetch,
  notifier,
  onNotificationOpened,
  askPkcs11Pin = noPinPrompt,
  openPasskeyPage,
}: MainServicesOptions): MainServices {
  const events = new AppEvents();
  const profiles = new Profiles({ dataDir, onChange: (change) => events.emit({ type: 'profile', change }) });
  const tokens = new DeclaredTokens({ dataDir });
  const addressBook = new AddressBook({ dataDir });
  const tokenUsage = new TokenUsage({ dataDir, tokens, now });
  const settings = new Settings({ dataDir, tokens });
  const captureProtection = new CaptureProtection({ settings, platform });
  // One OS keychain store for the keys and the sandbox's service secret.
  const store = secretStore ?? new OsSecretStore(keychainServiceName ?? DEFAULT_KEYCHAIN_SERVICE);
  const keychain = new Keychain({ dataDir, store, profiles });
  const unlockPassphrase = new UnlockPassphrase({ dataDir, now });
  // With a passphrase set, the app starts locked: opening it is an unlock like any other.
  const lock = new AppLock({ locked: unlockPassphrase.isSetSync() });
  const secretClipboard = clipboard === undefined ? undefined : new SecretClipboard({ clipboard });
  lock.onLock(() => void secretClipboard?.clearCopied());
  lock.onChange((locked) => events.emit({ type: 'lock', locked }));
  const sandbox = new Sandbox({
    dataDir,
    keychain,
    secrets: store,
    profiles,
    now,
    ...(sandboxLog === undefined ? {} : { log: sandboxLog }),
    ...(startSandboxService === undefined ? {} : { start: startSandboxService }),
    onStateChange: (state) => events.emit({ type: 'sandbox', state }),
  });
  const pkcs11 = new Pkcs11Tokens({ askPin: askPkcs11Pin });
  // Locking logs out of every token: the next stamp asks for the PIN again.
  lock.onLock(() => void pkcs11.close());
  const confirmedReadings = new ConfirmedReadings();
  const assertPasskey = openPasskeyPage === undefined ? undefined : assertPasskeyOnPage({ openPage: openPasskeyPage });
  const stamper = new Stamper(keychain, pkcs11, confirmedReadings, assertPasskey);
  const inFlight = new InFlightRequests({ now, onChange: (pending) => events.emit({ type: 'requests', pending }) });
  // In the data dir, not the Sandbox's: a Sandbox reset leaves it alone. Its key shares the keys' keychain store.
  const journal = new Journal({ dataDir, secrets: store, now });
  // Each profile's one read of its organization, read anew once an activity of it ran (here or elsewhere, as the
  // watch and main's own writes report) or the Sandbox restarted on a database that may be another.
  const organizationReads = new OrganizationReadModels(now);
  events.subscribe((event) => {
    if (event.type === 'sandbox') organizationReads.forgetAll();
  });
  const active = new ActiveProfile({
    organizationReads,
    profiles,
    keychain,
    stamper,
    sandbox,
    now,
    inFlight,
    unanswered: new UnansweredSubmissions({ now }),
    journal,
    tokenUsage,
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    ...(fetch === undefined ? {} : { fetch }),
    onActivity: (activity, { vote }) => {
      // Through the watch, so that the feed's next look does not announce the same change again.
      activityWatch.announce(activity, vote ? 'changed' : 'created');
      void activityFeeds.learned(activity);
    },
  });
  const activityFeeds = new ActivityFeeds({
    profiles,
    // Its own client per profile: its polls are not the page's requests, so they are not listed for cancelling.
    clientFor: (profile) => {
      assertServed(profile, sandbox);
      return new ApiClient({
        profile,
        stamper,
        now,
        ...(fetch === undefined ? {} : { fetch }),
        ...(requestTimeoutMs === undefined ? {} : { timeoutMs: requestTimeoutMs }),
      });
    },
    settings,
    lock,
    events,
    now,
  });
  // The watch listens first: the details of what was decided that it asks for, the inbox then finds asked.
  const activityWatch = new ActivityWatch({
    feeds: activityFeeds,
    lock,
    events,
    // Only an activity that ran changes the organization (one rejected, failed or still waiting changes nothing), and
    // not every one that ran: a signature leaves the snapshot as it was.
    completed: (activity) => {
      if (changesOrganization(activity.type)) organizationReads.forget(activity.organizationId);
    },
  });
  const exportRequests = new ExportRequests({ dataDir, keychain, events });
  // A decided export this desktop asked for: tell the requester, or let its one-time key go.
  events.subscribe((event) => {
    if (event.type !== 'activity' || isWaitingForApprovals(event.status)) return;
    void followExport(exportRequests, active, event.activityId, now).catch((error: unknown) => console.error('following an export failed', error));
  });
  const inbox = new Inbox({
    feeds: activityFeeds,
    profiles,
    // The same readings as the Approvals screen's, so a row and its notification say what the screen says.
    readingsFor: (profile) => readingsWith(active.servicesFor(profile), { now, keychain, tokens, settings, addressBook }),
    settings,
    lock,
    events,
    now,
    ...(notifier === undefined ? {} : { notifier }),
    ...(onNotificationOpened === undefined ? {} : { onOpened: onNotificationOpened }),
  });
  // After the inbox: the details of its user's own proposals that left the list are asked by then.
  const pendingPasskeys = new PendingPasskeys({
    dataDir,
    profiles,
    feeds: activityFeeds,
    now,
    onEndedChange: () => events.emit({ type: 'passkey' }),
  });
  return {
    dataDir,
    now,
    keychain,
    profiles,
    settings,
    captureProtection,
    tokens,
    addressBook,
    tokenUsage,
    journal,
    lock,
    unlocker: new Unlocker({ lock, passphrase: unlockPassphrase, touchId, now }),
    clipboard: secretClipboard,
    stamper,
    confirmedReadings,
    simulations: new Simulations({ settings, tokens, addressBook }),
    openPasskeyPage,
    pkcs11,
    sandbox,
    active,
    inFlight,
    events,
    activityFeeds,
    activityWatch,
    exportRequests,
    pendingPasskeys,
    inbox,
    close: async () => {
      activityFeeds.stop();
      await secretClipboard?.clearCopied();
      await sandbox.stop();
      await pkcs11.close();
    },
  };
}

/** Where no prompt was given, a token key refuses to sign rather than guess a PIN. */
const noPinPrompt: AskPin = ({ tokenLabel }) =>
  Promise.reject(
    new QkError('TOKEN_PIN_REQUIRED', `the PIN of token ${JSON.stringify(tokenLabel)} cannot be asked here: this QuorumKey has no PIN prompt`),
  );

export interface MainHandlersOptions {
  app: { version: string; platform: string; packaged: boolean };
  /**
   * Main's confirmation surface (a native dialog in the app): asked before every activity or vote a channel stamps,
   * with main's reading of it, before a renderer request redirects a profile (service URL, enclave signer key, API
   * key, organization) or adds a hosted profile, and before an export is withdrawn without a vote.
   */
  confirm: Confirm;
  /** Main's save and open dialogs for state bundles; without them (tests, no window) the bundle channels refuse. */
  stateBundleFiles?: StateBundleFiles;
}

const noStateBundleFiles: StateBundleFiles = {
  saveAs: () => Promise.reject(new QkError('FAILED_PRECONDITION', 'this QuorumKey has no file dialog to save a state bundle with')),
  open: () => Promise.reject(new QkError('FAILED_PRECONDITION', 'this QuorumKey has no file dialog to open a state bundle with')),
};

/**
 * Main's stamp check over these services, for every surface that stamps through them (the app's handlers, the CLI's
 * commands), so each reads an activity or vote the same way before asking `confirm`.
 */
export function confirmingStampCheckFor(services: MainServices, confirm: Confirm): ReturnType<typeof confirmingStampCheck> {
  const { settings, tokens, addressBook, tokenUsage, keychain, simulations, now } = services;
  return confirmingStampCheck({
    confirm,
    readings: services.confirmedReadings,
    settings,
    tokens,
    addressBook,
    tokenUsage,
    keychain,
    simulations,
    now,
    waitingSeen: (profile) => services.activityFeeds.waitingSeen(profile),
  });
}

/**
 * Every channel's handler, answering APP_LOCKED while the app is locked; the revealing channels first ask for a
 * recent authentication.
 */
export function createMainHandlers(
  services: MainServices,
  { app, confirm, stateBundleFiles = noStateBundleFiles }: MainHandlersOptions,
): IpcHandlers {
  const {
    keychain,
    profiles,
    settings,
    captureProtection,
    tokens,
    addressBook,
    tokenUsage,
    journal,
    lock,
    unlocker,
    clipboard,
    sandbox,
    inFlight,
    simulations,
    now,
  } = services;
  // Whatever the page asks for, an activity or vote is stamped only once a person confirmed main's reading of it.
  const active = services.active.withStampCheck(confirmingStampCheckFor(services, confirm));
  const tokenKeys = new TokenKeys({ pkcs11: services.pkcs11, profiles });
  const handlers: IpcHandlers = {
    ...appHandlers({ lock, unlocker, settings, captureProtection, tokens, journal, app }),
    ...tokensHandlers({ tokens, settings, usage: tokenUsage, unlocker, journal }),
    ...addressBookHandlers({ addressBook, active }),
    ...clipboardHandlers({ clipboard }),
    ...keysHandlers({ keychain, tokenKeys }),
    ...profilesHandlers({ profiles, confirm, journal, tokenKeys }),
    ...requestsHandlers({ inFlight }),
    ...sandboxHandlers({ sandbox, profiles, confirm }),
    ...activitiesHandlers({ active, now, keychain, tokens, settings, addressBook }),
    ...approvalsHandlers({
      active,
      now,
      keychain,
      tokens,
      settings,
      addressBook,
      journal,
      stampedRequestsDir: join(services.dataDir, STAMPED_REQUESTS_DIR),
    }),
    ...organizationHandlers({ active, now, keychain, tokens }),
    ...usersHandlers({
      active,
      now,
      keychain,
      profiles,
      tokenKeys,
      openPasskeyPage: services.openPasskeyPage,
      pendingPasskeys: services.pendingPasskeys,
    }),
    ...passkeysHandlers({ pendingPasskeys: services.pendingPasskeys, profiles }),
    ...policiesHandlers({ active, now, tokens, settings }),
    ...walletsHandlers({ active, now }),
    ...privateKeysHandlers({ active, now }),
    ...contractsHandlers({ active, now }),
    ...exportsHandlers({
      active,
      now,
      keychain,
      profiles,
      journal,
      exportRequests: services.exportRequests,
      exportsDir: join(services.dataDir, EXPORTS_DIR),
      confirm,
    }),
    ...importsHandlers({ active, now }),
    ...journalHandlers({ journal, profiles, journalExportsDir: join(services.dataDir, JOURNAL_EXPORTS_DIR) }),
    ...inboxHandlers({ inbox: services.inbox, active, profiles, now }),
    ...simulationHandlers({ active, simulations, stateBundleFiles }),
    ...signingHandlers({
      active,
      now,
      settings,
      tokens,
      addressBook,
      journal,
      stampedRequestsDir: join(services.dataDir, STAMPED_REQUESTS_DIR),
      signaturesDir: join(services.dataDir, SIGNATURES_DIR),
    }),
  };
  // An unreadable settings file must not switch the re-ask off: fall back to the default.
  const reauthMaxAgeMs = async () =>
    (await settings.get().then(
      (current) => current.reauthMinutes,
      () => DEFAULT_SETTINGS.reauthMinutes,
    )) * 60_000;
  return guardWhileLocked(guardReveals(handlers, unlocker, reauthMaxAgeMs), lock);
}
