/**
 * "Rehearse against history": replays the organization's recorded activities vote by vote against the current
 * policies and the policy being edited (docs/service.md#policy-rehearsal), before anything is saved. Main words each
 * change ("needed 2 approvals, would now need 1") and names users, tags and policies; this renders its words.
 */
import { useState } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { ErrorNotice } from '../components/ErrorNotice';
import { Progress } from '../components/Progress';
import { useAction } from '../mutations';
import type { PolicyDraft } from './draft';
import { draftEntryOf } from './draft-entry';

type Report = ChannelOutput<'policies.rehearse'>;

export function RehearsalPanel({ policyId, draft }: { policyId: string | undefined; draft: PolicyDraft }) {
  const action = useAction();
  const [report, setReport] = useState<Report>();
  const rehearse = async () => {
    setReport(undefined);
    const answer = await action.run('Replaying recorded activities…', 'policies.rehearse', { draft: [draftEntryOf(policyId, draft)] });
    if (answer !== undefined) setReport(answer);
  };
  return (
    <section className="panel rehearsal" aria-labelledby="rehearsal-title">
      <h2 id="rehearsal-title">Rehearse against history</h2>
      <button type="button" onClick={() => void rehearse()} disabled={action.busy !== undefined || draft.name.trim() === ''}>
        Rehearse against history
      </button>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {report !== undefined && (
        <div aria-label="Rehearsal result">
          <p>Replayed {report.replayed} recorded activities, vote by vote.</p>
          {report.unreproduced.length > 0 && (
            <>
              <h3>Not reproduced with the rules of the day ({report.unreproduced.length})</h3>
              <ul>
                {report.unreproduced.map((entry) => (
                  <li key={entry.activityId}>
                    {entry.reading}: {entry.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
          <h3>{report.changes.length === 0 ? 'This change alters no past outcome.' : `Outcomes that change (${report.changes.length})`}</h3>
          <ul aria-label="Changed outcomes">
            {report.changes.map((change) => (
              <li key={change.activityId}>
                {new Date(change.createdAtMs).toLocaleString()} · {change.reading}: {change.words}
                {change.policies.length > 0 && <> (by {change.policies.map((policy) => policy.policyName).join(', ')})</>}
              </li>
            ))}
          </ul>
          <p>
            {report.totals.allowedToDenied} allowed → denied, {report.totals.deniedToAllowed} denied → allowed, {report.totals.toConsensus} now need
            consensus, {report.totals.fromConsensus} no longer need it, {report.totals.fewerApprovals} need fewer approvals,{' '}
            {report.totals.moreApprovals} need more, {report.totals.unchanged} unchanged.
          </p>
        </div>
      )}
    </section>
  );
}
