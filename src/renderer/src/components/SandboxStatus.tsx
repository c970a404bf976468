import { useEffect, useState } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { call } from '../api';

type Status = ChannelOutput<'sandbox.status'>;

/** How often the header asks main how the Sandbox's process is doing (main restarts it when it dies). */
const POLL_MS = 5_000;

function statusInWords(status: Status): string {
  switch (status.state) {
    case 'running':
      return `Sandbox: running${status.baseUrl === null ? '' : ` at ${new URL(status.baseUrl).host}`}`;
    case 'starting':
      return status.error === null ? 'Sandbox: starting…' : 'Sandbox: restarting…';
    case 'failed':
      return 'Sandbox: failed';
    case 'stopped':
      return 'Sandbox: stopped';
  }
}

/** The Sandbox's state in the header: running (and where), restarting after its process died, failed, or stopped. */
export function SandboxStatus() {
  const [status, setStatus] = useState<Status>();

  useEffect(() => {
    let current = true;
    const refresh = () =>
      call((api) => api.sandbox.status()).then(
        (next) => current && setStatus(next),
        (error: unknown) => console.warn('could not read the sandbox status', error),
      );
    void refresh();
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, []);

  if (status === undefined) return null;
  return (
    <span className={`sandbox-status sandbox-${status.state}`} role="status" title={status.error ?? undefined}>
      {statusInWords(status)}
      {status.state === 'failed' && status.error !== null && <span className="visually-hidden">: {status.error}</span>}
    </span>
  );
}
