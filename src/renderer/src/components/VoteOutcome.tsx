/** What the person's last vote did, in words, until they dismiss it (the Approvals queue and the inbox). */
export function VoteOutcome({ outcome, onDismiss }: { outcome: string | undefined; onDismiss: () => void }) {
  if (outcome === undefined) return null;
  return (
    <div className="notice notice-info" role="status" aria-label="Your vote">
      <p className="notice-title">{outcome}</p>
      <button type="button" className="link-button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
