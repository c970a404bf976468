import { useEffect, useState, type FormEvent } from 'react';
import { QkError } from '../../../shared/errors';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { MAX_INTERFACE_TEXT, type ContractInterfaceView } from '../../../shared/ipc/signing';
import { call } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { OutcomeNotice } from '../components/OutcomeNotice';
import { QueryStatus } from '../components/QueryStatus';
import { ConfirmDialog, ReadingDialog } from '../components/Modal';
import { chainIdOf, DEFAULT_NETWORK, NetworkField, type NetworkValue } from '../components/NetworkField';
import { Progress } from '../components/Progress';
import { RowAction } from '../components/RowAction';
import { SelectField } from '../components/SelectField';
import { TableHead } from '../components/TableHead';
import { AddressField } from '../components/TextFields';
import { useAction } from '../mutations';
import { useChannel } from '../queries';
import { DeclaredTokensPanel } from './DeclaredTokensPanel';

type InterfaceType = ContractInterfaceView['type'];
type WriteOutcome = ChannelOutput<'contracts.create'>;

const TYPE_OPTIONS: readonly { value: InterfaceType; label: string }[] = [
  { value: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'Ethereum ABI' },
  { value: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', label: 'Solana Anchor IDL' },
];
const typeWords = (type: InterfaceType) => (type === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' ? 'Solana IDL' : 'Ethereum ABI');

/**
 * The organization's smart contract interfaces: an ABI or IDL per address, with a label. Signing cards decode calls
 * with them and show the label wherever the address appears; policies read the decoded arguments. Below them, the
 * tokens operators declared, so amounts of those tokens read in their units.
 */
export function ContractsScreen() {
  const contracts = useChannel('contracts.list');
  const action = useAction();
  const [viewing, setViewing] = useState<ContractInterfaceView>();
  const [deleting, setDeleting] = useState<ContractInterfaceView>();
  const [outcome, setOutcome] = useState<{ what: string; outcome: WriteOutcome }>();
  const [tokenPrefill, setTokenPrefill] = useState<{ address: string }>();

  const finished = (what: string, result: WriteOutcome | undefined) => {
    if (result === undefined) return false;
    setOutcome({ what, outcome: result });
    return true;
  };

  const confirmDelete = async () => {
    if (deleting === undefined) return;
    const { smartContractInterfaceId, label } = deleting;
    setDeleting(undefined);
    finished(`Delete ${label}`, await action.run(`Deleting ${label}…`, 'contracts.delete', { smartContractInterfaceId }));
  };

  return (
    <section className="screen" aria-labelledby="contracts-title">
      <h1 id="contracts-title">Contract interfaces</h1>
      <p className="lead">
        Upload a contract’s ABI or a program’s IDL so signing cards decode its calls and name it by its label, and policies can read the call’s
        arguments.
      </p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {outcome !== undefined && <OutcomeNotice what={outcome.what} outcome={outcome.outcome} onDismiss={() => setOutcome(undefined)} />}

      <section className="panel" aria-labelledby="contract-list-title">
        <h2 id="contract-list-title">Uploaded interfaces</h2>
        <QueryStatus query={contracts} loading="Loading contract interfaces…" />
        {contracts.data !== undefined &&
          (contracts.data.length === 0 ? (
            <p className="empty">No interfaces yet: calls to contracts show as “unknown contract” with their raw selector.</p>
          ) : (
            <table className="data-table" aria-label="Contract interfaces">
              <TableHead columns={['Label', 'Address', 'Network', 'Kind', 'Defines', 'Uploaded']} withActions />
              <tbody>
                {contracts.data.map((contract) => (
                  <tr key={contract.smartContractInterfaceId}>
                    <th scope="row">{contract.label}</th>
                    <td>
                      <code className="address">{contract.address}</code>
                    </td>
                    <td>{contract.network}</td>
                    <td>{typeWords(contract.type)}</td>
                    <td>{contract.summary}</td>
                    <td>
                      <time dateTime={new Date(contract.createdAtMs).toISOString()}>{new Date(contract.createdAtMs).toLocaleString()}</time>
                    </td>
                    <td className="row-actions">
                      <RowAction verb="View" subject={contract.label} onClick={() => setViewing(contract)} />
                      {/* A Solana interface names a program, not a mint: only an ERC-20 contract is declared from its row. */}
                      {contract.type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' && (
                        <RowAction verb="Declare token" subject={contract.label} onClick={() => setTokenPrefill({ address: contract.address })} />
                      )}
                      <RowAction verb="Delete" subject={contract.label} danger onClick={() => setDeleting(contract)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      </section>

      <UploadForm
        busy={action.busy !== undefined}
        onSubmit={async (input) => finished(`Upload ${input.label}`, await action.run(`Uploading ${input.label}…`, 'contracts.create', input))}
      />

      <DeclaredTokensPanel prefill={tokenPrefill} />

      {viewing !== undefined && (
        <ReadingDialog title={`${viewing.label} (${typeWords(viewing.type)})`} onClose={() => setViewing(undefined)}>
          <div className="modal-body">
            <dl className="facts">
              <dt>Address</dt>
              <dd>
                <code className="address">{viewing.address}</code>
              </dd>
              <dt>Network</dt>
              <dd>{viewing.network}</dd>
              <dt>Defines</dt>
              <dd>{viewing.summary}</dd>
              {viewing.notes !== '' && (
                <>
                  <dt>Notes</dt>
                  <dd>{viewing.notes}</dd>
                </>
              )}
            </dl>
            <pre className="payload-text">{prettyJson(viewing.definition)}</pre>
          </div>
        </ReadingDialog>
      )}

      {deleting !== undefined && (
        <ConfirmDialog
          title={`Delete the interface of ${deleting.label}?`}
          message={<p>Calls to {deleting.address} will no longer be decoded, and policies reading their arguments will stop matching.</p>}
          confirmLabel="Delete interface"
          onConfirm={() => void confirmDelete()}
          onCancel={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

interface UploadInput {
  type: InterfaceType;
  address: string;
  label: string;
  notes?: string;
  definition: string;
  chainId?: number;
}

/** Checked as it is typed (main reads it the way decoding will), and only a definition that checks can be uploaded. */
function UploadForm({ busy, onSubmit }: { busy: boolean; onSubmit: (input: UploadInput) => Promise<boolean> }) {
  const [type, setType] = useState<InterfaceType>('SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM');
  const [address, setAddress] = useState('');
  const [label, setLabel] = useState('');
  const [notes, setNotes] = useState('');
  const [network, setNetwork] = useState<NetworkValue>(DEFAULT_NETWORK);
  const [definition, setDefinition] = useState('');
  const [fileName, setFileName] = useState<string>();
  // A check answers the input it was made for and is shown only while that is still the input: never a stale
  // summary (or an enabled Upload) for what was typed before, nor one for an emptied form.
  const input = JSON.stringify([type, address.trim(), definition]);
  const [checked, setChecked] = useState<{ input: string; summary?: string; error?: QkError }>();
  const check: { summary?: string; error?: QkError } = checked?.input === input ? checked : {};

  useEffect(() => {
    if (address.trim() === '' || definition.trim() === '') return;
    let current = true;
    const timer = setTimeout(() => {
      call((api) => api.contracts.check({ type, address: address.trim(), definition })).then(
        ({ summary }) => current && setChecked({ input, summary }),
        (error: QkError) => current && setChecked({ input, error }),
      );
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [type, address, definition, input]);

  const readFile = async (file: File | undefined) => {
    if (file === undefined) return;
    if (file.size > MAX_INTERFACE_TEXT) {
      setFileName(undefined);
      setChecked({
        input,
        error: new QkError('REQUEST_INVALID', `${file.name} is ${file.size} bytes; interfaces are limited to ${MAX_INTERFACE_TEXT} bytes`),
      });
      return;
    }
    setFileName(file.name);
    setDefinition(await file.text());
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const chainId = type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' ? chainIdOf(network) : undefined;
    const done = await onSubmit({
      type,
      address: address.trim(),
      label: label.trim(),
      ...(notes.trim() === '' ? {} : { notes: notes.trim() }),
      definition,
      ...(chainId === undefined ? {} : { chainId }),
    });
    if (done) {
      setAddress('');
      setLabel('');
      setNotes('');
      setDefinition('');
      setFileName(undefined);
    }
  };

  return (
    <section className="panel" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload an interface</h2>
      <form className="stack-form" aria-label="Upload a contract interface" onSubmit={(event) => void submit(event)}>
        <SelectField label="Kind" value={type} options={TYPE_OPTIONS} onChange={setType} />
        {/* The same address on two chains may be two contracts: an ABI's label and functions are read on its chain only. */}
        {type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' && <NetworkField value={network} onChange={setNetwork} />}
        <AddressField
          label={type === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' ? 'Program id' : 'Contract address'}
          value={address}
          onChange={setAddress}
        />
        <label>
          Label
          <input
            value={label}
            onChange={(event) => setLabel(event.target.value)}
            required
            maxLength={256}
            autoComplete="off"
            placeholder="USD Coin"
          />
        </label>
        <label>
          Notes
          <input value={notes} onChange={(event) => setNotes(event.target.value)} maxLength={4000} autoComplete="off" />
        </label>
        <label>
          {type === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' ? 'IDL file (JSON)' : 'ABI file (JSON)'}
          <input type="file" accept=".json,application/json" onChange={(event) => void readFile(event.target.files?.[0])} />
        </label>
        <label>
          Or paste the JSON
          <textarea
            value={definition}
            onChange={(event) => {
              setFileName(undefined);
              setDefinition(event.target.value);
            }}
            rows={6}
            spellCheck={false}
            maxLength={MAX_INTERFACE_TEXT}
          />
        </label>
        {fileName !== undefined && <p className="hint">Read from {fileName}.</p>}
        {check.error !== undefined && <ErrorNotice error={check.error} />}
        {check.summary !== undefined && (
          <p className="notice notice-info" role="status">
            Checks: defines {check.summary}.
          </p>
        )}
        <div className="button-row start">
          <button type="submit" className="primary" disabled={busy || check.summary === undefined || label.trim() === ''}>
            Upload interface
          </button>
        </div>
      </form>
    </section>
  );
}
