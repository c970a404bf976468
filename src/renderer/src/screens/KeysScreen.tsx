import { useRef, useState, type FormEvent } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { ErrorNotice } from '../components/ErrorNotice';
import { QueryStatus } from '../components/QueryStatus';
import { DialogFooter } from '../components/DialogFooter';
import { ConfirmDialog, Modal, ReadingDialog } from '../components/Modal';
import { Progress } from '../components/Progress';
import { PublicKey } from '../components/PublicKey';
import { RowAction } from '../components/RowAction';
import { SelectField, type SelectOption } from '../components/SelectField';
import { TableHead } from '../components/TableHead';
import { NameField, SecretField } from '../components/TextFields';
import { useAction, type Action } from '../mutations';
import { useChannel } from '../queries';
import { PasskeyPanel } from './PasskeyPanel';
import { TokenKeysPanel } from './TokenKeysPanel';

type ApiKey = ChannelOutput<'keys.listApiKeys'>[number];
type EncryptionKey = ChannelOutput<'keys.listEncryptionKeys'>[number];
type Curve = ApiKey['curve'];

const CURVES: SelectOption<Curve>[] = [
  { value: 'p256', label: 'P-256 (Turnkey’s default)' },
  { value: 'secp256k1', label: 'secp256k1' },
  { value: 'ed25519', label: 'Ed25519' },
];

/** API keys (sign requests) in the OS keychain or on a PKCS#11 token, and encryption keys (receive exports) in the keychain. */
export function KeysScreen() {
  const apiKeys = useChannel('keys.listApiKeys');
  const encryptionKeys = useChannel('keys.listEncryptionKeys');
  const action = useAction();
  const [renaming, setRenaming] = useState<ApiKey>();
  const [deleting, setDeleting] = useState<{ kind: 'api' | 'encryption'; name: string; usedByProfiles: readonly string[] }>();

  const confirmDelete = async () => {
    if (deleting === undefined) return;
    const { kind, name } = deleting;
    setDeleting(undefined);
    if (kind === 'api') await action.run(`Deleting ${name}…`, 'keys.deleteApiKey', { name });
    else await action.run(`Deleting ${name}…`, 'keys.deleteEncryptionKey', { name });
  };

  return (
    <section className="screen" aria-labelledby="keys-title">
      <h1 id="keys-title">Keys</h1>
      <p className="lead">Private keys stay in your operating system’s keychain or on a hardware token; this screen only ever sees public keys.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}

      <section className="panel" aria-labelledby="api-keys-title">
        <h2 id="api-keys-title">API keys</h2>
        <p className="hint">Profiles sign their requests with an API key.</p>
        <QueryStatus query={apiKeys} loading="Loading API keys…" />
        {apiKeys.data !== undefined && (
          <ApiKeyTable
            keys={apiKeys.data}
            onRename={setRenaming}
            onDelete={(key) => setDeleting({ kind: 'api', name: key.name, usedByProfiles: key.usedByProfiles })}
          />
        )}
        <CreateApiKeyForm action={action} />
        <ImportApiKeyForm action={action} />
      </section>

      <TokenKeysPanel />

      <PasskeyPanel />

      <section className="panel" aria-labelledby="encryption-keys-title">
        <h2 id="encryption-keys-title">Encryption keys</h2>
        <p className="hint">Wallet and private-key exports are encrypted to one of these P-256 keys.</p>
        <QueryStatus query={encryptionKeys} loading="Loading encryption keys…" />
        {encryptionKeys.data !== undefined && (
          <EncryptionKeyTable keys={encryptionKeys.data} onDelete={(name) => setDeleting({ kind: 'encryption', name, usedByProfiles: [] })} />
        )}
        <CreateEncryptionKeyForm action={action} />
      </section>

      {renaming !== undefined && <RenameDialog apiKey={renaming} onClose={() => setRenaming(undefined)} onDone={() => setRenaming(undefined)} />}
      {deleting !== undefined && deleting.usedByProfiles.length > 0 && (
        // The keychain refuses this delete: say why before anyone confirms anything.
        <ReadingDialog title={`API key ${deleting.name} cannot be deleted yet`} onClose={() => setDeleting(undefined)}>
          <div className="modal-body">
            <p>
              It is used by {deleting.usedByProfiles.length === 1 ? 'profile' : 'profiles'}{' '}
              {deleting.usedByProfiles.map((name) => `"${name}"`).join(', ')}, which would stop working. Remove{' '}
              {deleting.usedByProfiles.length === 1 ? 'that profile' : 'those profiles'} on the Profiles screen first.
            </p>
          </div>
        </ReadingDialog>
      )}
      {deleting !== undefined && deleting.usedByProfiles.length === 0 && (
        <ConfirmDialog
          title={`Delete ${deleting.kind === 'api' ? 'API' : 'encryption'} key ${deleting.name}?`}
          message={<p>Its private key is removed from the OS keychain. This cannot be undone: keep a backup if the service still knows this key.</p>}
          confirmLabel="Delete key"
          onConfirm={() => void confirmDelete()}
          onCancel={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function ApiKeyTable({ keys, onRename, onDelete }: { keys: ApiKey[]; onRename: (key: ApiKey) => void; onDelete: (key: ApiKey) => void }) {
  if (keys.length === 0) return <p className="empty">No API keys yet. Create one below or import one you already use.</p>;
  return (
    <table className="data-table" aria-label="API keys">
      <TableHead columns={['Name', 'Curve', 'Public key', 'Used by', 'Created']} withActions />
      <tbody>
        {keys.map((key) => (
          <tr key={key.id}>
            <th scope="row">
              {key.name}
              {key.missing && (
                <span className="badge badge-warning" title="The OS keychain no longer holds this key's private key">
                  missing from keychain
                </span>
              )}
            </th>
            <td>{key.curve}</td>
            <td>
              <PublicKey value={key.publicKey} label={key.name} />
            </td>
            <td>{key.usedByProfiles.length === 0 ? <span className="muted">no profile</span> : key.usedByProfiles.join(', ')}</td>
            <td>
              <time dateTime={key.createdAt}>{new Date(key.createdAt).toLocaleString()}</time>
            </td>
            <td className="row-actions">
              <RowAction verb="Rename" subject={key.name} onClick={() => onRename(key)} />
              <RowAction verb="Delete" subject={key.name} danger onClick={() => onDelete(key)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function EncryptionKeyTable({ keys, onDelete }: { keys: EncryptionKey[]; onDelete: (name: string) => void }) {
  if (keys.length === 0) return <p className="empty">No encryption keys yet.</p>;
  return (
    <table className="data-table" aria-label="Encryption keys">
      <TableHead columns={['Name', 'Public key', 'Created']} withActions />
      <tbody>
        {keys.map((key) => (
          <tr key={key.id}>
            <th scope="row">
              {key.name}
              {key.missing && <span className="badge badge-warning">missing from keychain</span>}
            </th>
            <td>
              <PublicKey value={key.publicKey} label={key.name} />
            </td>
            <td>
              <time dateTime={key.createdAt}>{new Date(key.createdAt).toLocaleString()}</time>
            </td>
            <td className="row-actions">
              <RowAction verb="Delete" subject={key.name} danger onClick={() => onDelete(key.name)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateApiKeyForm({ action }: { action: Action }) {
  const [name, setName] = useState('');
  const [curve, setCurve] = useState<Curve>('p256');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const created = await action.run(`Creating API key ${name}…`, 'keys.generateApiKey', { name, curve });
    if (created !== undefined) setName('');
  };
  return (
    <form className="inline-form" onSubmit={(event) => void submit(event)} aria-label="Create API key">
      <NameField label="Name" value={name} onChange={setName} maxLength={64} />
      <SelectField label="Curve" value={curve} options={CURVES} onChange={setCurve} />
      <button type="submit" className="primary" disabled={action.busy !== undefined}>
        Create API key
      </button>
    </form>
  );
}

function ImportApiKeyForm({ action }: { action: Action }) {
  const [source, setSource] = useState<'hex' | 'tkcli'>('hex');
  const [name, setName] = useState('');
  const [curve, setCurve] = useState<Curve>('p256');
  const [privateKey, setPrivateKey] = useState('');
  const [privateKeyFile, setPrivateKeyFile] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const imported =
      source === 'hex'
        ? await action.run(`Importing API key ${name}…`, 'keys.importApiKey', { name, curve, privateKey })
        : await action.run(`Importing API key ${name} from ${privateKeyFile}…`, 'keys.importTkcliApiKey', { name, privateKeyFile });
    // The private key leaves the form either way: on failure it must be pasted again, never kept around.
    setPrivateKey('');
    if (imported === undefined) return;
    setName('');
    setPrivateKeyFile('');
  };
  return (
    <details className="import">
      <summary>Import an existing API key</summary>
      <form className="stack-form" onSubmit={(event) => void submit(event)} aria-label="Import API key">
        <fieldset>
          <legend>Source</legend>
          <label className="radio">
            <input type="radio" name="import-source" checked={source === 'hex'} onChange={() => setSource('hex')} />
            Private key (hex)
          </label>
          <label className="radio">
            <input type="radio" name="import-source" checked={source === 'tkcli'} onChange={() => setSource('tkcli')} />
            Turnkey CLI key file
          </label>
        </fieldset>
        <NameField label="Name" value={name} onChange={setName} maxLength={64} />
        {source === 'hex' ? (
          <>
            <SelectField label="Curve" value={curve} options={CURVES} onChange={setCurve} />
            <SecretField label="Private key" value={privateKey} onChange={setPrivateKey} required placeholder="64 hex characters" />
          </>
        ) : (
          <label>
            Private key file
            <input
              value={privateKeyFile}
              onChange={(event) => setPrivateKeyFile(event.target.value)}
              required
              spellCheck={false}
              placeholder="~/.config/turnkey/keys/default.private"
            />
          </label>
        )}
        <button type="submit" disabled={action.busy !== undefined}>
          Import API key
        </button>
      </form>
    </details>
  );
}

function CreateEncryptionKeyForm({ action }: { action: Action }) {
  const [name, setName] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done =
      privateKey === ''
        ? await action.run(`Creating encryption key ${name}…`, 'keys.generateEncryptionKey', { name })
        : await action.run(`Importing encryption key ${name}…`, 'keys.importEncryptionKey', { name, privateKey });
    setPrivateKey('');
    if (done !== undefined) setName('');
  };
  return (
    <form className="inline-form" onSubmit={(event) => void submit(event)} aria-label="Create encryption key">
      <NameField label="Name" value={name} onChange={setName} maxLength={64} />
      <SecretField
        label={
          <span>
            Private key to import <span className="muted">(leave empty to generate)</span>
          </span>
        }
        value={privateKey}
        onChange={setPrivateKey}
      />
      <button type="submit" className="primary" disabled={action.busy !== undefined}>
        {privateKey === '' ? 'Create encryption key' : 'Import encryption key'}
      </button>
    </form>
  );
}

function RenameDialog({ apiKey, onClose, onDone }: { apiKey: ApiKey; onClose: () => void; onDone: () => void }) {
  // Its own action, so a refused rename is shown inside the dialog rather than behind it.
  const action = useAction();
  const [newName, setNewName] = useState(apiKey.name);
  const nameField = useRef<HTMLInputElement>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const renamed = await action.run(`Renaming ${apiKey.name}…`, 'keys.renameApiKey', { name: apiKey.name, newName });
    if (renamed !== undefined) onDone();
  };
  return (
    <Modal title={`Rename API key ${apiKey.name}`} onClose={onClose} initialFocus={nameField}>
      <form className="stack-form" onSubmit={(event) => void submit(event)}>
        <label>
          New name
          <input value={newName} onChange={(event) => setNewName(event.target.value)} required maxLength={64} ref={nameField} />
        </label>
        {apiKey.usedByProfiles.length > 0 && <p className="hint">Profiles using it ({apiKey.usedByProfiles.join(', ')}) follow the new name.</p>}
        <DialogFooter action={action} submitLabel="Rename" onCancel={onClose} />
      </form>
    </Modal>
  );
}
