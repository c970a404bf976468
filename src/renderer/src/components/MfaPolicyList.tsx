/**
 * The organization's MFA policies in main's words: per user, in the order the service evaluates them, the condition
 * read as a policy's is and the authenticators an activity it matches waits for. Each can be created, edited and
 * deleted here; main confirms each write in its own words before stamping it.
 */
import { useState, type FormEvent } from 'react';
import type { ChannelInput, ChannelOutput } from '../../../shared/ipc/contract';
import type { MfaPolicyView } from '../../../shared/ipc/channels/policies';
import { ErrorNotice } from './ErrorNotice';
import { FormActions } from './FormActions';
import { ConfirmDialog } from './Modal';
import { OutcomeNotice } from './OutcomeNotice';
import { PolicyExpression } from './PolicyExpression';
import { Progress } from './Progress';
import { QueryStatus } from './QueryStatus';
import { RowAction } from './RowAction';
import { SelectField } from './SelectField';
import { TableHead } from './TableHead';
import { useAction } from '../mutations';
import { useChannel } from '../queries';

type Method = MfaPolicyView['steps'][number]['any'][number]['type'];

/** The methods the service knows, as the form offers them for a step, in the order a step lists them. */
const METHODS: readonly { value: Method; label: string }[] = [
  { value: 'AUTHENTICATION_TYPE_PASSKEY', label: 'Passkey' },
  { value: 'AUTHENTICATION_TYPE_API_KEY', label: 'API key' },
  { value: 'AUTHENTICATION_TYPE_EMAIL_OTP', label: 'Email code' },
  { value: 'AUTHENTICATION_TYPE_SMS_OTP', label: 'SMS code' },
  { value: 'AUTHENTICATION_TYPE_OAUTH', label: 'OAuth sign-in' },
  { value: 'AUTHENTICATION_TYPE_SESSION', label: 'Session' },
];

/** The profile's own user: main fills in whoever the profile signs as. */
const OWN_USER = '';

interface MfaDraft {
  name: string;
  condition: string;
  /** The steps in order, each the methods any one of which meets it (never none). */
  steps: Method[][];
  userId: string;
  notes: string;
}

type Editing = { mode: 'create' } | { mode: 'update'; policy: MfaPolicyView };

function draftOf(policy: MfaPolicyView): MfaDraft {
  return {
    name: policy.mfaPolicyName,
    condition: policy.condition,
    // A step naming several credentials of one kind is offered as that kind once.
    steps: policy.steps.map((step) => METHODS.map(({ value }) => value).filter((method) => step.any.some(({ type }) => type === method))),
    userId: policy.userId,
    notes: policy.notes ?? '',
  };
}

const EMPTY: MfaDraft = { name: '', condition: 'true', steps: [['AUTHENTICATION_TYPE_API_KEY']], userId: OWN_USER, notes: '' };

export function MfaPolicyList() {
  const mfaPolicies = useChannel('policies.mfaList');
  const action = useAction();
  const [editing, setEditing] = useState<Editing>();
  const [deleting, setDeleting] = useState<MfaPolicyView>();
  const [outcome, setOutcome] = useState<{ what: string; outcome: ChannelOutput<'policies.mfaCreate'> }>();

  const finished = (what: string, result: ChannelOutput<'policies.mfaCreate'> | undefined) => {
    if (result === undefined) return;
    setOutcome({ what, outcome: result });
    setEditing(undefined);
  };

  const save = async (draft: MfaDraft) => {
    const steps = draft.steps.map((methods) => ({ any: methods.map((type) => ({ type })) }));
    const fields = { name: draft.name, condition: draft.condition, notes: draft.notes };
    if (editing?.mode === 'update') {
      const { userId, mfaPolicyId } = editing.policy;
      // Steps the form left as they were are not sent: a step's alternatives and named credentials stay as saved.
      const stepsChanged = JSON.stringify(draft.steps) !== JSON.stringify(draftOf(editing.policy).steps);
      const input: ChannelInput<'policies.mfaUpdate'> = { userId, mfaPolicyId, changes: { ...fields, ...(stepsChanged ? { steps } : {}) } };
      finished(`Update MFA policy ${draft.name}`, await action.run(`Updating MFA policy ${draft.name}…`, 'policies.mfaUpdate', input));
    } else {
      const input: ChannelInput<'policies.mfaCreate'> = { ...fields, steps, ...(draft.userId === OWN_USER ? {} : { userId: draft.userId }) };
      finished(`Create MFA policy ${draft.name}`, await action.run(`Creating MFA policy ${draft.name}…`, 'policies.mfaCreate', input));
    }
  };

  const confirmDelete = async () => {
    if (deleting === undefined) return;
    const { userId, mfaPolicyId, mfaPolicyName } = deleting;
    setDeleting(undefined);
    finished(
      `Delete MFA policy ${mfaPolicyName}`,
      await action.run(`Deleting MFA policy ${mfaPolicyName}…`, 'policies.mfaDelete', { userId, mfaPolicyId }),
    );
  };

  return (
    <section className="panel" aria-labelledby="mfa-policy-list-title">
      <h2 id="mfa-policy-list-title">MFA policies</h2>
      <p className="muted">
        An activity a user approves waits for that user&rsquo;s authenticators when the first of their MFA policies whose condition holds asks for
        them.
      </p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {outcome !== undefined && <OutcomeNotice what={outcome.what} outcome={outcome.outcome} onDismiss={() => setOutcome(undefined)} />}
      <QueryStatus query={mfaPolicies} loading="Loading MFA policies…" />
      {mfaPolicies.data !== undefined &&
        (mfaPolicies.data.length === 0 ? (
          <p className="empty">No MFA policies: an approval counts as stamped, with whatever credential stamped it.</p>
        ) : (
          <table className="data-table" aria-label="MFA policies">
            <TableHead columns={['Name', 'User', 'Order', 'In words', 'Notes']} withActions />
            <tbody>
              {mfaPolicies.data.map((policy) => (
                <tr key={policy.mfaPolicyId}>
                  <th scope="row">{policy.mfaPolicyName}</th>
                  <td>{policy.userName || policy.userId}</td>
                  <td>{policy.order}</td>
                  <td>
                    Activities where <PolicyExpression pieces={policy.conditionReading} /> {policy.requirement}
                  </td>
                  <td>{policy.notes}</td>
                  <td className="row-actions">
                    <RowAction verb="Edit" subject={policy.mfaPolicyName} onClick={() => setEditing({ mode: 'update', policy })} />
                    <RowAction verb="Delete" subject={policy.mfaPolicyName} danger onClick={() => setDeleting(policy)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {editing === undefined ? (
        <div className="button-row start">
          <button type="button" onClick={() => setEditing({ mode: 'create' })}>
            New MFA policy
          </button>
        </div>
      ) : (
        <MfaPolicyForm
          key={editing.mode === 'create' ? 'new' : editing.policy.mfaPolicyId}
          editing={editing}
          busy={action.busy !== undefined}
          onCancel={() => setEditing(undefined)}
          onSubmit={save}
        />
      )}
      {deleting !== undefined && (
        <ConfirmDialog
          title={`Delete MFA policy ${deleting.mfaPolicyName}?`}
          message={<p>Activities it matched will no longer wait for its authenticators. If policies require votes for this, it waits for them.</p>}
          confirmLabel="Delete MFA policy"
          onConfirm={() => void confirmDelete()}
          onCancel={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function MfaPolicyForm({
  editing,
  busy,
  onCancel,
  onSubmit,
}: {
  editing: Editing;
  busy: boolean;
  onCancel: () => void;
  onSubmit: (draft: MfaDraft) => Promise<void>;
}) {
  const users = useChannel('organization.lookup').data?.users ?? [];
  const [draft, setDraft] = useState<MfaDraft>(editing.mode === 'update' ? draftOf(editing.policy) : EMPTY);
  const set = (change: Partial<MfaDraft>) => setDraft((current) => ({ ...current, ...change }));
  /** Ticks or unticks `method` in step `index`, keeping the methods in METHODS' order. */
  const toggle = (index: number, method: Method, ticked: boolean) =>
    set({
      steps: draft.steps.map((step, at) =>
        at === index ? METHODS.map(({ value }) => value).filter((value) => (value === method ? ticked : step.includes(value))) : step,
      ),
    });
  const title = editing.mode === 'create' ? 'New MFA policy' : `Edit MFA policy ${editing.policy.mfaPolicyName}`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void onSubmit(draft);
  };

  return (
    <form className="stack-form wide" aria-label={title} onSubmit={submit}>
      <h3>{title}</h3>
      <label>
        Name
        <input value={draft.name} onChange={(event) => set({ name: event.target.value })} required maxLength={256} />
      </label>
      {editing.mode === 'create' ? (
        <SelectField
          label="For"
          value={draft.userId}
          options={[
            { value: OWN_USER, label: 'This profile’s user' },
            ...users.map((user) => ({ value: user.userId, label: user.userName || user.userId })),
          ]}
          onChange={(userId) => set({ userId })}
        />
      ) : (
        <p>For {editing.policy.userName || editing.policy.userId}</p>
      )}
      <label>
        Condition
        <input value={draft.condition} onChange={(event) => set({ condition: event.target.value })} required spellCheck={false} />
      </label>
      <p className="hint">Which of the user&rsquo;s activities wait for the steps; true for every one.</p>
      <fieldset className="mfa-steps">
        <legend>Steps, in order</legend>
        <p className="hint">Each step is met by any one of the methods ticked; a step keeps at least one.</p>
        {draft.steps.map((step, index) => (
          <fieldset className="mfa-step" key={index}>
            <legend>Step {index + 1}</legend>
            {METHODS.map(({ value, label }) => {
              const ticked = step.includes(value);
              return (
                <label className="radio" key={value}>
                  <input
                    type="checkbox"
                    checked={ticked}
                    // The last method of a step stays ticked: a step met by nothing could never be met.
                    disabled={ticked && step.length === 1}
                    onChange={(event) => toggle(index, value, event.target.checked)}
                  />
                  {label}
                </label>
              );
            })}
            {draft.steps.length > 1 && (
              <RowAction verb="Remove" subject={`step ${index + 1}`} onClick={() => set({ steps: draft.steps.filter((_, at) => at !== index) })} />
            )}
          </fieldset>
        ))}
        <div className="button-row start">
          <button type="button" className="small" onClick={() => set({ steps: [...draft.steps, ['AUTHENTICATION_TYPE_API_KEY']] })}>
            Add a step
          </button>
        </div>
      </fieldset>
      <label>
        Notes
        <textarea value={draft.notes} onChange={(event) => set({ notes: event.target.value })} rows={2} />
      </label>
      <FormActions submitLabel={editing.mode === 'create' ? 'Create MFA policy' : 'Save MFA policy'} submitDisabled={busy} onCancel={onCancel} />
    </form>
  );
}
