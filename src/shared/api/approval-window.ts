/**
 * The approval window (docs/service.md#fingerprint-idempotency-and-votes, docs/service.md#consensus): the proposer's
 * submission is the first approval and opens a window of 24 hours; approvals that have not reached consensus when it
 * closes expire, and the activity stays CONSENSUS_NEEDED. The next approval after that opens a new window, and voters
 * whose approvals expired approve again. The service counts votes by this rule and the app shows them by it, so both
 * use this one function.
 */
export const APPROVAL_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface ApprovalWindow {
  openedAtMs: number;
  closesAtMs: number;
}

/**
 * The window the approvals given at `approvalTimesMs` (milliseconds, any order) are gathering in at `nowMs`, or
 * undefined when there is none: no approval yet, or every approval so far has expired. An approval counts while
 * it was given at or after `openedAtMs` and `nowMs` is at most `closesAtMs`.
 */
export function currentApprovalWindow(approvalTimesMs: readonly number[], nowMs: number): ApprovalWindow | undefined {
  let openedAtMs: number | undefined;
  for (const time of [...approvalTimesMs].sort((a, b) => a - b)) {
    if (openedAtMs === undefined || time > openedAtMs + APPROVAL_WINDOW_MS) openedAtMs = time;
  }
  if (openedAtMs === undefined || nowMs > openedAtMs + APPROVAL_WINDOW_MS) return undefined;
  return { openedAtMs, closesAtMs: openedAtMs + APPROVAL_WINDOW_MS };
}
