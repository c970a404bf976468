import { QueryStatus } from '../components/QueryStatus';
import { UnlockForm } from '../components/UnlockForm';
import { useChannel } from '../queries';
import { useUi } from '../store';
import iconUrl from '../../../../resources/icon.svg';

/** Shown instead of everything else while locked: no data from any screen stays mounted. */
export function LockScreen() {
  const setLocked = useUi((state) => state.setLocked);
  const info = useChannel('app.info');
  return (
    <main className="lock-screen" aria-labelledby="lock-screen-title">
      <img src={iconUrl} width={96} height={96} alt="" />
      <h1 id="lock-screen-title">QuorumKey is locked</h1>
      <p>Keys, profiles and everything else stay hidden until you unlock.</p>
      <QueryStatus query={info} loading="Reading the lock state…" />
      {info.data !== undefined && (
        <>
          <UnlockForm methods={info.data} submitLabel="Unlock" channel="app.unlock" onDone={() => setLocked(false)} />
          {!info.data.unlockPassphraseSet && <p className="hint">Anyone at this computer can unlock: set an unlock passphrase in Settings.</p>}
        </>
      )}
    </main>
  );
}
