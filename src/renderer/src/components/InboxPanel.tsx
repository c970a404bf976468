import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { activityStatusInWords } from '../../../shared/describe';
import type { ChannelOutput, InboxItemView, InboxProfileView } from '../../../shared/ipc/contract';
import { durationInWords } from '../activity-words';
import { useAction } from '../mutations';
import { useChannel } from '../queries';
import { useUi } from '../store';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';
import { QueryStatus } from './QueryStatus';
import { VoteOutcome } from './VoteOutcome';
import { windowInWords } from './ApprovalList';

type Vote = 'approve' | 'reject';

/** One row: an activity as one profile's user sees it (an activity two of this desktop's users vote on has two rows). */
interface InboxRow {
  profile: InboxProfileView;
  item: InboxItemView;
}

/** The profiles of one organization, under its name. */
interface OrganizationGroup {
  organizationId: string;
  name: string;
  profiles: InboxProfileView[];
}

function groupsOf(profiles: readonly InboxProfileView[]): OrganizationGroup[] {
  const groups = new Map<string, OrganizationGroup>();
  for (const profile of profiles) {
    const group = groups.get(profile.organizationId) ?? {
      organizationId: profile.organizationId,
      name: profile.organizationName ?? profile.organizationId,
      profiles: [],
    };
    if (profile.organizationName !== undefined) group.name = profile.organizationName;
    group.profiles.push(profile);
    groups.set(profile.organizationId, group);
  }
  return [...groups.values()];
}

/** Whether this desktop can vote on it: it waits for this user, and an MFA step it waits for is one this desktop meets. */
function votable(item: InboxItemView): boolean {
  return item.waitingForMe && item.authenticator?.heldHere !== false;
}

/** What waits for a vote, in words: the votes so far, the time left, whose approval completes it. */
function itemFacts(item: InboxItemView): string {
  const mine =
    item.authenticator !== undefined
      ? item.authenticator.headline.toLowerCase()
      : item.waitingForMe
        ? 'waits for your vote'
        : item.proposedByMe
          ? 'you proposed it'
          : 'you voted';
  return `${item.progress} · ${windowInWords(item.timeLeftMs)} · ${mine}`;
}

/**
 * Every profile's inbox, grouped by organization, as main last saw it. j/k or the arrows move, Enter opens the
 * activity on its profile, a and r start a vote with that profile's key, which main's confirmation then asks about.
 */
export function InboxPanel() {
  const inbox = useChannel('inbox.list');
  const action = useAction();
  const openActivity = useUi((state) => state.openActivity);
  const [outcome, setOutcome] = useState<string>();
  const listRef = useRef<HTMLUListElement>(null);
  const groups = groupsOf(inbox.data?.profiles ?? []);
  const rows: InboxRow[] = groups.flatMap((group) => group.profiles.flatMap((profile) => profile.items.map((item) => ({ profile, item }))));

  const open = async ({ profile, item }: InboxRow) => {
    const switched = await action.run(`Switching to ${profile.profileName}…`, 'profiles.setActive', { id: profile.profileId });
    if (switched !== undefined) openActivity({ profileId: profile.profileId, activityId: item.activityId });
  };
  const vote = async ({ profile, item }: InboxRow, choice: Vote) => {
    const done = await action.run(choice === 'approve' ? 'Approving…' : 'Rejecting…', 'inbox.vote', {
      profileId: profile.profileId,
      fingerprint: item.fingerprint,
      vote: choice,
    });
    if (done === undefined) return;
    setOutcome(voteInWords(choice, item, profile, done));
  };
  const focusRow = (index: number) => {
    const buttons = listRef.current?.querySelectorAll<HTMLButtonElement>('button.approval-row-button');
    if (buttons === undefined || buttons.length === 0) return;
    buttons[Math.max(0, Math.min(buttons.length - 1, index))]?.focus();
  };
  // The keys work as soon as the view opens: the first row takes the focus once there is one.
  const hasRows = rows.length > 0;
  useEffect(() => {
    if (hasRows && !listRef.current?.contains(document.activeElement))
      listRef.current?.querySelector<HTMLButtonElement>('button.approval-row-button')?.focus();
  }, [hasRows]);
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const row = rows[index]!;
    const key = event.key;
    if (key === 'j' || key === 'ArrowDown') focusRow(index + 1);
    else if (key === 'k' || key === 'ArrowUp') focusRow(index - 1);
    else if (key === 'Enter') void open(row);
    else if (key === 'a' && votable(row.item)) void vote(row, 'approve');
    else if (key === 'r' && votable(row.item)) void vote(row, 'reject');
    else return;
    event.preventDefault();
  };

  return (
    <section className="panel inbox" aria-label="All profiles">
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} onDismiss={action.clearError} />}
      <VoteOutcome outcome={outcome} onDismiss={() => setOutcome(undefined)} />
      <QueryStatus query={inbox} loading="Reading the inbox…" />
      {inbox.data !== undefined && (
        <p className="hint">
          {inbox.data.waitingForMe === 1 ? '1 approval waits' : `${inbox.data.waitingForMe} approvals wait`} for you across{' '}
          {inbox.data.profiles.length} {inbox.data.profiles.length === 1 ? 'profile' : 'profiles'}. Keys: j/k or arrows move, Enter opens, a approves,
          r rejects (each vote is confirmed in QuorumKey’s own dialog).
        </p>
      )}
      <ul ref={listRef} className="inbox-groups" aria-label="Inbox">
        {groups.map((group) => (
          <li key={group.organizationId}>
            <h2 className="inbox-organization">{group.name}</h2>
            {group.profiles.map((profile) => (
              <section key={profile.profileId} className="inbox-profile" aria-label={`${group.name}, as ${profile.profileName}`}>
                <h3>
                  As {profile.profileName}
                  {profile.checkedAtMs !== undefined && (
                    <span className="muted"> · looked at {new Date(profile.checkedAtMs).toLocaleTimeString()}</span>
                  )}
                </h3>
                {profile.error !== undefined && (
                  <ErrorNotice
                    error={profile.error}
                    during={`Looking at ${profile.profileName}`}
                    next={`QuorumKey looks again at ${new Date(profile.error.retryAtMs).toLocaleTimeString()}, and keeps what it last saw meanwhile.`}
                    warning
                  />
                )}
                {profile.items.length === 0 ? (
                  <p className="empty">Nothing waits here.</p>
                ) : (
                  <ul className="inbox-list" aria-label={`Waiting on ${group.name} as ${profile.profileName}`}>
                    {profile.items.map((item) => {
                      const rowIndex = rows.findIndex((row) => row.item === item && row.profile === profile);
                      return (
                        <li key={item.activityId}>
                          <button
                            type="button"
                            className="approval-row-button"
                            onClick={() => void open({ profile, item })}
                            onKeyDown={(event) => onKeyDown(event, rowIndex)}
                          >
                            <span className="approval-row-main">
                              <strong>
                                {item.title}
                                {item.completesIt && <span className="badge badge-active">your approval completes it</span>}
                                {item.expiringSoon && <span className="badge badge-warning">expires soon</span>}
                              </strong>
                              <span>{item.summary}</span>
                              <span className="muted">{item.requester === undefined ? '' : `by ${item.requester}`}</span>
                              {item.authenticator !== undefined && (
                                <span className="row-warning">
                                  {item.authenticator.headline}
                                  {!item.authenticator.heldHere && `: ${item.authenticator.held}`}
                                </span>
                              )}
                              {item.warnings.length > 0 && (
                                <span className="row-warning">
                                  <span className="badge badge-warning">
                                    {item.warnings.length === 1 ? '1 warning' : `${item.warnings.length} warnings`}
                                  </span>{' '}
                                  {item.warnings[0]}
                                </span>
                              )}
                            </span>
                            <span className="approval-row-side">
                              <span className="muted">{itemFacts(item)}</span>
                            </span>
                          </button>
                          {votable(item) && (
                            <span className="button-row start">
                              <button
                                type="button"
                                className="primary"
                                disabled={action.busy !== undefined}
                                onClick={() => void vote({ profile, item }, 'approve')}
                              >
                                Approve as {profile.profileName}…
                              </button>
                              <button
                                type="button"
                                className="danger"
                                disabled={action.busy !== undefined}
                                onClick={() => void vote({ profile, item }, 'reject')}
                              >
                                Reject…
                              </button>
                            </span>
                          )}
                        </li>
                      );
                    })}
                  </ul>
                )}
                {profile.decided.length > 0 && (
                  <ul className="inbox-decided" aria-label={`Decided on ${group.name} as ${profile.profileName}`}>
                    {profile.decided.map((decided) => (
                      <li key={decided.activityId}>
                        {decided.title}: {activityStatusInWords(decided.status)}
                        <span className="muted"> · {new Date(decided.decidedAtMs).toLocaleTimeString()}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            ))}
          </li>
        ))}
      </ul>
      {groups.some((group) => group.profiles.some((profile) => profile.decided.length > 0)) && (
        <button type="button" onClick={() => void action.run('Clearing…', 'inbox.clearDecided')}>
          Clear decided proposals
        </button>
      )}
    </section>
  );
}

function voteInWords(choice: Vote, item: InboxItemView, profile: InboxProfileView, after: ChannelOutput<'inbox.vote'>): string {
  const as = `as ${profile.profileName}`;
  if (choice === 'reject') return `Rejected ${as}: ${item.title} is ${activityStatusInWords(after.status).toLowerCase()}.`;
  const left = after.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' && after.timeLeftMs > 0 ? ` (${durationInWords(after.timeLeftMs)} left)` : '';
  return `Approved ${as}: ${item.title} is ${activityStatusInWords(after.status).toLowerCase()}${left}.`;
}
