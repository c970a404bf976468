import { useState, type FormEvent } from 'react';
import type { AddressBookEntry, AddressBookKey } from '../../../shared/ipc/contract';
import { ErrorNotice } from '../components/ErrorNotice';
import { FormActions } from '../components/FormActions';
import { chainIdOf, DEFAULT_NETWORK, evmNetworkName, NetworkField, type NetworkValue } from '../components/NetworkField';
import { Progress } from '../components/Progress';
import { QueryStatus } from '../components/QueryStatus';
import { RowAction } from '../components/RowAction';
import { SelectField } from '../components/SelectField';
import { TableHead } from '../components/TableHead';
import { AddressField } from '../components/TextFields';
import { useAction } from '../mutations';
import { useChannel } from '../queries';

type Family = AddressBookEntry['family'];

const FAMILY_OPTIONS: readonly { value: Family; label: string }[] = [
  { value: 'ethereum', label: 'Ethereum or another EVM chain' },
  { value: 'solana', label: 'Solana' },
  { value: 'bitcoin', label: 'Bitcoin' },
];

function networkWords(entry: AddressBookKey): string {
  if (entry.family === 'solana') return 'Solana';
  if (entry.family === 'bitcoin') return 'Bitcoin';
  const named = evmNetworkName(entry.chainId);
  return named === undefined ? `chain id ${entry.chainId}` : `${named} (chain id ${entry.chainId})`;
}

const keyOf = (entry: AddressBookEntry): AddressBookKey =>
  entry.family === 'ethereum'
    ? { family: entry.family, chainId: entry.chainId, address: entry.address }
    : { family: entry.family, address: entry.address };

/**
 * The active organization's address book: names this desktop gives addresses. Signing cards and main's confirmation
 * show these names, and an address that starts and ends like one of them (or like the organization's own) is flagged
 * as a look-alike.
 */
export function AddressBookScreen() {
  const entries = useChannel('addressBook.list');
  const action = useAction();
  const [renaming, setRenaming] = useState<AddressBookEntry>();

  return (
    <section className="screen" aria-labelledby="address-book-title">
      <h1 id="address-book-title">Address book</h1>
      <section className="panel" aria-labelledby="address-book-list-title">
        <h2 id="address-book-list-title">Named addresses</h2>
        <p className="hint">
          Names for the addresses this organization deals with, kept on this desktop. Signing cards and the confirmation show them. An address in a
          request that starts and ends with the same 4 characters as a named one, or one of the organization’s own, but is another address, is flagged
          as a look-alike, and approving it takes a second, explicit confirmation.
        </p>
        <Progress label={action.busy} />
        {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
        <QueryStatus query={entries} loading="Loading the address book…" />
        {entries.data !== undefined &&
          (entries.data.length === 0 ? (
            <p className="empty">No named addresses.</p>
          ) : (
            <table className="data-table" aria-label="Named addresses">
              <TableHead columns={['Name', 'Network', 'Address']} withActions />
              <tbody>
                {entries.data.map((entry) => (
                  <tr key={`${networkWords(entry)}-${entry.address}`}>
                    <th scope="row">{entry.name}</th>
                    <td>{networkWords(entry)}</td>
                    <td>
                      <code className="address">{entry.address}</code>
                    </td>
                    <td className="row-actions">
                      <RowAction verb="Rename" subject={entry.name} onClick={() => setRenaming(entry)} />
                      <RowAction
                        verb="Remove"
                        subject={entry.name}
                        danger
                        onClick={() => void action.run(`Removing ${entry.name}…`, 'addressBook.remove', { entry: keyOf(entry) })}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        {renaming !== undefined && (
          <RenameForm
            key={`${networkWords(renaming)}-${renaming.address}`}
            entry={renaming}
            busy={action.busy !== undefined}
            onRename={async (name) => {
              if ((await action.run(`Renaming ${renaming.name}…`, 'addressBook.rename', { entry: { ...renaming, name } })) !== undefined)
                setRenaming(undefined);
            }}
            onCancel={() => setRenaming(undefined)}
          />
        )}
      </section>
      <AddEntryForm
        busy={action.busy !== undefined}
        onAdd={async (entry) => (await action.run(`Adding ${entry.name}…`, 'addressBook.add', { entry })) !== undefined}
      />
    </section>
  );
}

function RenameForm({
  entry,
  busy,
  onRename,
  onCancel,
}: {
  entry: AddressBookEntry;
  busy: boolean;
  onRename: (name: string) => Promise<void>;
  onCancel: () => void;
}) {
  const [name, setName] = useState(entry.name);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void onRename(name);
  };
  return (
    <form className="stack-form" aria-label={`Rename ${entry.name}`} onSubmit={submit}>
      <p>
        <code className="address">{entry.address}</code> on {networkWords(entry)}
      </p>
      <label>
        New name
        <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={64} autoComplete="off" />
      </label>
      <FormActions submitLabel="Rename" submitDisabled={busy} onCancel={onCancel} />
    </form>
  );
}

function AddEntryForm({ busy, onAdd }: { busy: boolean; onAdd: (entry: AddressBookEntry) => Promise<boolean> }) {
  const [family, setFamily] = useState<Family>('ethereum');
  const [network, setNetwork] = useState<NetworkValue>(DEFAULT_NETWORK);
  const [address, setAddress] = useState('');
  const [name, setName] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const fields = { address: address.trim(), name };
    // The EVM network field always names a chain; its chain id field is required when it is typed.
    const entry: AddressBookEntry = family === 'ethereum' ? { family, chainId: chainIdOf(network) ?? Number.NaN, ...fields } : { family, ...fields };
    if (await onAdd(entry)) {
      setAddress('');
      setName('');
    }
  };

  return (
    <section className="panel" aria-labelledby="address-book-add-title">
      <h2 id="address-book-add-title">Name an address</h2>
      <form className="stack-form" aria-label="Name an address" onSubmit={(event) => void submit(event)}>
        <SelectField label="Chain" value={family} options={FAMILY_OPTIONS} onChange={setFamily} />
        {family === 'ethereum' && <NetworkField value={network} onChange={setNetwork} />}
        <AddressField label="Address" value={address} onChange={setAddress} />
        <label>
          Name
          <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={64} autoComplete="off" placeholder="Payroll" />
        </label>
        <div className="button-row start">
          <button type="submit" className="primary" disabled={busy}>
            Add to the address book
          </button>
        </div>
      </form>
    </section>
  );
}
