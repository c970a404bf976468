import type { ReactNode } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { useChannel } from '../queries';
import { useUi } from '../store';

type ActivityView = ChannelOutput<'activities.get'>;

/**
 * An activity that waits for votes after it was proposed: a waiting state, not an error. Says what waits, the
 * fingerprint to compare, who may still vote, and leads to the Approvals screen.
 */
export function WaitingForVotes({
  what,
  activity,
  onDismiss,
  children,
}: {
  what: string;
  activity: ActivityView;
  onDismiss?: () => void;
  children?: ReactNode;
}) {
  const show = useUi((state) => state.show);
  // Main's reading of the same activity in the queue: who may still vote, from the policies' verdict on it.
  const pending = useChannel('approvals.pending');
  const possible = pending.data?.find((item) => item.activityId === activity.id)?.reading.vote?.stillToVote;
  return (
    <div className="notice notice-info waiting" role="status" aria-label="Waiting for votes">
      <p className="notice-title">
        <strong>Waiting for votes:</strong> {what}
      </p>
      <p>
        It runs once enough approvers agree. They compare this fingerprint with yours before they vote:{' '}
        <code className="fingerprint">{activity.fingerprint}</code>
      </p>
      {possible !== undefined && possible.length > 0 && (
        <p>Who may still vote: {possible.map((voter) => `${voter.userName} (${voter.reasons.join('; ')})`).join(', ')}.</p>
      )}
      {children}
      <div className="button-row start">
        <button type="button" onClick={() => show('approvals')}>
          Open Approvals
        </button>
        {onDismiss !== undefined && (
          <button type="button" className="link-button" onClick={onDismiss}>
            Dismiss
          </button>
        )}
      </div>
    </div>
  );
}
