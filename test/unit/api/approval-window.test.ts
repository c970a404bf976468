import { describe, expect, it } from 'vitest';
import { APPROVAL_WINDOW_MS, currentApprovalWindow } from '../../../src/shared/api/approval-window';

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
