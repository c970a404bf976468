import { useEffect, useState } from 'react';
import { call } from '../api';
import { usePendingRequests } from '../queries';
import { useUi } from '../store';

/** How long a request runs before the line shows it (quick answers never flash it), and how often its wait is counted. */
const SHOW_AFTER_MS = 1_000;

/**
 * An in-progress indicator that screen readers announce. While it shows, the service requests main has waited on for
 * a second or more are listed with how long they have waited, and can be cancelled (the action then fails with
 * CANCELLED). Main pushes what it waits on as it changes, so the line asks main nothing while it waits.
 */
export function Progress({ label }: { label: string | undefined }) {
  const requests = usePendingRequests();
  // The clock the waits are counted by; undefined until the line has shown for a second.
  const [now, setNow] = useState<number>();
  const locked = useUi((state) => state.locked);

  useEffect(() => {
    if (label === undefined || locked) return;
    const timer = setInterval(() => setNow(Date.now()), SHOW_AFTER_MS);
    return () => {
      clearInterval(timer);
      setNow(undefined);
    };
  }, [label, locked]);

  if (label === undefined) return null;
  const waits = now === undefined ? [] : requests.map((request) => ({ request, waitedMs: now - request.startedAtMs }));
  const shown = waits.filter(({ waitedMs }) => waitedMs >= SHOW_AFTER_MS);
  const cancel = (id: string) =>
    void call((api) => api.requests.cancel({ id })).catch((error: unknown) => console.warn('could not cancel the request', error));
  return (
    <div className="progress" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
      {shown.map(({ request, waitedMs }) => (
        <span key={request.id} className="pending-request">
          {' '}
          Waiting for {hostOf(request.url)} ({Math.round(waitedMs / 1000)} s){' '}
          <button type="button" className="small" onClick={() => cancel(request.id)}>
            Cancel
          </button>
        </span>
      ))}
    </div>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
