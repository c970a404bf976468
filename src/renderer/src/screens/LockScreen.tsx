import { ErrorNotice } from '../components/ErrorNotice';
import { Progress } from '../components/Progress';
import { useAction } from '../hooks';
import { useUi } from '../store';
import iconUrl from '../../../../resources/icon.svg';

/** Shown instead of everything else while locked: no data from any screen stays mounted. */
export function LockScreen() {
  const setLocked = useUi((state) => state.setLocked);
  const action = useAction();
  const unlock = async () => {
    const done = await action.run('Unlocking…', (api) => api.app.unlock());
    if (done !== undefined) setLocked(false);
  };
  return (
    <main className="lock-screen" aria-labelledby="lock-screen-title">
      <img src={iconUrl} width={96} height={96} alt="" />
      <h1 id="lock-screen-title">QuorumKey is locked</h1>
      <p>Keys, profiles and everything else stay hidden until you unlock.</p>
      <button type="button" className="primary large" onClick={() => void unlock()} autoFocus disabled={action.busy !== undefined}>
        Unlock
      </button>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} />}
    </main>
  );
}
