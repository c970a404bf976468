/**
 * The policy editor's signing tools: templates for the common signing rules, and a dry run that shows how each of
 * the organization's policies would treat a pasted transaction if it were submitted now.
 */
import { effectInWords } from '../../../shared/describe';
import { useState, type FormEvent, type ReactNode } from 'react';
import type { QkError } from '../../../shared/errors';
import type { ChannelInput } from '../../../shared/ipc/contract';
import type { DryRunView } from '../../../shared/ipc/signing';
import { ErrorNotice } from '../components/ErrorNotice';
import { Progress } from '../components/Progress';
import { SelectField } from '../components/SelectField';
import { useAction } from '../hooks';
import type { PolicyDraft } from './draft';
import { aboveNeedsTwoTemplate, allowlistBelowTemplate, contractFunctionTemplate, denyChainTemplate } from './signing-templates';

type SigningRequest = ChannelInput<'policies.dryRun'>['request'];
type TransactionType = Extract<SigningRequest, { operation: 'sign_transaction' }>['type'];

export function SigningTemplates({ onApply }: { onApply: (draft: PolicyDraft) => void }) {
  const [error, setError] = useState<QkError>();
  const [tag, setTag] = useState('');
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
  const tagField = (
    <label>
      Approver tag id
      <input value={tag} onChange={(event) => setTag(event.target.value)} required spellCheck={false} />
    </label>
  );
  return (
    <div className="signing-templates">
      {error !== undefined && <ErrorNotice error={error} onDismiss={() => setError(undefined)} />}
      <TemplateForm label="Transfers to an allowlist below an amount, one operator" onSubmit={apply(() => allowlistBelowTemplate(split(allowlist), below, tag.trim()))}>
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
      <TemplateForm label="Above an amount needs two of a tag" onSubmit={apply(() => aboveNeedsTwoTemplate(above, tag.trim()))}>
        <label>
          Above (ETH)
          <input value={above} onChange={(event) => setAbove(event.target.value)} required inputMode="decimal" />
        </label>
        {tagField}
      </TemplateForm>
      <TemplateForm label="Only this contract’s function" onSubmit={apply(() => contractFunctionTemplate(contract, functionName, tag.trim()))}>
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

const TRANSACTION_TYPES = [
  { value: 'TRANSACTION_TYPE_ETHEREUM', label: 'Ethereum' },
  { value: 'TRANSACTION_TYPE_SOLANA', label: 'Solana' },
  { value: 'TRANSACTION_TYPE_BITCOIN', label: 'Bitcoin (PSBT)' },
] as const satisfies readonly { value: TransactionType; label: string }[];

const VERDICT_WORDS: Record<DryRunView['policies'][number]['verdict'], string> = {
  allow: 'would allow it',
  deny: 'would deny it',
  'needs consensus': 'matches; needs more approvals',
  'not applicable': 'does not apply',
  inactive: 'inactive now (time window)',
  error: 'cannot be evaluated',
};

/** Every saved policy's verdict on a pasted transaction, as if you submitted it now; nothing is submitted. */
export function PolicyDryRun() {
  const action = useAction();
  const [signWith, setSignWith] = useState('');
  const [type, setType] = useState<TransactionType>('TRANSACTION_TYPE_ETHEREUM');
  const [unsignedTransaction, setUnsignedTransaction] = useState('');
  const [result, setResult] = useState<DryRunView>();

  const run = async (event: FormEvent) => {
    event.preventDefault();
    setResult(undefined);
    const request: SigningRequest = { operation: 'sign_transaction', signWith: signWith.trim(), unsignedTransaction: unsignedTransaction.trim().replace(/^0x/i, ''), type };
    const answer = await action.run('Evaluating the policies…', (api) => api.policies.dryRun({ request }));
    if (answer !== undefined) setResult(answer);
  };

  return (
    <section className="panel dry-run" aria-labelledby="dry-run-title">
      <h2 id="dry-run-title">Dry run</h2>
      <p className="hint">Paste an unsigned transaction to see what each saved policy would do with it if you submitted it now. Nothing is submitted.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      <form className="stack-form" aria-label="Dry run a transaction" onSubmit={(event) => void run(event)}>
        <label>
          Signing account (address or private key id)
          <input value={signWith} onChange={(event) => setSignWith(event.target.value)} required spellCheck={false} />
        </label>
        <SelectField label="Chain" value={type} options={TRANSACTION_TYPES} onChange={setType} />
        <label>
          Unsigned transaction (hex)
          <textarea value={unsignedTransaction} onChange={(event) => setUnsignedTransaction(event.target.value)} rows={4} spellCheck={false} required />
        </label>
        <div className="button-row start">
          <button type="submit" disabled={action.busy !== undefined}>
            Dry run
          </button>
        </div>
      </form>
      {result !== undefined && (
        <>
          <p className="notice notice-info" role="status">
            Overall: {result.standing.outcome === 'ALLOW' ? 'allowed' : result.standing.outcome === 'DENY' ? 'denied' : result.standing.outcome === 'NEEDS_CONSENSUS' ? 'needs more approvals' : 'no policy allows it'}
            {result.standing.consensusNeeds !== undefined && ` (${result.standing.consensusNeeds})`}.
          </p>
          {result.policies.length === 0 ? (
            <p className="empty">This organization has no policies.</p>
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
        </>
      )}
    </section>
  );
}
