import { useState, type FormEvent } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import type { SigningCardView, SigningResultView } from '../../../shared/ipc/signing';
import { FileNameField } from '../components/TextFields';
import { ErrorNotice } from '../components/ErrorNotice';
import { SignedResult } from '../components/SignedResult';
import { Progress } from '../components/Progress';
import { SigningCard } from '../components/SigningCard';
import { RequestSimulationSection } from '../components/SimulationSection';
import { useSigningRequestForm, type SigningRequest } from '../components/SigningRequestFields';
import { useAction } from '../mutations';
import { useChannel } from '../queries';

type Activity = ChannelOutput<'activities.get'>;

/**
 * Sign a transaction or a message with one of the organization's accounts: see the same decoded card approvers see,
 * submit it (it goes through policies and votes like any activity), follow it, and copy or save what was signed.
 * Offline, stamp it into a file to post later from a connected machine.
 */
export function SignScreen() {
  const action = useAction();
  const [preview, setPreview] = useState<{ request: SigningRequest; card: SigningCardView }>();
  const [submitted, setSubmitted] = useState<Submitted>();
  const [stamped, setStamped] = useState<string>();
  const [stampFile, setStampFile] = useState('');
  const clearResults = () => {
    setPreview(undefined);
    setSubmitted(undefined);
    setStamped(undefined);
  };
  const { request, ready, fields } = useSigningRequestForm(() => clearResults());

  const showPreview = async (event: FormEvent) => {
    event.preventDefault();
    clearResults();
    const card = await action.run('Reading what this signs…', 'signing.preview', { request });
    if (card !== undefined) setPreview({ request, card });
  };

  const submit = async () => {
    if (preview === undefined) return;
    const outcome = await action.run('Submitting…', 'signing.submit', { request: preview.request });
    if (outcome === undefined) return;
    const resent = outcome.resentFromMs === undefined ? {} : { resentFromMs: outcome.resentFromMs };
    setSubmitted(
      outcome.state === 'completed' ? { activity: outcome.activity, result: outcome.result, ...resent } : { activity: outcome.activity, ...resent },
    );
  };

  const stamp = async (event: FormEvent) => {
    event.preventDefault();
    if (preview === undefined) return;
    const file = stampFile;
    const done = await action.run(`Stamping into ${file}…`, 'signing.stampToFile', { request: preview.request, file });
    if (done !== undefined) setStamped(done.file);
  };

  return (
    <section className="screen" aria-labelledby="sign-title">
      <h1 id="sign-title">Sign</h1>
      <p className="lead">Paste or open an unsigned transaction or a message, check what it does, then submit it for signing.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}

      <section className="panel" aria-labelledby="sign-request-title">
        <h2 id="sign-request-title">What to sign</h2>
        <form className="stack-form" aria-label="Signing request" onSubmit={(event) => void showPreview(event)}>
          {fields}
          <div className="button-row start">
            <button type="submit" className="primary" disabled={!ready || action.busy !== undefined}>
              Check what it signs
            </button>
          </div>
        </form>
      </section>

      {preview !== undefined && (
        <section className="panel" aria-labelledby="sign-preview-title">
          <h2 id="sign-preview-title">Before you submit</h2>
          <SigningCard card={preview.card} />
          <RequestSimulationSection request={preview.request} />
          {submitted === undefined && (
            <div className="button-row start">
              <button type="button" className="primary" disabled={action.busy !== undefined} onClick={() => void submit()}>
                Submit for signing
              </button>
            </div>
          )}
          <form className="inline-form" aria-label="Stamp for offline posting" onSubmit={(event) => void stamp(event)}>
            <FileNameField label="Offline: file name to stamp into" value={stampFile} onChange={setStampFile} placeholder="sign-1.json" />
            <button type="submit" disabled={action.busy !== undefined}>
              Stamp to file
            </button>
          </form>
          {stamped !== undefined && (
            <p className="notice notice-info" role="status">
              Stamped into <code>{stamped}</code>. Copy it into a connected machine’s stamped-requests folder and post it from its Approvals screen.
            </p>
          )}
        </section>
      )}

      {submitted !== undefined && <Following key={submitted.activity.id} initial={submitted} />}
    </section>
  );
}

/** A submitted request; `resentFromMs` when it retried one first sent then without an answer. */
interface Submitted {
  activity: Activity;
  result?: SigningResultView;
  resentFromMs?: number;
}

/**
 * Follows a submitted request until it is signed, rejected or failed; then offers the result to copy or save. Main
 * reports each vote and the decision, which makes the read stale, so nothing here polls.
 */
function Following({ initial }: { initial: Submitted }) {
  const followed = useChannel('signing.result', { activityId: initial.activity.id });
  const { activity, result } = followed.data ?? initial;
  const waiting =
    result === undefined &&
    (activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' ||
      activity.status === 'ACTIVITY_STATUS_PENDING' ||
      activity.status === 'ACTIVITY_STATUS_CREATED');

  return (
    <section className="panel" aria-labelledby="sign-status-title">
      <h2 id="sign-status-title">Submitted</h2>
      {followed.error !== null && <ErrorNotice error={followed.error} />}
      {initial.resentFromMs !== undefined && (
        <p className="notice notice-info" role="status">
          Already submitted at {new Date(initial.resentFromMs).toLocaleTimeString()}, when no answer came back. The same request was sent again
          unchanged, so this is that request’s activity, not a second one.
        </p>
      )}
      {waiting && (
        <div className="notice notice-warning" role="status">
          <p className="notice-title">Waiting for votes ({activity.approvals} so far).</p>
          <p>
            Ask the approvers to approve the activity with this fingerprint: <code className="fingerprint">{activity.fingerprint}</code>
          </p>
        </div>
      )}
      {activity.status === 'ACTIVITY_STATUS_REJECTED' && <p className="notice notice-error">The request was rejected.</p>}
      {activity.status === 'ACTIVITY_STATUS_FAILED' && (
        <p className="notice notice-error">The request failed: {activity.failure?.message ?? 'the service gave no reason'}.</p>
      )}
      {result !== undefined && <SignedResult activityId={activity.id} result={result} />}
    </section>
  );
}
