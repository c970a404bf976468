import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { activityOperations } from '../../../shared/api/activities';
import type { ActivityType } from '../../../shared/api/activity-types';
import { APPROVAL_WINDOW_MS, isWaitingForApprovals } from '../../../shared/approvals/voting';
import { activityStatusInWords, activityTypeInWords } from '../../../shared/describe';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import type { VoteReadingView } from '../../../shared/ipc/readings';
import { exportedKindOf } from '../../../shared/offline/export-file';
import { durationInWords } from '../activity-words';
import { ActivityDescriptionView } from '../components/ActivityDescription';
import { ApprovalList, votesInWords, type ApprovalItem } from '../components/ApprovalList';
import { FileNameField } from '../components/TextFields';
import { ErrorNotice } from '../components/ErrorNotice';
import { SignedResult } from '../components/SignedResult';
import { InboxPanel } from '../components/InboxPanel';
import { Modal } from '../components/Modal';
import { SecretReveal, type RevealedSecret } from '../components/SecretReveal';
import { SigningCardLoader } from '../components/SigningCard';
import { StillToVoteList } from '../components/StillToVoteList';
import { VoteOutcome } from '../components/VoteOutcome';
import { Progress } from '../components/Progress';
import { QueryStatus } from '../components/QueryStatus';
import { useAction, type Action } from '../mutations';
import { useActiveProfile, useActivityHistory, useChannel, useInvalidate } from '../queries';
import { useUi } from '../store';

type Vote = 'approve' | 'reject';
type ActivityView = ChannelOutput<'activities.list'>[number];
type ActivityStatus = ActivityView['status'];

/** The types the service accepts, by their words, for the history filter. */
const FILTER_TYPES = Object.values(activityOperations)
  .map((op) => op.activityType as ActivityType)
  .sort((a, b) => activityTypeInWords(a).localeCompare(activityTypeInWords(b)));

type View = 'pending' | 'history' | 'inbox';

/** "24 h": the window's length in the same words as the time left in it. */
const APPROVAL_WINDOW_WORDS = durationInWords(APPROVAL_WINDOW_MS);

const HISTORY_STATUSES: readonly ActivityStatus[] = [
  'ACTIVITY_STATUS_CONSENSUS_NEEDED',
  'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED',
  'ACTIVITY_STATUS_COMPLETED',
  'ACTIVITY_STATUS_REJECTED',
  'ACTIVITY_STATUS_FAILED',
  'ACTIVITY_STATUS_PENDING',
];

/** A history entry in the queue's shape (no quorum): main counted its approvals and window on its own clock. */
function historyItem(activity: ActivityView): ApprovalItem {
  return {
    activityId: activity.id,
    type: activity.type,
    fingerprint: activity.fingerprint,
    createdAtMs: activity.createdAtMs,
    approvals: activity.approvals,
    proposer: activity.proposer,
    voters: activity.voters,
    timeLeftMs: activity.timeLeftMs,
    activity,
    reading: activity.reading,
  };
}

/**
 * Activities that need votes from the organization's quorum, their votes so far, and the history of decisions. Kept
 * current by main's activity events: a proposal or a vote made anywhere shows here without a Refresh.
 */
export function ApprovalsScreen() {
  const [view, setView] = useState<View>('pending');
  const [statusFilter, setStatusFilter] = useState<ActivityStatus | ''>('');
  const [typeFilter, setTypeFilter] = useState<ActivityType | ''>('');
  // Main names each activity's proposer from its votes, so this filter narrows the loaded pages.
  const [requesterFilter, setRequesterFilter] = useState('');
  const [voteResult, setVoteResult] = useState<string>();
  const [selectedId, setSelectedId] = useState<string>();
  const action = useAction();
  const invalidate = useInvalidate();
  const me = useChannel('approvals.whoami');
  const pending = useChannel('approvals.pending');
  // Filtered by the service, so a filter reaches past the newest page; a new filter is a new query.
  const history = useActivityHistory({
    ...(statusFilter === '' ? {} : { status: [statusFilter] }),
    ...(typeFilter === '' ? {} : { type: [typeFilter] }),
  });
  const historyItems = useMemo(() => history.data?.pages.flat().map(historyItem), [history.data]);

  const shown = view === 'history' ? history : pending;
  const requesters = useMemo(() => [...new Set((historyItems ?? []).map((item) => item.proposer ?? 'unknown'))].sort(), [historyItems]);
  const items: readonly ApprovalItem[] =
    (view === 'pending'
      ? pending.data
      : historyItems?.filter((item) => requesterFilter === '' || (item.proposer ?? 'unknown') === requesterFilter)) ?? [];
  const selected = items.find((item) => item.activityId === selectedId);

  // An activity asked for from outside this screen (a notification, the inbox): shown once its profile is active and
  // that profile's queue is read; in the queue while it waits, in the history once decided.
  const activityToOpen = useUi((state) => state.activityToOpen);
  const activityOpened = useUi((state) => state.activityOpened);
  const activeProfileId = useActiveProfile()?.id;
  const [opened, setOpened] = useState<typeof activityToOpen>();
  if (activityToOpen !== undefined && activityToOpen !== opened && activityToOpen.profileId === activeProfileId && pending.data !== undefined) {
    setOpened(activityToOpen);
    setView(pending.data.some((item) => item.activityId === activityToOpen.activityId) ? 'pending' : 'history');
    setSelectedId(activityToOpen.activityId);
  }
  useEffect(() => {
    if (opened !== undefined) activityOpened();
  }, [opened, activityOpened]);

  // The Refresh button's; what this screen's writes change is marked stale by their table (mutations.ts).
  const reload = () => invalidate('approvals.pending', 'activities.list', 'organization.lookup', 'inbox.list');

  // The page only asks: main shows its own confirmation, restating its reading of the activity, before it stamps.
  const castVote = async (vote: Vote, item: ApprovalItem) => {
    const fingerprint = item.fingerprint;
    const done =
      vote === 'approve'
        ? await action.run('Approving…', 'approvals.approve', { fingerprint })
        : await action.run('Rejecting…', 'approvals.reject', { fingerprint });
    if (done === undefined) return;
    // Main reports the vote it cast as an activity event, which makes the queue and the history stale: reading them
    // here too would ask main, and the service, twice.
    setVoteResult(voteOutcomeInWords(vote, done, item.reading.title));
  };

  return (
    <section className="screen" aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      <p className="lead">Activities that need votes from the organization’s quorum. A vote is bound to the activity’s fingerprint.</p>
      <Progress label={action.busy ?? (history.isFetchingNextPage ? 'Loading older activities…' : undefined)} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      <VoteOutcome outcome={voteResult} onDismiss={() => setVoteResult(undefined)} />

      <div className="toolbar">
        <div role="group" aria-label="Which activities" className="segmented">
          <button type="button" aria-pressed={view === 'pending'} onClick={() => setView('pending')}>
            Waiting for votes{pending.data !== undefined && ` (${pending.data.length})`}
          </button>
          <button type="button" aria-pressed={view === 'history'} onClick={() => setView('history')}>
            History
          </button>
          <button type="button" aria-pressed={view === 'inbox'} onClick={() => setView('inbox')}>
            All profiles
          </button>
        </div>
        {view === 'history' && (
          <>
            <label className="inline-label">
              Status
              <select value={statusFilter} onChange={(event) => setStatusFilter(event.target.value as ActivityStatus | '')}>
                <option value="">Any status</option>
                {HISTORY_STATUSES.map((status) => (
                  <option key={status} value={status}>
                    {activityStatusInWords(status)}
                  </option>
                ))}
              </select>
            </label>
            <label className="inline-label">
              Type
              <select value={typeFilter} onChange={(event) => setTypeFilter(event.target.value as ActivityType | '')}>
                <option value="">Any type</option>
                {FILTER_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {activityTypeInWords(type)}
                  </option>
                ))}
              </select>
            </label>
            <label className="inline-label">
              Requester
              <select value={requesterFilter} onChange={(event) => setRequesterFilter(event.target.value)}>
                <option value="">Anyone</option>
                {requesters.map((requester) => (
                  <option key={requester} value={requester}>
                    {requester}
                  </option>
                ))}
              </select>
            </label>
          </>
        )}
        <button type="button" onClick={reload} disabled={shown.isFetching}>
          Refresh
        </button>
      </div>

      {view === 'inbox' ? (
        <InboxPanel />
      ) : (
        <div className="approvals-layout">
          <section className="panel" aria-label={view === 'pending' ? 'Waiting for votes' : 'History'}>
            <QueryStatus query={shown} loading="Loading activities…" />
            {shown.data !== undefined && items.length === 0 && (
              <p className="empty">{view === 'pending' ? 'Nothing is waiting for votes.' : 'No activities match these filters.'}</p>
            )}
            {view === 'history' && items.length > 0 && <HistoryTotals items={items} />}
            {items.length > 0 && (
              <ApprovalList
                items={items}
                selectedId={selectedId}
                onSelect={(item) => setSelectedId(item.activityId)}
                label={view === 'pending' ? 'Activities waiting for votes' : 'Activity history'}
              />
            )}
            {view === 'history' && items.length > 0 && (
              <p className="list-end">
                {!history.hasNextPage ? (
                  `${items.length} ${items.length === 1 ? 'activity' : 'activities'}, the oldest included.`
                ) : (
                  <button type="button" onClick={() => void history.fetchNextPage()} disabled={history.isFetchingNextPage}>
                    Load older activities
                  </button>
                )}
              </p>
            )}
          </section>
          {selected === undefined ? (
            <section className="panel empty">Choose an activity to see what it asks for and who voted.</section>
          ) : (
            <ApprovalDetail
              item={selected}
              myUserId={me.data?.userId}
              busy={action.busy !== undefined}
              onVote={(vote) => void castVote(vote, selected)}
            />
          )}
        </div>
      )}

      {view !== 'inbox' && (
        <OfflineStamping
          action={action}
          fingerprint={selected !== undefined && isWaitingForApprovals(selected.activity.status) ? selected.fingerprint : undefined}
        />
      )}
    </section>
  );
}

function ApprovalDetail({
  item,
  myUserId,
  busy,
  onVote,
}: {
  item: ApprovalItem;
  myUserId: string | undefined;
  busy: boolean;
  onVote: (vote: Vote) => void;
}) {
  const description = item.reading;
  const requester = item.proposer;
  const myVote = description.vote?.viewerVote;
  const open = isWaitingForApprovals(item.activity.status);
  const authenticator = description.vote?.authenticators;
  return (
    <section className="panel approval-detail" aria-labelledby="approval-detail-title">
      <h2 id="approval-detail-title">{description.title}</h2>
      {/* A signing request reads in full on its card (nested facts, the policies' standing); main read the
          row's title and the card's with the same context, so they cannot differ. Shown anew once the list reads the
          activity in another status: the event that decided it left the card stale without reading it (queries.ts). */}
      {description.kind === 'signing' ? (
        <SigningCardLoader key={item.activity.status} activityId={item.activityId} />
      ) : (
        <ActivityDescriptionView description={description} />
      )}
      <dl className="facts">
        <dt>Requested by</dt>
        <dd>{requester ?? 'unknown'}</dd>
        <dt>Status</dt>
        <dd>{activityStatusInWords(item.activity.status)}</dd>
        <dt>Votes</dt>
        <dd>{votesInWords(item)}</dd>
        {open && (
          <>
            <dt>Time left</dt>
            <dd>
              {item.timeLeftMs > 0
                ? `${durationInWords(item.timeLeftMs)} of the ${APPROVAL_WINDOW_WORDS} window`
                : `none: the approvals expired; the next approval opens a new ${APPROVAL_WINDOW_WORDS} window`}
            </dd>
          </>
        )}
        <dt>Requested</dt>
        <dd>
          <time dateTime={new Date(item.createdAtMs).toISOString()}>{new Date(item.createdAtMs).toLocaleString()}</time>
        </dd>
        <dt>Fingerprint</dt>
        <dd>
          <code className="fingerprint">{item.fingerprint}</code>
        </dd>
      </dl>
      {item.activity.status === 'ACTIVITY_STATUS_COMPLETED' && description.kind === 'signing' && <CompletedSignature activityId={item.activityId} />}
      {item.activity.status === 'ACTIVITY_STATUS_COMPLETED' && exportedKindOf(item.type) !== undefined && (
        <ExportActions
          activityId={item.activityId}
          localKeyName={description.exports?.target.localKeyName}
          fingerprint={description.exports?.target.fingerprint}
        />
      )}
      {open && description.vote !== undefined && <YourVote vote={description.vote} signing={description.kind === 'signing'} />}
      <h3>Who voted</h3>
      {item.voters.length === 0 ? (
        <p className="empty">No votes yet.</p>
      ) : (
        <ul className="voters" aria-label="Votes">
          {item.voters.map((voter) => (
            <li key={voter.userId}>
              <span className={voter.selection === 'approved' && !voter.expired ? 'badge badge-active' : 'badge badge-warning'}>
                {voter.expired ? 'approval expired' : voter.selection}
              </span>{' '}
              {voter.userName || voter.userId}
              {voter.userId === myUserId && ' (you)'}{' '}
              <time className="muted" dateTime={new Date(voter.votedAtMs).toISOString()}>
                {new Date(voter.votedAtMs).toLocaleString()}
              </time>
            </li>
          ))}
        </ul>
      )}
      {open && authenticator !== undefined ? (
        <AuthenticatorStep step={authenticator} busy={busy} onApprove={() => onVote('approve')} />
      ) : (
        open &&
        (myVote !== undefined ? (
          <p className="notice notice-info" role="status">
            You already voted: you {myVote} this activity.
          </p>
        ) : (
          <div className="button-row start">
            <button type="button" className="primary" disabled={busy} onClick={() => onVote('approve')}>
              Approve…
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => onVote('reject')}>
              Reject…
            </button>
          </div>
        ))
      )}
    </section>
  );
}

/**
 * The viewer's MFA step the activity waits for, in main's words: which policy, which credential, and whether this
 * desktop holds one that meets it. Only then is an approval offered; main's confirmation says which step it is.
 */
function AuthenticatorStep({
  step,
  busy,
  onApprove,
}: {
  step: NonNullable<VoteReadingView['authenticators']>;
  busy: boolean;
  onApprove: () => void;
}) {
  return (
    <section aria-labelledby="authenticator-step-title">
      <h3 id="authenticator-step-title">{step.headline}</h3>
      <dl className="facts">
        <dt>MFA policy</dt>
        <dd>{step.policy}</dd>
        <dt>Steps met</dt>
        <dd>
          {step.stepsMet} of {step.steps}
        </dd>
        <dt>Credential</dt>
        <dd>{step.credential}</dd>
        <dt>On this desktop</dt>
        <dd>{step.held}</dd>
      </dl>
      {step.heldHere ? (
        <div className="button-row start">
          <button type="button" className="primary" disabled={busy} onClick={onApprove}>
            {step.approveLabel}
          </button>
        </div>
      ) : (
        <p className="notice notice-info" role="status">
          {step.approvalIs}
        </p>
      )}
    </section>
  );
}

/** A completed signing request's signature, where its requester finds it again: main reads it from the activity. */
function CompletedSignature({ activityId }: { activityId: string }) {
  const signed = useChannel('signing.result', { activityId });
  return (
    <section className="export-actions" aria-labelledby="signature-title">
      <h3 id="signature-title">The signature</h3>
      <QueryStatus query={signed} loading="Reading the signature…" />
      {signed.data?.result !== undefined && <SignedResult activityId={activityId} result={signed.data.result} />}
    </section>
  );
}

/**
 * An approved export, from its approval or history row: open it here with the export key it is sealed to, or save
 * the signed bundle to a file for the offline desktop.
 */
function ExportActions({
  activityId,
  localKeyName,
  fingerprint,
}: {
  activityId: string;
  localKeyName: string | undefined;
  fingerprint: string | undefined;
}) {
  const action = useAction();
  const [secret, setSecret] = useState<RevealedSecret>();
  const [file, setFile] = useState(`export-${activityId.slice(0, 8)}.json`);
  const [saved, setSaved] = useState<{ file: string; folder: string }>();
  const hide = useCallback(() => setSecret(undefined), []);
  const open = async () => {
    if (localKeyName === undefined) return;
    const result = await action.run('Opening the bundle…', 'exports.reveal', {
      subject: { kind: 'completed-export', activityId },
      target: { kind: 'encryption-key', name: localKeyName },
    });
    if (result?.state === 'revealed') setSecret(result.secret);
  };
  const save = async (event: FormEvent) => {
    event.preventDefault();
    const done = await action.run(`Saving the bundle to ${file}…`, 'exports.saveBundle', { activityId, file });
    if (done !== undefined) setSaved({ file: done.file, folder: done.exportsDir });
  };
  return (
    <section className="export-actions" aria-labelledby="export-actions-title">
      <h3 id="export-actions-title">The exported bundle</h3>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {localKeyName === undefined ? (
        <p className="hint">
          It is sealed to a key this desktop does not hold{fingerprint === undefined ? '' : ` (${fingerprint})`}: save it and open it where that key
          is.
        </p>
      ) : (
        <button type="button" className="primary" onClick={() => void open()} disabled={action.busy !== undefined}>
          Open the bundle
        </button>
      )}
      <form className="inline-form" aria-label="Save bundle to file" onSubmit={(event) => void save(event)}>
        <FileNameField label="File name" value={file} onChange={setFile} />
        <button type="submit" disabled={action.busy !== undefined}>
          Save bundle to file
        </button>
      </form>
      {saved !== undefined && (
        <p className="notice notice-info" role="status">
          Saved to <code>{saved.file}</code>. It holds the sealed bundle, nothing readable without the key: copy it to the offline desktop and open it
          on its Offline decrypt screen.
        </p>
      )}
      {secret !== undefined && (
        <Modal title="The exported secret" onClose={hide}>
          <SecretReveal secret={secret} subject="the exported wallet or key" onHide={hide} />
        </Modal>
      )}
    </section>
  );
}

/**
 * Main's one answer on an activity waiting for votes: the policies' verdict, what it still needs, who may still vote
 * (a signing request's card lists them already), and what this user's approval or rejection would do.
 */
function YourVote({ vote, signing }: { vote: VoteReadingView; signing: boolean }) {
  return (
    <section aria-labelledby="your-vote-title">
      <h3 id="your-vote-title">Your vote</h3>
      {vote.warnings.map((warning) => (
        <p key={warning} className="notice notice-warning">
          {warning}
        </p>
      ))}
      <dl className="facts">
        <dt>Voting as</dt>
        <dd>{vote.voter}</dd>
        {vote.awaitedAuthenticators !== undefined && (
          <>
            <dt>Waits for</dt>
            <dd>{vote.awaitedAuthenticators.join('; ')}</dd>
          </>
        )}
        <dt>Policy verdict</dt>
        <dd>{vote.verdict}</dd>
        <dt>Still needs</dt>
        <dd>{vote.stillNeeded}</dd>
        <dt>If you approve</dt>
        <dd>{vote.approveDoes}</dd>
        <dt>If you reject</dt>
        <dd>{vote.rejectDoes}</dd>
      </dl>
      {!signing && <StillToVoteList possible={vote.stillToVote} />}
    </section>
  );
}

/**
 * What a vote did, from the activity as the service answered it: "Approved — Export a wallet is done." What it still
 * needs is main's reading, in the list's row and the detail's "Still needs".
 */
export function voteOutcomeInWords(vote: Vote, after: ChannelOutput<'approvals.approve'>, title: string): string {
  if (vote === 'reject') {
    return after.status === 'ACTIVITY_STATUS_REJECTED'
      ? `Rejected — ${title} will not run.`
      : 'Rejection recorded — the activity is still waiting for votes.';
  }
  switch (after.status) {
    case 'ACTIVITY_STATUS_COMPLETED':
      return `Approved — ${title} is done.`;
    case 'ACTIVITY_STATUS_FAILED':
      return `Approved, but ${title} failed: ${after.failure?.message ?? 'the service gave no reason'}.`;
    case 'ACTIVITY_STATUS_CONSENSUS_NEEDED':
      return `Approved — ${after.approvals} approved so far; it still waits for votes.`;
    case 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED':
      return 'Approved — it still waits for an MFA step.';
    default:
      return `Approved — the activity is ${activityStatusInWords(after.status).toLowerCase()}.`;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;
const TOTAL_COLUMNS: readonly [label: string, counts: (item: ApprovalItem) => boolean][] = [
  ['Approved', (item) => item.activity.status === 'ACTIVITY_STATUS_COMPLETED'],
  ['Rejected', (item) => item.activity.status === 'ACTIVITY_STATUS_REJECTED'],
  ['Failed', (item) => item.activity.status === 'ACTIVITY_STATUS_FAILED'],
  ['Expired', (item) => isWaitingForApprovals(item.activity.status) && item.timeLeftMs === 0],
  ['Waiting', (item) => isWaitingForApprovals(item.activity.status) && item.timeLeftMs > 0],
];

/** Totals per period of the history loaded so far (main's window rule decides which approvals expired). */
function HistoryTotals({ items }: { items: readonly ApprovalItem[] }) {
  const newest = Math.max(...items.map((item) => item.createdAtMs));
  const periods: readonly [label: string, items: readonly ApprovalItem[]][] = [
    ['Last 24 hours', items.filter((item) => item.createdAtMs > newest - DAY_MS)],
    ['Last 7 days', items.filter((item) => item.createdAtMs > newest - 7 * DAY_MS)],
    ['All shown', items],
  ];
  return (
    <table className="data-table totals">
      <caption>Totals of the activities shown, counted back from the newest</caption>
      <thead>
        <tr>
          <th scope="col">Period</th>
          {TOTAL_COLUMNS.map(([label]) => (
            <th scope="col" key={label}>
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {periods.map(([label, inPeriod]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            {TOTAL_COLUMNS.map(([column, counts]) => (
              <td key={column}>{inPeriod.filter(counts).length}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Votes for machines without network: stamp an approval into a file here, post that file from a connected machine. */
function OfflineStamping({ action, fingerprint }: { action: Action; fingerprint: string | undefined }) {
  const [saveFile, setSaveFile] = useState('');
  const [postFile, setPostFile] = useState('');
  const [saved, setSaved] = useState<{ file: string; folder: string }>();

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (fingerprint === undefined) return;
    const file = saveFile;
    const done = await action.run(`Stamping the approval into ${file}…`, 'approvals.stampToFile', { fingerprint, file });
    if (done !== undefined) setSaved({ file: done.file, folder: done.stampedRequestsDir });
  };
  const post = async (event: FormEvent) => {
    event.preventDefault();
    const file = postFile;
    const done = await action.run(`Posting ${file}…`, 'approvals.postStampedFile', { file });
    if (done !== undefined) setPostFile('');
  };

  return (
    <section className="panel" aria-labelledby="offline-title">
      <h2 id="offline-title">Offline voting</h2>
      <p className="hint">
        Stamp an approval of the chosen activity without touching the network, copy the file from QuorumKey’s stamped-requests folder to a connected
        machine’s, and post it there.
      </p>
      <form className="inline-form" aria-label="Save a stamped approval" onSubmit={(event) => void save(event)}>
        <FileNameField label="File name to write" value={saveFile} onChange={setSaveFile} placeholder="approval-1.json" />
        <button type="submit" disabled={fingerprint === undefined || action.busy !== undefined}>
          Save stamped approval
        </button>
        {fingerprint === undefined && <span className="muted">Choose an activity that is waiting for votes first.</span>}
      </form>
      {saved !== undefined && (
        <p className="notice notice-info" role="status">
          Saved to <code>{saved.file}</code>. It holds the request and its stamp, nothing secret; to post it elsewhere, copy it into that machine’s{' '}
          <code>{saved.folder.split(/[\\/]/u).pop()}</code> folder.
        </p>
      )}
      <form className="inline-form" aria-label="Post a stamped file" onSubmit={(event) => void post(event)}>
        <FileNameField label="Stamped file name" value={postFile} onChange={setPostFile} placeholder="approval-1.json" />
        <button type="submit" disabled={action.busy !== undefined}>
          Post stamped file
        </button>
      </form>
    </section>
  );
}
