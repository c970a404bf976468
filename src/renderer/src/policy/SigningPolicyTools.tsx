/**
 * The policy editor's signing tools: templates for the common signing rules, and a dry run that shows how the
 * policies (saved, or with the draft in place) would treat a pasted transaction or message if it were submitted now.
 */
import { effectInWords } from '../../../shared/describe';
import { useState, type FormEvent, type ReactNode } from 'react';
import type { QkError } from '../../../shared/errors';
import type { DryRunView } from '../../../shared/ipc/signing';
import { ErrorNotice } from '../components/ErrorNotice';
import { Progress } from '../components/Progress';
import { SelectField } from '../components/SelectField';
import { SigningCard } from '../components/SigningCard';
import { useSigningRequestForm } from '../components/SigningRequestFields';
import { StillToVoteList } from '../components/StillToVoteList';
import { useAction } from '../mutations';
import type { PolicyDraft } from './draft';
import type { DraftEntry } from './draft-entry';
import { aboveNeedsTwoTemplate, allowlistBelowTemplate, contractFunctionTemplate, denyChainTemplate } from './signing-templates';
import type { Named } from './templates';

/** `tags`: the organization's tags by name; the approver tag is picked from them, never typed as an id. */
export function SigningTemplates({ onApply, tags }: { onApply: (draft: PolicyDraft) => void; tags: readonly Named[] }) {
  const [error, setError] = useState<QkError>();
  const [tagId, setTagId] = useState('');
  const tag = tags.find((candidate) => candidate.id === tagId) ?? tags[0];
  const [allowlist, setAllowlist] = useState('');
  const [below, setBelow] = useState('1');
  const [above, setAbove] = useState('10');
  const [contract, setContract] = useState('');
  const [functionName, setFunctionName] = useState('');
  const [chainId, setChainId] = useState('');
  const apply = (build: () => PolicyDraft) => (event: FormEvent) => {
    event.preventDefault();
    try {
      setError(undefined);
      onApply(build());
    } catch (thrown) {
      setError(thrown as QkError);
    }
  };
  if (tag === undefined) return <p className="hint">The signing templates pick approvers by tag: create a tag on the Users screen first.</p>;
  const tagField = (
    <SelectField label="Approver tag" value={tag.id} options={tags.map((option) => ({ value: option.id, label: option.name }))} onChange={setTagId} />
  );
  return (
    <div className="signing-templates">
      {error !== undefined && <ErrorNotice error={error} onDismiss={() => setError(undefined)} />}
      <TemplateForm
        label="Transfers to an allowlist below an amount, one operator"
        onSubmit={apply(() => allowlistBelowTemplate(split(allowlist), below, tag))}
      >
        <label className="grow">
          Allowed recipients (comma or space separated)
          <input value={allowlist} onChange={(event) => setAllowlist(event.target.value)} required spellCheck={false} />
        </label>
        <label>
          Below (ETH)
          <input value={below} onChange={(event) => setBelow(event.target.value)} required inputMode="decimal" />
        </label>
        {tagField}
      </TemplateForm>
      <TemplateForm label="Above an amount needs two of a tag" onSubmit={apply(() => aboveNeedsTwoTemplate(above, tag))}>
        <label>
          Above (ETH)
          <input value={above} onChange={(event) => setAbove(event.target.value)} required inputMode="decimal" />
        </label>
        {tagField}
      </TemplateForm>
      <TemplateForm label="Only this contract’s function" onSubmit={apply(() => contractFunctionTemplate(contract, functionName, tag))}>
        <label className="grow">
          Contract address
          <input value={contract} onChange={(event) => setContract(event.target.value)} required spellCheck={false} />
        </label>
        <label>
          Function
          <input value={functionName} onChange={(event) => setFunctionName(event.target.value)} required spellCheck={false} placeholder="transfer" />
        </label>
        {tagField}
      </TemplateForm>
      <TemplateForm label="Deny on a chain" onSubmit={apply(() => denyChainTemplate(chainId))}>
        <label>
          Chain id
          <input value={chainId} onChange={(event) => setChainId(event.target.value)} required inputMode="numeric" placeholder="1" />
        </label>
      </TemplateForm>
    </div>
  );
}

function TemplateForm({ label, onSubmit, children }: { label: string; onSubmit: (event: FormEvent) => void; children: ReactNode }) {
  return (
    <form className="inline-form" aria-label={label} onSubmit={onSubmit}>
      {children}
      <button type="submit">Use “{label.charAt(0).toLowerCase() + label.slice(1)}”</button>
    </form>
  );
}

function split(text: string): string[] {
  return text
    .split(/[\s,]+/u)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

const VERDICT_WORDS: Record<DryRunView['policies'][number]['verdict'], string> = {
  allow: 'would allow it',
  deny: 'would deny it',
  'needs consensus': 'matches; needs more approvals',
  'not applicable': 'does not apply',
  inactive: 'inactive now (time window)',
  error: 'cannot be evaluated',
};

/**
 * A pasted transaction or message read as its approval card reads it, with every policy's verdict and who must
 * approve, as if you submitted it now: against the saved policies, or with `draft` (the policy being edited) in
 * place. Nothing is submitted.
 */
export function PolicyDryRun({ draft }: { draft?: DraftEntry[] }) {
  const action = useAction();
  const [result, setResult] = useState<DryRunView>();
  const { request, ready, fields } = useSigningRequestForm(() => setResult(undefined));

  const run = async (event: FormEvent) => {
    event.preventDefault();
    setResult(undefined);
    const answer = await action.run('Evaluating the policies…', 'policies.dryRun', { request, ...(draft === undefined ? {} : { draft }) });
    if (answer !== undefined) setResult(answer);
  };

  return (
    <section className="panel dry-run" aria-labelledby="dry-run-title">
      <h2 id="dry-run-title">Dry run</h2>
      <p className="hint">
        {draft === undefined
          ? 'Paste a transaction or a message to see what each saved policy would do with it if you submitted it now, and who must approve.'
          : 'Paste a transaction or a message to see what the policies, with this draft in place, would do with it if you submitted it now, and who must approve.'}{' '}
        Nothing is submitted.
      </p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      <form className="stack-form" aria-label="Dry run a signing request" onSubmit={(event) => void run(event)}>
        {fields}
        <div className="button-row start">
          <button type="submit" disabled={!ready || action.busy !== undefined}>
            Dry run
          </button>
        </div>
      </form>
      {result !== undefined && (
        <div aria-label="Dry run result">
          <SigningCard card={result} />
          {result.standing.stillToVote.length > 0 && <StillToVoteList possible={result.standing.stillToVote} />}
          {result.policies.length === 0 ? (
            <p className="empty">There are no policies.</p>
          ) : (
            <table className="data-table" aria-label="Dry run verdicts">
              <thead>
                <tr>
                  <th scope="col">Policy</th>
                  <th scope="col">Effect</th>
                  <th scope="col">Verdict</th>
                </tr>
              </thead>
              <tbody>
                {result.policies.map((policy) => (
                  <tr key={policy.policyId}>
                    <th scope="row">{policy.policyName}</th>
                    <td>{effectInWords(policy.effect).toLowerCase()}</td>
                    <td className={`verdict-${policy.verdict.replace(' ', '-')}`}>
                      {VERDICT_WORDS[policy.verdict]}
                      {policy.reason !== undefined && <span className="muted"> ({policy.reason})</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </section>
  );
}
