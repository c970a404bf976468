import { useCallback, useState, type FormEvent } from 'react';
import { addressFormatInWords, curveInWords } from '../../../shared/describe';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { CheckboxGroup } from '../components/CheckboxGroup';
import { ErrorNotice } from '../components/ErrorNotice';
import { QueryStatus } from '../components/QueryStatus';
import { RowAction } from '../components/RowAction';
import { DialogFooter } from '../components/DialogFooter';
import { Modal } from '../components/Modal';
import { PresetSelect } from '../components/PresetSelect';
import { Progress } from '../components/Progress';
import { PublicKey } from '../components/PublicKey';
import { SecretReveal, type RevealedSecret } from '../components/SecretReveal';
import { SelectField, type SelectOption } from '../components/SelectField';
import { TableHead } from '../components/TableHead';
import { NameField } from '../components/TextFields';
import { WaitingForVotes } from '../components/WaitingForVotes';
import { useAction, type Action } from '../mutations';
import { useChannel } from '../queries';
import { KEY_FORMATS, type KeyFormat } from '../key-formats';
import { ACCOUNT_PRESETS, accountsFor, addressFormatsFor, nextIndexFor, type AccountPresetId } from '../../../shared/wallets/account-presets';

type Wallet = ChannelOutput<'wallets.list'>[number];
type ActivityView = ChannelOutput<'activities.get'>;
type ExportSubject = { kind: 'wallet'; walletId: string; label: string } | { kind: 'private-key'; privateKeyId: string; label: string };

/** The organization's wallets and private keys held by the service, and their exports. */
export function WalletsScreen() {
  const wallets = useChannel('wallets.list');
  const privateKeys = useChannel('privateKeys.list');
  const action = useAction();
  const [exporting, setExporting] = useState<ExportSubject>();
  const [addingTo, setAddingTo] = useState<{ walletId: string; walletName: string; existingPaths: string[] }>();
  const [waitingFor, setWaitingFor] = useState<{ what: string; activity: ActivityView }>();

  return (
    <section className="screen" aria-labelledby="wallets-title">
      <h1 id="wallets-title">Wallets</h1>
      <p className="lead">Wallets and private keys live in the service’s enclave. Exports are sealed to a key on this computer and opened here.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {waitingFor !== undefined && (
        <WaitingForVotes what={waitingFor.what} activity={waitingFor.activity} onDismiss={() => setWaitingFor(undefined)} />
      )}

      <section className="panel" aria-labelledby="wallet-list-title">
        <h2 id="wallet-list-title">Wallets of the organization</h2>
        <QueryStatus query={wallets} loading="Loading wallets…" />
        {wallets.data?.length === 0 && <p className="empty">No wallets yet. Create one below.</p>}
        {wallets.data?.map((wallet) => (
          <WalletCard
            key={wallet.walletId}
            wallet={wallet}
            onAddAccounts={(existingPaths) => setAddingTo({ walletId: wallet.walletId, walletName: wallet.walletName, existingPaths })}
            onExport={() => setExporting({ kind: 'wallet', walletId: wallet.walletId, label: `wallet ${wallet.walletName}` })}
          />
        ))}
        <CreateWalletForm
          action={action}
          onDone={(outcome, name) => {
            if (outcome.state !== 'completed') setWaitingFor({ what: `creating wallet ${name}`, activity: outcome.activity });
          }}
        />
      </section>

      <section className="panel" aria-labelledby="private-key-list-title">
        <h2 id="private-key-list-title">Private keys</h2>
        <QueryStatus query={privateKeys} loading="Loading private keys…" />
        {privateKeys.data?.length === 0 && <p className="empty">No private keys yet. Create one below.</p>}
        {privateKeys.data !== undefined && privateKeys.data.length > 0 && (
          <table className="data-table" aria-label="Private keys">
            <TableHead columns={['Name', 'Curve', 'Addresses']} withActions />
            <tbody>
              {privateKeys.data.map((key) => (
                <tr key={key.privateKeyId}>
                  <th scope="row">
                    {key.privateKeyName}
                    {key.exported && <span className="badge badge-warning">exported</span>}
                    {key.imported && <span className="badge">imported</span>}
                  </th>
                  <td>{curveInWords(key.curve)}</td>
                  <td>
                    {key.addresses.map((address) => (
                      <div key={address.format}>
                        <code>{address.address}</code> <span className="muted">{addressFormatInWords(address.format)}</span>
                      </div>
                    ))}
                  </td>
                  <td className="row-actions">
                    <button
                      type="button"
                      className="small"
                      onClick={() =>
                        setExporting({ kind: 'private-key', privateKeyId: key.privateKeyId, label: `private key ${key.privateKeyName}` })
                      }
                    >
                      Export {key.privateKeyName}…
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <CreatePrivateKeyForm
          action={action}
          onDone={(outcome, name) => {
            if (outcome.state !== 'completed') setWaitingFor({ what: `creating private key ${name}`, activity: outcome.activity });
          }}
        />
      </section>

      <ExportRequestsPanel />

      {addingTo !== undefined && <AddAccountsDialog wallet={addingTo} onClose={() => setAddingTo(undefined)} onDone={() => setAddingTo(undefined)} />}
      {exporting !== undefined && <ExportDialog subject={exporting} onClose={() => setExporting(undefined)} />}
    </section>
  );
}

function WalletCard({ wallet, onAddAccounts, onExport }: { wallet: Wallet; onAddAccounts: (existingPaths: string[]) => void; onExport: () => void }) {
  const accounts = useChannel('wallets.accounts', { walletId: wallet.walletId });
  return (
    <article className="wallet-card" aria-label={`Wallet ${wallet.walletName}`}>
      <header className="profile-card-header">
        <h3>{wallet.walletName}</h3>
        {wallet.exported && <span className="badge badge-warning">exported</span>}
        {wallet.imported && <span className="badge">imported</span>}
        <code className="muted">{wallet.walletId}</code>
      </header>
      <QueryStatus query={accounts} loading={`Loading the accounts of ${wallet.walletName}…`} />
      {accounts.data?.length === 0 && <p className="empty">No accounts.</p>}
      {accounts.data !== undefined && accounts.data.length > 0 && (
        <table className="data-table" aria-label={`Accounts of ${wallet.walletName}`}>
          <TableHead columns={['Chain', 'Path', 'Address']} />
          <tbody>
            {accounts.data.map((account) => (
              <tr key={account.walletAccountId}>
                <td>{addressFormatInWords(account.addressFormat)}</td>
                <td>
                  <code>{account.path}</code>
                </td>
                <td>
                  <PublicKey value={account.address} label={`${wallet.walletName} ${account.path}`} what="address" shortened={false} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="button-row start">
        <button type="button" onClick={() => onAddAccounts((accounts.data ?? []).map((account) => account.path))}>
          Add accounts…
        </button>
        <button type="button" onClick={onExport}>
          Export {wallet.walletName}…
        </button>
      </div>
    </article>
  );
}

function CountField({ label, count, onCount }: { label: string; count: string; onCount: (count: string) => void }) {
  return (
    <label>
      {label}
      <input type="number" min={1} max={100} value={count} onChange={(event) => onCount(event.target.value)} required />
    </label>
  );
}

/** A new wallet with accounts on several chains at once, each starting at the standard first path (index 0). */
function CreateWalletForm({ action, onDone }: { action: Action; onDone: (outcome: ChannelOutput<'wallets.create'>, name: string) => void }) {
  const [name, setName] = useState('');
  const [chains, setChains] = useState<AccountPresetId[]>(['ethereum']);
  const [count, setCount] = useState('1');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const accounts = chains.flatMap((preset) => accountsFor(preset, 0, Number(count)));
    const created = await action.run(`Creating wallet ${name}…`, 'wallets.create', { name, accounts });
    if (created === undefined) return;
    setName('');
    onDone(created, name);
  };
  return (
    <form className="stack-form" aria-label="Create wallet" onSubmit={(event) => void submit(event)}>
      <NameField label="Wallet name" value={name} onChange={setName} maxLength={256} />
      <CheckboxGroup legend="Chains" options={ACCOUNT_PRESETS} chosen={chains} onChange={setChains} />
      <CountField label="Accounts per chain" count={count} onCount={setCount} />
      <p className="hint">
        First paths: {chains.length === 0 ? 'choose at least one chain' : chains.map((preset) => accountsFor(preset, 0, 1)[0]!.path).join(', ')}
      </p>
      <button type="submit" className="primary" disabled={action.busy !== undefined || chains.length === 0}>
        Create wallet
      </button>
    </form>
  );
}

/** A private key with one address, its curve and address format taken from the same presets as wallet accounts. */
function CreatePrivateKeyForm({ action, onDone }: { action: Action; onDone: (outcome: ChannelOutput<'privateKeys.create'>, name: string) => void }) {
  const [name, setName] = useState('');
  const [preset, setPreset] = useState<AccountPresetId>('ethereum');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { curve } = ACCOUNT_PRESETS.find((candidate) => candidate.id === preset)!;
    const created = await action.run(`Creating private key ${name}…`, 'privateKeys.create', {
      name,
      curve,
      addressFormats: addressFormatsFor(preset),
    });
    if (created === undefined) return;
    setName('');
    onDone(created, name);
  };
  return (
    <form className="inline-form" aria-label="Create private key" onSubmit={(event) => void submit(event)}>
      <NameField label="Private key name" value={name} onChange={setName} maxLength={256} />
      <PresetSelect label="Key type" value={preset} onChange={setPreset} />
      <button type="submit" className="primary" disabled={action.busy !== undefined}>
        Create private key
      </button>
    </form>
  );
}

/** More accounts on one chain, continuing after the highest index the wallet already uses there. */
function AddAccountsDialog({
  wallet,
  onClose,
  onDone,
}: {
  wallet: { walletId: string; walletName: string; existingPaths: readonly string[] };
  onClose: () => void;
  onDone: () => void;
}) {
  const action = useAction();
  const [preset, setPreset] = useState<AccountPresetId>('ethereum');
  const [count, setCount] = useState('1');
  const first = nextIndexFor(preset, wallet.existingPaths);
  const accounts = accountsFor(preset, first, Math.max(1, Math.min(100, Number(count) || 1)));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = await action.run(`Adding accounts to ${wallet.walletName}…`, 'wallets.createAccounts', { walletId: wallet.walletId, accounts });
    if (done !== undefined) onDone();
  };
  return (
    <Modal title={`Add accounts to ${wallet.walletName}`} onClose={onClose}>
      <form className="stack-form" onSubmit={(event) => void submit(event)}>
        <PresetSelect label="Chain" value={preset} onChange={setPreset} />
        <CountField label="Accounts" count={count} onCount={setCount} />
        <p className="hint" role="status">
          {accounts.length === 1 ? `Path: ${accounts[0]!.path}` : `Paths: ${accounts[0]!.path} to ${accounts.at(-1)!.path}`}
          {first > 0 && ` (this chain is in use up to index ${first - 1})`}
        </p>
        <DialogFooter action={action} submitLabel="Add accounts" onCancel={onClose} />
      </form>
    </Modal>
  );
}

/**
 * Export, then reveal. The secret is held only in this dialog's state: hiding it, closing the dialog or leaving the
 * screen drops it.
 */
function ExportDialog({ subject, onClose }: { subject: ExportSubject; onClose: () => void }) {
  const encryptionKeys = useChannel('keys.listEncryptionKeys');
  const action = useAction();
  const [target, setTarget] = useState('');
  const [keyFormat, setKeyFormat] = useState<KeyFormat>('hexadecimal');
  const [secret, setSecret] = useState<RevealedSecret>();
  const [waiting, setWaiting] = useState<{ activity: ActivityView; encryptionKey: string | undefined; stillWaiting?: string }>();
  const hide = useCallback(() => setSecret(undefined), []);
  // The empty value stands for a one-time key; a key missing from the keychain could not open the bundle.
  const targets: SelectOption<string>[] = [
    { value: '', label: 'A fresh one-time key (reveal now)' },
    ...(encryptionKeys.data ?? []).map((key) => ({ value: key.name, label: `Encryption key ${key.name}`, disabled: key.missing })),
  ];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const exportTarget = target === '' ? { kind: 'ephemeral' as const } : { kind: 'encryption-key' as const, name: target };
    const exportSubject =
      subject.kind === 'wallet'
        ? { kind: 'wallet' as const, walletId: subject.walletId }
        : { kind: 'private-key' as const, privateKeyId: subject.privateKeyId };
    const result = await action.run(`Exporting ${subject.label}…`, 'exports.reveal', {
      subject: exportSubject,
      target: exportTarget,
      ...(subject.kind === 'private-key' ? { keyFormat } : {}),
    });
    if (result === undefined) return;
    if (result.state === 'revealed') setSecret(result.secret);
    else setWaiting({ activity: result.activity, encryptionKey: target === '' ? undefined : target });
  };

  const openCompleted = async () => {
    if (waiting === undefined) return;
    const { encryptionKey } = waiting;
    const activityId = waiting.activity.id;
    const result = await action.run('Opening the approved export…', 'exports.reveal', {
      subject: { kind: 'completed-export', activityId },
      target: encryptionKey === undefined ? { kind: 'ephemeral' } : { kind: 'encryption-key', name: encryptionKey },
      ...(subject.kind === 'private-key' ? { keyFormat } : {}),
    });
    if (result === undefined) return;
    if (result.state !== 'revealed') {
      setWaiting({ ...waiting, stillWaiting: result.state });
      return;
    }
    setWaiting(undefined);
    setSecret(result.secret);
  };

  return (
    <Modal title={`Export ${subject.label}`} onClose={onClose}>
      {secret !== undefined ? (
        <SecretReveal secret={secret} subject={subject.label} onHide={hide} />
      ) : waiting !== undefined ? (
        <WaitingForVotes what={`exporting ${subject.label}`} activity={waiting.activity}>
          {waiting.stillWaiting !== undefined && (
            <p>{waiting.stillWaiting === 'rejected' ? 'The export was rejected.' : 'Not approved yet: it is still waiting for votes.'}</p>
          )}
          <p>
            {waiting.encryptionKey === undefined
              ? 'It is sealed to a one-time key that this desktop’s keychain keeps until you open the export or withdraw it, or until it is rejected or its approvals expire.'
              : `It is sealed to encryption key ${waiting.encryptionKey}.`}{' '}
            QuorumKey tells you when it is approved; open it then here or under “Exports you asked for”.
          </p>
          <button type="button" onClick={() => void openCompleted()} disabled={action.busy !== undefined}>
            Open it once approved
          </button>
        </WaitingForVotes>
      ) : (
        <form className="stack-form" aria-label="Export" onSubmit={(event) => void submit(event)}>
          <SelectField label="Encrypt to" value={target} options={targets} onChange={setTarget} />
          {subject.kind === 'private-key' && <SelectField label="Key format" value={keyFormat} options={KEY_FORMATS} onChange={setKeyFormat} />}
          <p className="hint">
            The service marks what you export as exported; the bundle is verified against the profile’s enclave signer before it is opened.
          </p>
          <DialogFooter action={action} submitLabel="Export and reveal" onCancel={onClose} />
        </form>
      )}
      {(secret !== undefined || waiting !== undefined) && (
        <>
          <Progress label={action.busy} />
          {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} />}
        </>
      )}
      {secret === undefined && waiting !== undefined && (
        <div className="button-row">
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      )}
    </Modal>
  );
}

type ExportRequest = ChannelOutput<'exports.requests'>[number];

/**
 * The exports this desktop asked for that wait for votes, as main keeps them: each opens here once approved, with
 * the key it is sealed to (a one-time key is then let go), or is withdrawn while it waits (main decides how, and asks
 * on its own surface). Main's `export` event brings an approval or an end here at once.
 */
function ExportRequestsPanel() {
  const requests = useChannel('exports.requests');
  const action = useAction();
  const [secret, setSecret] = useState<{ what: string; secret: RevealedSecret }>();
  const [withdrawn, setWithdrawn] = useState<string>();
  const hide = useCallback(() => setSecret(undefined), []);
  const list = requests.data ?? [];
  // The revealed secret, or what a withdrawal did, stays up after its request is gone: that is what ended the request.
  if (list.length === 0 && secret === undefined && withdrawn === undefined) return null;
  const open = async (request: ExportRequest) => {
    const target = request.sealedTo.kind === 'one-time' ? { kind: 'ephemeral' as const } : request.sealedTo;
    const result = await action.run(`Opening the export of ${request.what}…`, 'exports.reveal', {
      subject: { kind: 'completed-export', activityId: request.activityId },
      target,
    });
    if (result?.state === 'revealed') setSecret({ what: request.what, secret: result.secret });
  };
  const withdraw = async (request: ExportRequest) => {
    const result = await action.run(`Withdrawing the export of ${request.what}…`, 'exports.withdraw', { activityId: request.activityId });
    if (result !== undefined) setWithdrawn(result.summary);
  };
  return (
    <section className="panel" aria-labelledby="export-requests-title">
      <h2 id="export-requests-title">Exports you asked for</h2>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {withdrawn !== undefined && (
        <div className="notice notice-info" role="status" aria-label="Export withdrawn">
          <p className="notice-title">{withdrawn}</p>
          <button type="button" className="link-button" onClick={() => setWithdrawn(undefined)}>
            Dismiss
          </button>
        </div>
      )}
      {list.length === 0 && <p className="empty">None waiting.</p>}
      <table className="data-table" aria-label="Exports you asked for" hidden={list.length === 0}>
        <TableHead columns={['Export', 'Sealed to', 'State']} withActions />
        <tbody>
          {list.map((request) => (
            <tr key={request.activityId}>
              <th scope="row">{request.what}</th>
              <td>
                {request.sealedTo.kind === 'one-time' ? 'a one-time key held in this desktop’s keychain' : `encryption key ${request.sealedTo.name}`}
              </td>
              <td>{request.approved ? <span className="badge badge-active">approved</span> : <span className="badge">waiting for votes</span>}</td>
              <td className="row-actions">
                {request.approved ? (
                  <button type="button" className="small primary" onClick={() => void open(request)} disabled={action.busy !== undefined}>
                    Open the export of {request.what}
                  </button>
                ) : (
                  <RowAction
                    verb="Withdraw…"
                    subject={`the export of ${request.what}`}
                    danger
                    disabled={action.busy !== undefined}
                    onClick={() => void withdraw(request)}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {secret !== undefined && (
        <Modal title={`The exported ${secret.what}`} onClose={hide}>
          <SecretReveal secret={secret.secret} subject={secret.what} onHide={hide} />
        </Modal>
      )}
    </section>
  );
}
