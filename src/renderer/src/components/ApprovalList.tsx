import { useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { isWaitingForApprovals, type Voter } from '../../../shared/approvals/voting';
import { activityStatusInWords } from '../../../shared/describe';
import type { ActivityReadingView } from '../../../shared/ipc/readings';
import { durationInWords } from '../activity-words';

/** How long the open approval window has left, or that the approvals expired (the next approval opens a window). */
export function windowInWords(timeLeftMs: number): string {
  return timeLeftMs > 0 ? `${durationInWords(timeLeftMs)} left` : 'approvals expired';
}

/** One activity as the approval queue shows it: what `approvals.pending` answers, and history entries mapped to it. */
export interface ApprovalItem {
  activityId: string;
  type: string;
  fingerprint: string;
  createdAtMs: number;
  /** Distinct users whose approvals count now, as main counted them. */
  approvals: number;
  /** Who proposed it, as main names them. */
  proposer?: string | undefined;
  /** The recorded votes, listed as they are. */
  voters: Voter[];
  timeLeftMs: number;
  activity: { intent: Record<string, unknown>; status: string };
  /** What it asks for, read in main: the row, the detail and the vote dialog all show this one reading. */
  reading: ActivityReadingView;
}

const ROW_HEIGHT = 64;
/** A row that also says "Large transfer: …" in full, on up to two more lines. */
const ROW_WITH_LARGE_VALUE_HEIGHT = 104;

/**
 * The queue as one scrolling list that renders only the rows in view, so 10,000 activities cost what 20 do.
 * Rows are buttons in a list; arrow keys move between them, Enter opens one.
 */
export function ApprovalList({
  items,
  selectedId,
  onSelect,
  label,
  height = 420,
}: {
  items: readonly ApprovalItem[];
  selectedId: string | undefined;
  onSelect: (item: ApprovalItem) => void;
  label: string;
  height?: number;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // The virtualizer answers the rows in view from methods of one unchanging object, so React's compiler must not
  // memoize this component; the rule stays on so that any other such call site is acknowledged in its own diff.
  // eslint-disable-next-line react-hooks/incompatible-library -- this component is left unmemoized, as it must be
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => (items[index]?.reading.largeValue === undefined ? ROW_HEIGHT : ROW_WITH_LARGE_VALUE_HEIGHT),
    overscan: 8,
    // Without a measured element (first frame, server render) assume the list's own height.
    initialRect: { width: 800, height },
  });

  const focusRow = (index: number) => {
    const bounded = Math.max(0, Math.min(items.length - 1, index));
    virtualizer.scrollToIndex(bounded, { align: 'auto' });
    // The row exists only once the virtualizer has rendered it.
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLButtonElement>(`[data-index="${bounded}"] button`)?.focus());
  };

  return (
    <div ref={scrollRef} className="approval-scroll" style={{ height }}>
      <ul className="approval-list" style={{ height: virtualizer.getTotalSize() }} aria-label={label}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index]!;
          return (
            <li
              key={item.activityId}
              // Measured once drawn: the estimate below is a guess, and a wrapped warning makes a row taller.
              ref={virtualizer.measureElement}
              data-index={row.index}
              aria-setsize={items.length}
              aria-posinset={row.index + 1}
              className="approval-row"
              style={{ transform: `translateY(${row.start}px)` }}
            >
              <ApprovalRow
                item={item}
                selected={item.activityId === selectedId}
                onClick={() => onSelect(item)}
                onKeyDown={(key) => {
                  if (key === 'ArrowDown') focusRow(row.index + 1);
                  else if (key === 'ArrowUp') focusRow(row.index - 1);
                  else if (key === 'Home') focusRow(0);
                  else if (key === 'End') focusRow(items.length - 1);
                  else return false;
                  return true;
                }}
              />
            </li>
          );
        })}
      </ul>
    </div>
  );
}

export function ApprovalRow({
  item,
  selected,
  onClick,
  onKeyDown,
}: {
  item: ApprovalItem;
  selected: boolean;
  onClick: () => void;
  onKeyDown: (key: string) => boolean;
}) {
  const description = item.reading;
  const requester = item.proposer;
  const myVote = description.vote?.viewerVote;
  const pending = isWaitingForApprovals(item.activity.status);
  const authenticator = description.vote?.authenticators;
  return (
    <button
      type="button"
      className="approval-row-button"
      aria-pressed={selected}
      onClick={onClick}
      onKeyDown={(event) => {
        if (onKeyDown(event.key)) event.preventDefault();
      }}
    >
      <span className="approval-row-main">
        <strong>
          {description.title}
          {description.warnings.length > 0 && (
            <span className="badge badge-warning">{description.warnings.length === 1 ? 'warning' : `${description.warnings.length} warnings`}</span>
          )}
        </strong>
        <span className="muted">
          {requester === undefined ? '' : `by ${requester}`}
          {requester !== undefined && description.summary !== '' && ' · '}
          {description.summary}
        </span>
        {description.largeValue !== undefined && <span className="row-warning">{description.largeValue}</span>}
        {authenticator !== undefined && <span className="row-warning">{authenticator.headline}</span>}
      </span>
      <span className="approval-row-side">
        <span className="votes">{votesInWords(item)}</span>
        <span className="muted">
          {pending ? windowInWords(item.timeLeftMs) : activityStatusInWords(item.activity.status)}
          {myVote !== undefined && ` · you ${myVote}`}
        </span>
      </span>
    </button>
  );
}

/** Main's "1 of 2 approved" while it takes votes; once decided, the approvals it had. */
export function votesInWords(item: Pick<ApprovalItem, 'approvals' | 'reading'>): string {
  return item.reading.vote?.progress ?? `${item.approvals} approved`;
}
