import { useEffect, useState } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { call } from '../api';
import { useUi } from '../store';

/** How soon a running action starts showing the service requests it waits on (quick answers never flash it). */
const PENDING_POLL_MS = 1_000;

type PendingRequest = ChannelOutput<'requests.pending'>[number];

/**
 * An in-progress indicator that screen readers announce. While it shows, the service requests main is still
 * waiting on are listed with how long they have waited, and can be cancelled (the action then fails with CANCELLED).
 */
export function Progress({ label }: { label: string | undefined }) {
  const [pending, setPending] = useState<{ requests: PendingRequest[]; now: number }>({ requests: [], now: 0 });
  // While locked (unlocking, waiting for Touch ID) main answers nothing but the lock channels.
  const locked = useUi((state) => state.locked);

  useEffect(() => {
    if (label === undefined || locked) return;
    let current = true;
    const poll = () =>
      call((api) => api.requests.pending()).then(
        (requests) => current && setPending({ requests, now: Date.now() }),
        (error: unknown) => console.warn('could not list the pending requests', error),
      );
    const timer = setInterval(() => void poll(), PENDING_POLL_MS);
    return () => {
      current = false;
      clearInterval(timer);
      setPending({ requests: [], now: 0 });
    };
  }, [label, locked]);

  if (label === undefined) return null;
  const cancel = (id: string) =>
    void call((api) => api.requests.cancel({ id })).catch((error: unknown) => console.warn('could not cancel the request', error));
  return (
    <div className="progress" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
      {pending.requests.map((request) => (
        <span key={request.id} className="pending-request">
          {' '}
          Waiting for {hostOf(request.url)} ({Math.max(0, Math.round((pending.now - request.startedAtMs) / 1000))} s){' '}
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
