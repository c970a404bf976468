import { describe, expect, it } from 'vitest';
import {
  APPROVAL_WINDOW_MS,
  countingApprovals,
  currentApprovalWindow,
  currentVoteOf,
  fingerprintSchema,
  hasCountingApproval,
  tallyVotes,
} from '../../../src/shared/approvals/voting';

const HOUR = 60 * 60 * 1000;

describe('currentApprovalWindow', () => {
  it('has no window before the first approval', () => {
    expect(currentApprovalWindow([], 0)).toBeUndefined();
  });

  it('runs 24 h from the first approval, the last millisecond included; later approvals inside it do not extend it', () => {
    const opened = { openedAtMs: 1_000, closesAtMs: 1_000 + APPROVAL_WINDOW_MS };
    expect(currentApprovalWindow([1_000, 1_000 + 23 * HOUR], 1_000 + APPROVAL_WINDOW_MS)).toEqual(opened);
    expect(currentApprovalWindow([1_000 + 23 * HOUR, 1_000], 1_000 + APPROVAL_WINDOW_MS + 1)).toBeUndefined();
  });

  it('opens the next window at the first approval after one closed, whatever order the times come in', () => {
    const late = 1_000 + APPROVAL_WINDOW_MS + 1;
    expect(currentApprovalWindow([late + HOUR, 1_000, late], late + 2 * HOUR)).toEqual({ openedAtMs: late, closesAtMs: late + APPROVAL_WINDOW_MS });
    // An approval exactly at the close still belongs to the window it closes.
    expect(currentApprovalWindow([0, APPROVAL_WINDOW_MS], APPROVAL_WINDOW_MS)).toEqual({ openedAtMs: 0, closesAtMs: APPROVAL_WINDOW_MS });
  });
});

const APPROVED = 'VOTE_SELECTION_APPROVED' as const;
const REJECTED = 'VOTE_SELECTION_REJECTED' as const;

describe('countingApprovals and hasCountingApproval', () => {
  const votes = [
    { userId: 'proposer', selection: APPROVED, createdAt: 0 },
    { userId: 'late', selection: APPROVED, createdAt: APPROVAL_WINDOW_MS + HOUR },
    { userId: 'naysayer', selection: REJECTED, createdAt: HOUR },
  ];

  it('counts only approvals in the window open now; an approval from an expired window lets its user vote again', () => {
    const firstDay = votes.filter((vote) => vote.userId !== 'late');
    expect(countingApprovals(firstDay, HOUR).map((vote) => vote.userId)).toEqual(['proposer']);
    expect(hasCountingApproval(firstDay, 'proposer', HOUR)).toBe(true);
    expect(hasCountingApproval(firstDay, 'naysayer', HOUR)).toBe(false);
    expect(countingApprovals(votes, APPROVAL_WINDOW_MS + 2 * HOUR).map((vote) => vote.userId)).toEqual(['late']);
    expect(hasCountingApproval(votes, 'proposer', APPROVAL_WINDOW_MS + 2 * HOUR)).toBe(false);
  });

  it('counts nothing once every window has closed', () => {
    expect(countingApprovals(votes, 2 * APPROVAL_WINDOW_MS + 2 * HOUR)).toEqual([]);
  });
});

describe('tallyVotes', () => {
  const at = (hours: number) => hours * HOUR;
  const votes = [
    { userId: 'u2', userName: 'Bea', selection: APPROVED, createdAt: at(30) },
    { userId: 'u1', userName: 'Al', selection: APPROVED, createdAt: at(0) },
    { userId: 'u3', userName: 'Cy', selection: REJECTED, createdAt: at(2) },
  ];

  it('lists each user once in the order of first votes, marks expired approvals, and gives the time left', () => {
    const tally = tallyVotes(votes, at(31));
    expect(tally.voters).toEqual([
      { userId: 'u1', userName: 'Al', selection: 'approved', votedAtMs: at(0), expired: true },
      { userId: 'u3', userName: 'Cy', selection: 'rejected', votedAtMs: at(2), expired: false },
      { userId: 'u2', userName: 'Bea', selection: 'approved', votedAtMs: at(30), expired: false },
    ]);
    expect(tally.approverIds).toEqual(['u2']);
    expect(tally.timeLeftMs).toBe(APPROVAL_WINDOW_MS - HOUR);
    expect(currentVoteOf(tally.voters, 'u1')).toBeUndefined();
    expect(currentVoteOf(tally.voters, 'u2')?.selection).toBe('approved');
    expect(currentVoteOf(tally.voters, undefined)).toBeUndefined();
  });

  it('lets a later vote by the same user replace the earlier one', () => {
    const tally = tallyVotes([...votes, { userId: 'u1', userName: 'Al', selection: APPROVED, createdAt: at(31) }], at(32));
    expect(tally.voters.map((voter) => [voter.userId, voter.expired])).toEqual([
      ['u1', false],
      ['u3', false],
      ['u2', false],
    ]);
    expect(tally.approverIds.sort()).toEqual(['u1', 'u2']);
  });

  it('has no time left when no window is open', () => {
    expect(tallyVotes(votes, at(80))).toMatchObject({ approverIds: [], timeLeftMs: 0 });
  });
});

describe('fingerprintSchema', () => {
  it('takes "sha256:" and 64 lowercase hex digits only', () => {
    expect(fingerprintSchema.safeParse(`sha256:${'ab'.repeat(32)}`).success).toBe(true);
    expect(fingerprintSchema.safeParse(`sha256:${'AB'.repeat(32)}`).success).toBe(false);
    expect(fingerprintSchema.safeParse('ab'.repeat(32)).success).toBe(false);
  });
});
