import { useChannel } from '../queries';

/**
 * Main's warning that the people the policies ask to approve are also enough for the root quorum, so the policies
 * protect nothing against them (src/main/policies/quorum-overlap.ts); nothing when they are not.
 */
export function RootQuorumOverlapNotice() {
  const overlap = useChannel('organization.lookup').data?.rootQuorumOverlap;
  if (overlap === undefined) return null;
  return (
    <div className="notice notice-warning" role="note" aria-label="The policies and the root quorum">
      <p className="notice-title">The policies protect nothing against the root quorum</p>
      <p>{overlap}</p>
    </div>
  );
}
