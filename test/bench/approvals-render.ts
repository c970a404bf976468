/**
 * Approval queue rendering with 10,000 activities: the virtualized list (what the Approvals screen renders) against
 * every row rendered at once, both with react-dom/server's renderToString. The virtualized render must stay a small
 * fraction of the full one; the ratio is the figure to watch, not the milliseconds of this machine.
 */
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { ApprovalList, ApprovalRow, type ApprovalItem } from '../../src/renderer/src/components/ApprovalList.js';
import { describeActivity } from '../../src/shared/describe/index.js';

const ACTIVITIES = 10_000;
const ROUNDS = 3;
const HOUR_MS = 3_600_000;

export interface ApprovalsRenderResult {
  activities: number;
  virtualizedMsMedian: number;
  allRowsMsMedian: number;
  /** virtualized / all rows. */
  ratio: number;
  rowsRenderedVirtualized: number;
}

export async function run(): Promise<ApprovalsRenderResult> {
  const items = syntheticQueue(ACTIVITIES);
  const virtualized = measure(() =>
    renderToString(createElement(ApprovalList, { items, selectedId: undefined, onSelect: () => {}, label: 'Waiting for votes' })),
  );
  const allRows = measure(() =>
    renderToString(
      createElement(
        'ul',
        null,
        items.map((item) =>
          createElement(
            'li',
            { key: item.activityId },
            createElement(ApprovalRow, { item, selected: false, onClick: () => {}, onKeyDown: () => false }),
          ),
        ),
      ),
    ),
  );
  const rowsRenderedVirtualized = (virtualized.html.match(/class="approval-row"/g) ?? []).length;
  if (rowsRenderedVirtualized === 0 || rowsRenderedVirtualized >= ACTIVITIES) {
    throw new Error(`the virtualized list rendered ${rowsRenderedVirtualized} of ${ACTIVITIES} rows; it should render only the rows in view`);
  }
  const result: ApprovalsRenderResult = {
    activities: ACTIVITIES,
    virtualizedMsMedian: virtualized.medianMs,
    allRowsMsMedian: allRows.medianMs,
    ratio: virtualized.medianMs / allRows.medianMs,
    rowsRenderedVirtualized,
  };
  console.log(
    `approvals list, ${ACTIVITIES} activities: virtualized ${result.virtualizedMsMedian.toFixed(1)} ms (${rowsRenderedVirtualized} rows in the DOM), ` +
      `all rows ${result.allRowsMsMedian.toFixed(1)} ms, ratio ${result.ratio.toFixed(3)} (median of ${ROUNDS})`,
  );
  return result;
}

function measure(render: () => string): { medianMs: number; html: string } {
  let html = render(); // warm-up: module init and JIT
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    html = render();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(ROUNDS / 2)]!, html };
}

/** Activities shaped like `approvals.pending` answers: a create-policy intent, the proposer's vote, time left. */
function syntheticQueue(count: number): ApprovalItem[] {
  const now = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, index): ApprovalItem => {
    const createdAtMs = now - (index % 24) * HOUR_MS;
    const userId = `user-${index % 3}`;
    const type = 'ACTIVITY_TYPE_CREATE_POLICY_V3';
    const activity = {
      status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
      intent: {
        createPolicyIntentV3: {
          policyName: `policy ${index}`,
          effect: 'EFFECT_ALLOW',
          condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
        },
      },
    };
    return {
      activityId: `activity-${index}`,
      type,
      fingerprint: `sha256:${index.toString(16).padStart(64, '0')}`,
      createdAtMs,
      approvals: 1,
      proposer: `operator ${index % 3}`,
      voters: [{ userId, userName: `operator ${index % 3}`, selection: 'approved', votedAtMs: createdAtMs, expired: false }],
      timeLeftMs: 24 * HOUR_MS - (index % 24) * HOUR_MS,
      activity,
      // Main reads each activity once; the page renders that reading.
      reading: { ...describeActivity({ type, intent: activity.intent }), kind: 'activity' },
    };
  });
}
