import type { ChannelOutput } from '../../../shared/ipc/contract';
import { useChannel } from '../queries';

type Status = ChannelOutput<'sandbox.status'>;

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

/**
 * The Sandbox's state in the header: running (and where), restarting after its process died, failed, or stopped.
 * Main reports each change of state (it restarts the Sandbox when its process dies), so this reads again then.
 */
export function SandboxStatus() {
  const status = useChannel('sandbox.status').data;
  if (status === undefined) return null;
  return (
    <span className={`sandbox-status sandbox-${status.state}`} role="status" title={status.error ?? undefined}>
      {statusInWords(status)}
      {status.state === 'failed' && status.error !== null && <span className="visually-hidden">: {status.error}</span>}
    </span>
  );
}
