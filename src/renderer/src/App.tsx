import { useEffect, useState } from 'react';
import { EndedPasskeysNotice } from './components/EndedPasskeysNotice';
import { ErrorNotice } from './components/ErrorNotice';
import { Progress } from './components/Progress';
import { ReauthPrompt } from './components/ReauthPrompt';
import { SandboxStatus } from './components/SandboxStatus';
import { lockApp, useLockWatch, useTheme } from './hooks';
import { useActiveProfile, useChannel, useMainEvents } from './queries';
import { AddressBookScreen } from './screens/AddressBookScreen';
import { ApprovalsScreen } from './screens/ApprovalsScreen';
import { ContractsScreen } from './screens/ContractsScreen';
import { DecryptScreen } from './screens/DecryptScreen';
import { ImportScreen } from './screens/ImportScreen';
import { JournalScreen } from './screens/JournalScreen';
import { KeysScreen } from './screens/KeysScreen';
import { LockScreen } from './screens/LockScreen';
import { ProfilesScreen } from './screens/ProfilesScreen';
import { PoliciesScreen } from './screens/PoliciesScreen';
import { SettingsScreen } from './screens/SettingsScreen';
import { SignScreen } from './screens/SignScreen';
import { UsersScreen } from './screens/UsersScreen';
import { WalletsScreen } from './screens/WalletsScreen';
import { useUi, type Screen } from './store';
import iconUrl from '../../../resources/icon.svg';

const NAVIGATION: { screen: Screen; label: string }[] = [
  { screen: 'profiles', label: 'Profiles' },
  { screen: 'wallets', label: 'Wallets' },
  { screen: 'approvals', label: 'Approvals' },
  { screen: 'sign', label: 'Sign' },
  { screen: 'contracts', label: 'Contracts' },
  { screen: 'addressBook', label: 'Address book' },
  { screen: 'users', label: 'Users' },
  { screen: 'policies', label: 'Policies' },
  { screen: 'import', label: 'Import' },
  { screen: 'decrypt', label: 'Offline decrypt' },
  { screen: 'keys', label: 'Keys' },
  { screen: 'journal', label: 'Journal' },
  { screen: 'settings', label: 'Settings' },
];

export function App() {
  const locked = useUi((state) => state.locked);
  // Both are answered while locked, so the lock screen and the theme are right from the first frame.
  const info = useChannel('app.info');
  const settingsRead = useChannel('app.getSettings');
  const settings = settingsRead.data;
  const startError = (info.data === undefined ? info.error : null) ?? (settings === undefined ? settingsRead.error : null);
  useMainEvents();
  useTheme(settings?.theme);
  useLockWatch(settings?.idleLockMinutes);

  // Main says whether it started locked; after that the lock events and the lock screen keep the store's flag.
  const startedLocked = info.data?.locked;
  useEffect(() => {
    if (startedLocked !== undefined) useUi.getState().setLocked(startedLocked);
  }, [startedLocked]);

  if (startError !== null) {
    return (
      <main className="start-error">
        <h1>QuorumKey could not start</h1>
        <ErrorNotice error={startError} />
      </main>
    );
  }
  if (settings === undefined) return <Progress label="Starting QuorumKey…" />;
  if (locked) return <LockScreen />;
  return (
    <>
      <Shell />
      <ReauthPrompt />
    </>
  );
}

function Shell() {
  const screen = useUi((state) => state.screen);
  const show = useUi((state) => state.show);
  // Main reports every change of profile, so this follows a switch made anywhere.
  const activeProfile = useActiveProfile() ?? null;
  const info = useChannel('app.info');
  const pending = useChannel('approvals.pending');
  // Kept here, above the screens, so a dismissed notice stays dismissed when the person moves between them.
  const [dismissedExports, setDismissedExports] = useState<readonly string[]>([]);

  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">
          <img src={iconUrl} width={28} height={28} alt="" />
          QuorumKey
        </span>
        <span className="active-profile" aria-live="polite">
          {activeProfile === null ? 'No active profile' : `Profile: ${activeProfile.name}`}
        </span>
        <SandboxStatus />
        <button type="button" onClick={() => void lockApp()} title="Lock now">
          Lock
        </button>
      </header>
      <nav className="sidebar" aria-label="Sections">
        <ul>
          {NAVIGATION.map((item) => (
            <li key={item.screen}>
              <button
                type="button"
                className="nav-item"
                aria-current={screen === item.screen ? 'page' : undefined}
                aria-describedby={item.screen === 'approvals' && pending.data !== undefined ? 'approvals-waiting' : undefined}
                onClick={() => show(item.screen)}
              >
                {item.label}
                {item.screen === 'approvals' && pending.data !== undefined && pending.data.length > 0 && (
                  <span className="badge badge-active" aria-hidden="true">
                    {pending.data.length}
                  </span>
                )}
              </button>
              {item.screen === 'approvals' && pending.data !== undefined && (
                <span id="approvals-waiting" className="visually-hidden">
                  {pending.data.length} waiting for votes
                </span>
              )}
            </li>
          ))}
        </ul>
      </nav>
      <main id="content" className="content" tabIndex={-1}>
        {info.data?.unlockPassphraseSet === false && screen !== 'settings' && (
          <p className="notice notice-warning first-run-passphrase">
            Anyone at this computer can unlock QuorumKey and reveal exports.{' '}
            <button type="button" className="link-button" onClick={() => show('settings')}>
              Set an unlock passphrase
            </button>
          </p>
        )}
        {screen !== 'wallets' && activeProfile !== null && (
          <ApprovedExportsNotice
            onOpen={() => show('wallets')}
            dismissed={dismissedExports}
            onDismiss={(activityIds) => setDismissedExports((before) => [...before, ...activityIds])}
          />
        )}
        <EndedPasskeysNotice onOpenKeys={() => show('keys')} />
        {screen === 'profiles' && <ProfilesScreen />}
        {screen === 'keys' && <KeysScreen />}
        {screen === 'wallets' && <WalletsScreen />}
        {screen === 'approvals' && <ApprovalsScreen />}
        {screen === 'sign' && <SignScreen />}
        {screen === 'contracts' && <ContractsScreen />}
        {screen === 'addressBook' && <AddressBookScreen />}
        {screen === 'users' && <UsersScreen />}
        {screen === 'policies' && <PoliciesScreen />}
        {screen === 'import' && <ImportScreen />}
        {screen === 'decrypt' && <DecryptScreen />}
        {screen === 'journal' && <JournalScreen />}
        {screen === 'settings' && <SettingsScreen />}
      </main>
    </div>
  );
}

/**
 * Tells the requester, on any screen, that an export they asked for was approved, and leads to where it opens. Once
 * dismissed it stays under Wallets → Exports you asked for; an export approved later shows the notice again.
 */
function ApprovedExportsNotice({
  onOpen,
  dismissed,
  onDismiss,
}: {
  onOpen: () => void;
  dismissed: readonly string[];
  onDismiss: (activityIds: readonly string[]) => void;
}) {
  const requests = useChannel('exports.requests');
  const approved = requests.data?.filter((request) => request.approved && !dismissed.includes(request.activityId)) ?? [];
  if (approved.length === 0) return null;
  return (
    <p className="notice notice-info" role="status" aria-label="Approved exports">
      Approved: your export of {approved.map((request) => request.what).join(', ')}.{' '}
      <button type="button" className="link-button" onClick={onOpen}>
        Open it on Wallets
      </button>{' '}
      <button type="button" className="link-button" onClick={() => onDismiss(approved.map((request) => request.activityId))}>
        Dismiss
      </button>
    </p>
  );
}
