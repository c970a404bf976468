/**
 * The approval window and whose votes count (docs/service.md#fingerprint-idempotency-and-votes,
 * docs/service.md#consensus), in one place for the service (which decides by it), main (which reports it) and the
 * screens (which show it).
 *
 * The proposer's submission is the first approval and opens a window of 24 hours; approvals that have not reached
 * consensus when it closes expire, and the activity stays CONSENSUS_NEEDED. The next approval after that opens a new
 * window, and voters whose approvals expired approve again. A user whose approval counts in the open window has voted
 * and may not vote again in it.
 */
import { z } from 'zod';

/** An activity's fingerprint, by which votes name it: "sha256:" and the hex SHA-256 of its exact request body. */
export const fingerprintSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, { error: 'expected "sha256:" followed by 64 lowercase hex digits' });

export const APPROVAL_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Statuses of an activity still waiting for approvals: votes (CONSENSUS_NEEDED), or an approval that meets a voter's
 * MFA step (AUTHENTICATORS_NEEDED, docs/service.md#mfa-policies). Both take `approve_activity` and `reject_activity`.
 */
export const WAITING_STATUSES = ['ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED'] as const;

export function isWaitingForApprovals(status: string): boolean {
  return (WAITING_STATUSES as readonly string[]).includes(status);
}

export interface ApprovalWindow {
  openedAtMs: number;
  closesAtMs: number;
}

/** A vote as the service records it, reduced to what the window rule reads. */
export interface RecordedVote {
  userId: string;
  selection: 'VOTE_SELECTION_APPROVED' | 'VOTE_SELECTION_REJECTED';
  /** Milliseconds since the epoch. */
  createdAt: number;
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

function approvalWindowOf(votes: readonly RecordedVote[], nowMs: number): ApprovalWindow | undefined {
  return currentApprovalWindow(
    votes.filter((vote) => vote.selection === 'VOTE_SELECTION_APPROVED').map((vote) => vote.createdAt),
    nowMs,
  );
}

/** The approvals that count at `nowMs`: those given in the window open then (none when every approval expired). */
export function countingApprovals<V extends RecordedVote>(votes: readonly V[], nowMs: number): V[] {
  const window = approvalWindowOf(votes, nowMs);
  if (window === undefined) return [];
  return votes.filter((vote) => vote.selection === 'VOTE_SELECTION_APPROVED' && vote.createdAt >= window.openedAtMs);
}

/** Whether `userId` has an approval that counts at `nowMs`, and so has voted in the open window. */
export function hasCountingApproval(votes: readonly RecordedVote[], userId: string, nowMs: number): boolean {
  return countingApprovals(votes, nowMs).some((vote) => vote.userId === userId);
}

/** One user's standing vote on an activity, as main reports it and the screens show it. */
export const voterSchema = z.strictObject({
  userId: z.string(),
  userName: z.string(),
  selection: z.enum(['approved', 'rejected']),
  /** Milliseconds since the epoch. */
  votedAtMs: z.number().int().nonnegative(),
  /** An approval given in an approval window that has closed: it no longer counts, and the voter may approve again. */
  expired: z.boolean(),
});
export type Voter = z.infer<typeof voterSchema>;

/** Where an activity's votes stand at one moment. */
export interface VoteTally {
  /**
   * One entry per user in the order of their first votes, the proposer first (a later vote by the same user replaces
   * the earlier one's selection and time), each approval marked expired unless it counts.
   */
  voters: Voter[];
  /** Distinct users whose approvals count. */
  approverIds: string[];
  /** Until the approvals that count expire; 0 when no window is open (the next approval opens one). */
  timeLeftMs: number;
}

export function tallyVotes(votes: readonly (RecordedVote & { userName: string })[], nowMs: number): VoteTally {
  const window = approvalWindowOf(votes, nowMs);
  const byUser = new Map<string, Voter>();
  for (const vote of [...votes].sort((a, b) => a.createdAt - b.createdAt)) {
    const approved = vote.selection === 'VOTE_SELECTION_APPROVED';
    byUser.set(vote.userId, {
      userId: vote.userId,
      userName: vote.userName,
      selection: approved ? 'approved' : 'rejected',
      votedAtMs: vote.createdAt,
      expired: approved && (window === undefined || vote.createdAt < window.openedAtMs),
    });
  }
  const voters = [...byUser.values()];
  return {
    voters,
    approverIds: voters.filter((voter) => voter.selection === 'approved' && !voter.expired).map((voter) => voter.userId),
    timeLeftMs: window === undefined ? 0 : Math.max(0, window.closesAtMs - nowMs),
  };
}

/** `userId`'s vote that still counts, if any: after an expired approval the user votes again. */
export function currentVoteOf(voters: readonly Voter[], userId: string | undefined): Voter | undefined {
  return userId === undefined ? undefined : voters.find((voter) => voter.userId === userId && !voter.expired);
}
