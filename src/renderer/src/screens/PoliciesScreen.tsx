import { useMemo, useRef, useState, type FormEvent } from 'react';
import { effectInWords } from '../../../shared/describe';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { CheckboxGroup } from '../components/CheckboxGroup';
import { ErrorNotice } from '../components/ErrorNotice';
import { FormActions } from '../components/FormActions';
import { QueryStatus } from '../components/QueryStatus';
import { ExpressionField, expressionProblem, type LintFindingView } from '../components/ExpressionField';
import { ConfirmDialog, Modal } from '../components/Modal';
import { Progress } from '../components/Progress';
import { RowAction } from '../components/RowAction';
import { SelectField } from '../components/SelectField';
import { TableHead } from '../components/TableHead';
import { OutcomeNotice } from '../components/OutcomeNotice';
import { RootQuorumOverlapNotice } from '../components/RootQuorumOverlapNotice';
import { useDebouncedValue } from '../hooks';
import { useAction } from '../mutations';
import { useChannel } from '../queries';
import { changedFields, EMPTY_DRAFT, type PolicyDraft } from '../policy/draft';
import { MfaPolicyList } from '../components/MfaPolicyList';
import { PolicyExpression } from '../components/PolicyExpression';
import { PolicyDryRun, SigningTemplates } from '../policy/SigningPolicyTools';
import { RehearsalPanel } from '../policy/RehearsalPanel';
import { draftEntryOf } from '../policy/draft-entry';
import { anotherApproverTemplate, anyOfUsersTemplate, anyWithTagTemplate, userMayExportWalletTemplate } from '../policy/templates';

type Policy = ChannelOutput<'policies.list'>[number];
/** What a policy write answers: done, or waiting for votes on the activity with this fingerprint. */
type WriteOutcome = ChannelOutput<'policies.create'>;

type Editing = { mode: 'create' } | { mode: 'update'; policy: Policy };

function draftOf(policy: Policy): PolicyDraft {
  return {
    name: policy.policyName,
    effect: policy.effect,
    condition: policy.condition,
    consensus: policy.consensus,
    time: policy.time,
    notes: policy.notes,
  };
}

/** The organization's policies: who may do what, and how many must approve. */
export function PoliciesScreen() {
  const policies = useChannel('policies.list');
  const action = useAction();
  const [editing, setEditing] = useState<Editing>();
  const [deleting, setDeleting] = useState<Policy>();
  const [outcome, setOutcome] = useState<{ what: string; outcome: WriteOutcome }>();

  const finished = (what: string, result: WriteOutcome | undefined) => {
    if (result === undefined) return;
    setOutcome({ what, outcome: result });
    setEditing(undefined);
  };

  const confirmDelete = async () => {
    if (deleting === undefined) return;
    const { policyId, policyName } = deleting;
    setDeleting(undefined);
    finished(`Delete policy ${policyName}`, await action.run(`Deleting policy ${policyName}…`, 'policies.delete', { policyId }));
  };

  return (
    <section className="screen" aria-labelledby="policies-title">
      <h1 id="policies-title">Policies</h1>
      <p className="lead">Policies allow or deny activities by condition, say whose approvals they need, and may be active only at certain times.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {outcome !== undefined && <OutcomeNotice what={outcome.what} outcome={outcome.outcome} onDismiss={() => setOutcome(undefined)} />}
      <RootQuorumOverlapNotice />

      <section className="panel" aria-labelledby="policy-list-title">
        <h2 id="policy-list-title">Policies of this organization</h2>
        <QueryStatus query={policies} loading="Loading policies…" />
        {policies.data !== undefined &&
          (policies.data.length === 0 ? (
            <p className="empty">No policies: only the root quorum can act.</p>
          ) : (
            <table className="data-table" aria-label="Policies">
              <TableHead columns={['Name', 'Effect', 'Condition, consensus and time', 'Notes']} withActions />
              <tbody>
                {policies.data.map((policy) => (
                  <tr key={policy.policyId}>
                    <th scope="row">{policy.policyName}</th>
                    <td>
                      <span className={policy.effect === 'EFFECT_DENY' ? 'badge badge-warning' : 'badge badge-active'}>
                        {effectInWords(policy.effect)}
                      </span>
                    </td>
                    <td>
                      <PolicyField pieces={policy.reading.condition} whenEmpty="any activity" />
                      <br />
                      <PolicyField pieces={policy.reading.consensus} whenEmpty="no approvals needed" muted />
                      <br />
                      <PolicyField pieces={policy.reading.time} whenEmpty="always active" muted />
                    </td>
                    <td>{policy.notes}</td>
                    <td className="row-actions">
                      <RowAction verb="Edit" subject={policy.policyName} onClick={() => setEditing({ mode: 'update', policy })} />
                      <RowAction verb="Delete" subject={policy.policyName} danger onClick={() => setDeleting(policy)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        {editing === undefined && (
          <div className="button-row start">
            <button type="button" className="primary" onClick={() => setEditing({ mode: 'create' })}>
              New policy
            </button>
          </div>
        )}
      </section>

      {editing !== undefined && (
        <PolicyEditor
          key={editing.mode === 'create' ? 'new' : editing.policy.policyId}
          editing={editing}
          busy={action.busy !== undefined}
          onCancel={() => setEditing(undefined)}
          onSubmit={async (draft) => {
            if (editing.mode === 'create') {
              finished(`Create policy ${draft.name}`, await action.run(`Creating policy ${draft.name}…`, 'policies.create', toInput(draft)));
            } else {
              const { policyId } = editing.policy;
              const changes = toInput(changedFields(draftOf(editing.policy), draft));
              finished(`Update policy ${draft.name}`, await action.run(`Updating policy ${draft.name}…`, 'policies.update', { policyId, changes }));
            }
          }}
        />
      )}

      {editing === undefined && <MfaPolicyList />}

      {editing === undefined && <PolicyDryRun />}

      {deleting !== undefined && (
        <ConfirmDialog
          title={`Delete policy ${deleting.policyName}?`}
          message={<p>Activities it allowed will need the root quorum again. If policies require votes for this, it waits for them.</p>}
          confirmLabel="Delete policy"
          onConfirm={() => void confirmDelete()}
          onCancel={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

/** The service's field names; empty optional expressions are left out rather than sent empty. */
function toInput<D extends Partial<PolicyDraft>>(draft: D) {
  return {
    ...(draft.name === undefined ? {} : { name: draft.name }),
    ...(draft.effect === undefined ? {} : { effect: draft.effect }),
    ...(draft.condition === undefined ? {} : { condition: draft.condition }),
    ...(draft.consensus === undefined ? {} : { consensus: draft.consensus }),
    ...(draft.time === undefined ? {} : { time: draft.time }),
    ...(draft.notes === undefined ? {} : { notes: draft.notes }),
  } as D extends PolicyDraft ? PolicyDraft : Partial<PolicyDraft>;
}

function PolicyEditor({
  editing,
  busy,
  onCancel,
  onSubmit,
}: {
  editing: Editing;
  busy: boolean;
  onCancel: () => void;
  onSubmit: (draft: PolicyDraft) => Promise<void>;
}) {
  const original = editing.mode === 'update' ? draftOf(editing.policy) : EMPTY_DRAFT;
  const [draft, setDraft] = useState<PolicyDraft>(original);
  const [reviewing, setReviewing] = useState(false);
  // The review opens on Keep editing: submitting a change to a policy takes a deliberate click.
  const keepEditing = useRef<HTMLButtonElement>(null);
  const set = (changes: Partial<PolicyDraft>) => setDraft((current) => ({ ...current, ...changes }));
  const lint = useLint(editing.mode === 'update' ? editing.policy.policyId : undefined, draft);
  const reading = useDraftReading(draft);
  const invalid =
    expressionProblem(draft.condition, 'condition') !== undefined ||
    expressionProblem(draft.consensus, 'consensus') !== undefined ||
    expressionProblem(draft.time, 'time') !== undefined ||
    (lint.findings ?? []).some((finding) => finding.severity === 'error');
  const findingsFor = (field: LintFindingView['field']) => lint.findings?.filter((finding) => finding.field === field);
  const unchanged = Object.keys(changedFields(original, draft)).length === 0;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (editing.mode === 'update') setReviewing(true);
    else void onSubmit(draft);
  };

  const title = editing.mode === 'create' ? 'New policy' : `Edit policy ${editing.policy.policyName}`;
  return (
    <section className="panel" aria-labelledby="policy-editor-title">
      <h2 id="policy-editor-title">{title}</h2>
      {editing.mode === 'create' && <Templates onApply={(template) => setDraft(template)} />}
      <form className="stack-form wide" aria-label={title} onSubmit={submit}>
        <label>
          Name
          <input value={draft.name} onChange={(event) => set({ name: event.target.value })} required maxLength={256} autoComplete="off" />
        </label>
        <fieldset>
          <legend>Effect</legend>
          <label className="radio">
            <input type="radio" name="effect" checked={draft.effect === 'EFFECT_ALLOW'} onChange={() => set({ effect: 'EFFECT_ALLOW' })} />
            Allow
          </label>
          <label className="radio">
            <input type="radio" name="effect" checked={draft.effect === 'EFFECT_DENY'} onChange={() => set({ effect: 'EFFECT_DENY' })} />
            Deny
          </label>
        </fieldset>
        <ExpressionField
          kind="condition"
          label="Condition"
          value={draft.condition}
          onChange={(condition) => set({ condition })}
          findings={findingsFor('condition')}
          placeholder="activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"
        />
        <FieldReading label="Condition" pieces={reading?.condition} />
        <ExpressionField
          kind="consensus"
          label="Consensus"
          value={draft.consensus}
          onChange={(consensus) => set({ consensus })}
          findings={findingsFor('consensus')}
          placeholder="approvers.count() >= 2"
        />
        <FieldReading label="Consensus" pieces={reading?.consensus} />
        <ExpressionField
          kind="time"
          label="Time window"
          value={draft.time}
          onChange={(time) => set({ time })}
          findings={findingsFor('time')}
          placeholder="CronSpan('0 9 * * 1-5', '8h', 'America/New_York')"
        />
        {lint.error !== undefined && <p className="hint">Warnings could not be read: {lint.error.message}</p>}
        <label>
          Notes
          <textarea value={draft.notes} onChange={(event) => set({ notes: event.target.value })} rows={2} />
        </label>
        <FormActions
          submitLabel={editing.mode === 'create' ? 'Create policy' : 'Review changes…'}
          submitDisabled={busy || invalid || (editing.mode === 'update' && unchanged)}
          onCancel={onCancel}
        >
          {invalid && <span className="field-error">Fix the expression errors above first.</span>}
        </FormActions>
      </form>
      <RehearsalPanel policyId={editing.mode === 'update' ? editing.policy.policyId : undefined} draft={draft} />
      <PolicyDryRun draft={[draftEntryOf(editing.mode === 'update' ? editing.policy.policyId : undefined, draft)]} />
      {reviewing && (
        <Modal title="Review the update" onClose={() => setReviewing(false)} initialFocus={keepEditing}>
          <PolicyDiff before={original} after={draft} />
          <div className="button-row">
            <button type="button" onClick={() => setReviewing(false)} ref={keepEditing}>
              Keep editing
            </button>
            <button
              type="button"
              className="primary"
              onClick={() => {
                setReviewing(false);
                void onSubmit(draft);
              }}
            >
              Submit update
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}

/** A field of the list as main read it: names for ids, units beside amounts. */
function PolicyField({ pieces, whenEmpty, muted = false }: { pieces: Policy['reading']['condition']; whenEmpty: string; muted?: boolean }) {
  if (pieces.length === 0) return <code className="muted">{whenEmpty}</code>;
  return <PolicyExpression pieces={pieces} {...(muted ? { className: 'muted' } : {})} />;
}

/** Main waits this long after the last keystroke before linting or reading the draft. */
const LINT_DELAY_MS = 400;

/** The draft's expressions as main reads them once typing pauses (ids named, amounts in units); undefined meanwhile. */
function useDraftReading({ condition, consensus, time }: PolicyDraft) {
  const input = useMemo(() => ({ condition, consensus, time }), [condition, consensus, time]);
  const settled = useDebouncedValue(input, LINT_DELAY_MS);
  const reading = useChannel('policies.read', settled);
  return settled === input && !reading.isPlaceholderData ? reading.data : undefined;
}

/** A field's reading under it, shown only where main named an id or gave units: the text itself says the rest. */
function FieldReading({ label, pieces }: { label: string; pieces: Policy['reading']['consensus'] | undefined }) {
  if (pieces?.some((piece) => piece.name !== undefined || piece.units !== undefined) !== true) return null;
  // No accessible name of its own: one holding the field's label would also answer lookups of the field by label.
  return (
    <p className="hint">
      {label} reads as: <PolicyExpression pieces={pieces} />
    </p>
  );
}

/**
 * Main's lint findings for the draft as it stands (docs/service.md#policy-lint), read once typing pauses; undefined
 * while the draft has changed since the findings were read, or when they could not be (then `error` says why).
 */
function useLint(policyId: string | undefined, draft: PolicyDraft) {
  const { name, effect, condition, consensus, time } = draft;
  const input = useMemo(
    () => ({ ...(policyId === undefined ? {} : { policyId }), policy: { name, effect, condition, consensus, time } }),
    [policyId, name, effect, condition, consensus, time],
  );
  const settled = useDebouncedValue(input, LINT_DELAY_MS);
  const lint = useChannel('policies.lint', settled);
  const current = settled === input && !lint.isPlaceholderData;
  return {
    findings: current && lint.isError ? [] : current ? lint.data : undefined,
    error: current && lint.isError ? lint.error : undefined,
  };
}

/** The update's changed fields as main diffs them, token by token: names, units and grouped digits. */
function PolicyDiff({ before, after }: { before: PolicyDraft; after: PolicyDraft }) {
  const review = useChannel('policies.review', { before, after });
  return (
    <div className="policy-diff" role="group" aria-label="Changes">
      <QueryStatus query={review} loading="Reading the changes…" />
      {review.data?.map(({ field, label, pieces }) => (
        <section key={field}>
          <h3>{label}</h3>
          <PolicyExpression pieces={pieces} className="diff-field" />
        </section>
      ))}
    </div>
  );
}

/**
 * A template without a condition applies to every activity, users, keys, policies and exports among them: said before
 * it is used, in the words the editor's lint uses for such a policy.
 */
function EveryActivityWarning({ id, once }: { id: string; once: string }) {
  return (
    <p id={id} className="notice notice-warning">
      With no condition, this allows every activity once {once}. Narrow the condition in the editor after using it.
    </p>
  );
}

/** Templates that pick users, tags and wallets by name from the organization as it stands. */
function Templates({ onApply }: { onApply: (draft: PolicyDraft) => void }) {
  const organization = useChannel('organization.lookup');
  const org = organization.data;
  const [userIds, setUserIds] = useState<string[]>([]);
  const [threshold, setThreshold] = useState('2');
  const [tagId, setTagId] = useState('');
  const [tagThreshold, setTagThreshold] = useState('1');
  const [exportUser, setExportUser] = useState('');
  const [exportWallet, setExportWallet] = useState('');
  const users = (org?.users ?? []).map((user) => ({ id: user.userId, name: user.userName }));
  const tags = (org?.tags ?? []).map((tag) => ({ id: tag.tagId, name: tag.tagName }));
  const wallets = (org?.wallets ?? []).map((wallet) => ({ id: wallet.walletId, name: wallet.walletName }));
  const chosenUsers = users.filter((user) => userIds.includes(user.id));
  const thresholdNumber = Number(threshold);
  const tag = tags.find((candidate) => candidate.id === tagId) ?? tags[0];
  const user = users.find((candidate) => candidate.id === exportUser) ?? users[0];
  const wallet = wallets.find((candidate) => candidate.id === exportWallet) ?? wallets[0];
  return (
    <details className="templates">
      <summary>Start from a template</summary>
      <QueryStatus query={organization} loading="Reading the organization…" />
      <form
        className="inline-form"
        aria-label="Any N of these users"
        onSubmit={(event) => {
          event.preventDefault();
          onApply(anyOfUsersTemplate(chosenUsers, thresholdNumber));
        }}
      >
        <CheckboxGroup
          legend="Of these users"
          options={users.map((candidate) => ({ id: candidate.id, label: candidate.name }))}
          chosen={userIds}
          onChange={setUserIds}
          grow
        />
        <label>
          Approvals needed
          <input
            type="number"
            min={1}
            max={Math.max(1, chosenUsers.length)}
            value={threshold}
            onChange={(event) => setThreshold(event.target.value)}
            required
          />
        </label>
        <button
          type="submit"
          aria-describedby="any-of-users-scope"
          disabled={chosenUsers.length === 0 || !(thresholdNumber >= 1 && thresholdNumber <= chosenUsers.length)}
        >
          Use “any {threshold} of these users”
        </button>
      </form>
      <EveryActivityWarning id="any-of-users-scope" once={`any ${threshold} of the chosen users approve, the proposer’s own approval among them`} />
      <form
        className="inline-form"
        aria-label="One approver other than the proposer"
        onSubmit={(event) => {
          event.preventDefault();
          onApply(anotherApproverTemplate());
        }}
      >
        <button type="submit" aria-describedby="another-approver-scope">
          Use “one approver other than the proposer”
        </button>
      </form>
      <EveryActivityWarning id="another-approver-scope" once="one user other than the proposer approves" />
      {tag !== undefined && (
        <form
          className="inline-form"
          aria-label="Any N users with a tag"
          onSubmit={(event) => {
            event.preventDefault();
            onApply(anyWithTagTemplate(tag, Number(tagThreshold)));
          }}
        >
          <SelectField label="Tag" value={tag.id} options={tags.map((option) => ({ value: option.id, label: option.name }))} onChange={setTagId} />
          <label>
            Approvals needed
            <input type="number" min={1} max={100} value={tagThreshold} onChange={(event) => setTagThreshold(event.target.value)} required />
          </label>
          <button type="submit">
            Use “any {tagThreshold} tagged {tag.name}”
          </button>
        </form>
      )}
      {user !== undefined && wallet !== undefined && (
        <form
          className="inline-form"
          aria-label="User may export wallet"
          onSubmit={(event) => {
            event.preventDefault();
            onApply(userMayExportWalletTemplate(user, wallet));
          }}
        >
          <SelectField
            label="User"
            value={user.id}
            options={users.map((option) => ({ value: option.id, label: option.name }))}
            onChange={setExportUser}
          />
          <SelectField
            label="Wallet"
            value={wallet.id}
            options={wallets.map((option) => ({ value: option.id, label: option.name }))}
            onChange={setExportWallet}
          />
          <button type="submit">Use “user may export wallet”</button>
        </form>
      )}
      <SigningTemplates onApply={onApply} tags={tags} />
    </details>
  );
}
