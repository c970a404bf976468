import type { VoteReadingView } from '../../../shared/ipc/readings';

type PossibleVoter = VoteReadingView['stillToVote'][number];

/** Who may still vote on an open activity, by name and why; it shrinks as votes come in. */
export function StillToVoteList({ possible }: { possible: readonly PossibleVoter[] }) {
  return (
    <>
      <h3 id="still-to-vote-title">Still to vote</h3>
      {possible.length === 0 ? (
        <p className="empty">Nobody else is known to be able to vote on this.</p>
      ) : (
        <ul className="voters" aria-labelledby="still-to-vote-title">
          {possible.map((voter) => (
            <li key={voter.userId}>
              {voter.userName} <span className="muted">· {voter.reasons.join('; ')}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
