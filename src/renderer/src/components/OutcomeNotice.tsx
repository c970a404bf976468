import type { ChannelOutput } from '../../../shared/ipc/contract';
import { WaitingForVotes } from './WaitingForVotes';

/** What a write that may need votes answered (a policy, an uploaded interface): any activity outcome. */
type WriteOutcome = ChannelOutput<'policies.create'> | ChannelOutput<'contracts.create'> | ChannelOutput<'policies.mfaCreate'>;

/** A write's outcome: done, rejected, or waiting for votes (with who may still vote, as WaitingForVotes names them). */
export function OutcomeNotice({ what, outcome, onDismiss }: { what: string; outcome: WriteOutcome; onDismiss: () => void }) {
  if (outcome.state === 'consensus-needed' || outcome.state === 'pending')
    return <WaitingForVotes what={what} activity={outcome.activity} onDismiss={onDismiss} />;
  return (
    <div className={outcome.state === 'rejected' ? 'notice notice-warning' : 'notice notice-info'} role="status">
      {outcome.state === 'rejected' ? <p className="notice-title">{what} was rejected.</p> : <p className="notice-title">{what}: done.</p>}
      <button type="button" className="link-button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
