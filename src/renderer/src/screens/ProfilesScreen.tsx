import { useState, type FormEvent } from 'react';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY } from '../../../shared/crypto/signers';
import { SANDBOX_RESET_PHRASE, type ChannelInput, type ChannelOutput } from '../../../shared/ipc/contract';
import { DialogFooter } from '../components/DialogFooter';
import { ErrorNotice } from '../components/ErrorNotice';
import { ConfirmDialog, Modal } from '../components/Modal';
import { Progress } from '../components/Progress';
import { QueryStatus } from '../components/QueryStatus';
import { PublicKey } from '../components/PublicKey';
import { SignerKeyField, signerOrigin } from '../components/SignerKeyField';
import { NameField } from '../components/TextFields';
import { useAction, type Action } from '../mutations';
import { useChannel } from '../queries';
import { useUi } from '../store';

type Profile = ChannelOutput<'profiles.list'>[number];

const TURNKEY_API_URL = 'https://api.turnkey.com';

/** Where and as whom the app talks to a service: list, switch, add a hosted one, remove. */
export function ProfilesScreen() {
  const profiles = useChannel('profiles.list');
  const active = useChannel('profiles.getActive');
  const apiKeys = useChannel('keys.listApiKeys');
  const action = useAction();
  const show = useUi((state) => state.show);
  const [removing, setRemoving] = useState<Profile>();
  const [editing, setEditing] = useState<Profile>();
  // The running Sandbox's signer, offered where a signer key is entered (a hosted profile pointing at the Sandbox).
  const sandboxSigner = useChannel('sandbox.status').data?.enclaveSignerPublicKey;

  const switchTo = (profile: Profile) => action.run(`Switching to ${profile.name}…`, 'profiles.setActive', { id: profile.id });

  /** Starts the Sandbox, or brings its profile back if it runs without one; it becomes the active profile then. */
  const startSandbox = () => action.run('Starting the Sandbox…', 'sandbox.restoreProfile');

  const confirmRemove = async () => {
    if (removing === undefined) return;
    const profile = removing;
    setRemoving(undefined);
    await action.run(`Removing ${profile.name}…`, 'profiles.remove', { id: profile.id });
  };

  const list = profiles.data;
  const activeId = active.data?.id;
  const keyNames = apiKeys.data?.map((key) => key.name) ?? [];

  return (
    <section className="screen" aria-labelledby="profiles-title">
      <h1 id="profiles-title">Profiles</h1>
      <p className="lead">A profile is a service, an organization in it, and the API key QuorumKey signs with.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      <QueryStatus query={profiles} loading="Loading profiles…" />

      {list !== undefined && list.length === 0 && (
        <section className="panel welcome" aria-labelledby="welcome-title">
          <h2 id="welcome-title">Welcome to QuorumKey</h2>
          <p>
            The Sandbox is a complete Turnkey-compatible service running on this computer: its own organization, with a root API key kept in your
            operating system’s keychain. Try wallets, policies, votes and exports there first; nothing leaves this machine.
          </p>
          <div className="button-row start">
            <button type="button" className="primary" onClick={() => void startSandbox()} disabled={action.busy !== undefined}>
              Start the Sandbox
            </button>
          </div>
          <p>Or connect to your organization on a hosted service:</p>
          <ol>
            <li>
              Create or import an API key on the{' '}
              <button type="button" className="link-button" onClick={() => show('keys')}>
                Keys
              </button>{' '}
              screen, and register its public key with your organization.
            </li>
            <li>Add a profile for your organization below, signing with that key.</li>
          </ol>
        </section>
      )}

      {list !== undefined && list.length > 0 && (
        <ul className="profile-list" aria-label="Profiles">
          {list.map((profile) => (
            <ProfileCard
              key={profile.id}
              profile={profile}
              active={profile.id === activeId}
              busy={action.busy !== undefined}
              onSwitch={() => void switchTo(profile)}
              onRemove={() => setRemoving(profile)}
              onEdit={() => setEditing(profile)}
              sandboxSigner={sandboxSigner}
            />
          ))}
        </ul>
      )}

      {list !== undefined && list.length > 0 && <SandboxPanel action={action} hasProfile={list.some((profile) => profile.kind === 'sandbox')} />}

      <AddHostedProfileForm action={action} keyNames={keyNames} sandboxSigner={sandboxSigner} />

      {editing !== undefined && (
        <EditProfileDialog
          profile={editing}
          sandboxSigner={sandboxSigner}
          onClose={() => setEditing(undefined)}
          onSaved={() => setEditing(undefined)}
        />
      )}

      {removing !== undefined && (
        <ConfirmDialog
          title={`Remove profile ${removing.name}?`}
          message={<p>The profile’s settings are forgotten; its API key {removing.apiKeyName} stays on the Keys screen.</p>}
          confirmLabel="Remove profile"
          onConfirm={() => void confirmRemove()}
          onCancel={() => setRemoving(undefined)}
        />
      )}
    </section>
  );
}

function ProfileCard({
  profile,
  active,
  busy,
  onSwitch,
  onRemove,
  onEdit,
  sandboxSigner,
}: {
  profile: Profile;
  sandboxSigner: string | null | undefined;
  active: boolean;
  busy: boolean;
  onSwitch: () => void;
  onRemove: () => void;
  onEdit: () => void;
}) {
  const titleId = `profile-${profile.id}`;
  return (
    <li className={active ? 'panel profile-card active' : 'panel profile-card'} aria-labelledby={titleId}>
      <header className="profile-card-header">
        <h2 id={titleId}>{profile.name}</h2>
        <span className={`badge badge-${profile.kind}`}>{profile.kind === 'sandbox' ? 'Sandbox' : 'Hosted'}</span>
        {active && <span className="badge badge-active">Active</span>}
      </header>
      <dl className="facts">
        <dt>Service</dt>
        <dd>
          <code>{profile.baseUrl}</code>
        </dd>
        <dt>Organization</dt>
        <dd>
          <code>{profile.organizationId}</code>
        </dd>
        <dt>API key</dt>
        <dd>{profile.apiKeyName}</dd>
        {profile.tokenKey !== undefined && (
          <>
            <dt>Token key</dt>
            <dd>
              {profile.tokenKey.keyLabel} on token {profile.tokenKey.tokenLabel} (<code>{profile.tokenKey.publicKey}</code>)
            </dd>
          </>
        )}
        {profile.authProxyUrl !== undefined && (
          <>
            <dt>Auth proxy</dt>
            <dd>
              <code>{profile.authProxyUrl}</code>
            </dd>
          </>
        )}
        <dt>Enclave signer</dt>
        <dd>
          <PublicKey value={profile.enclaveSignerPublicKey} label={`${profile.name} enclave signer`} />{' '}
          <span className="muted">{signerOrigin(profile.enclaveSignerPublicKey, sandboxSigner, 'not a signer QuorumKey knows: pinned by hand')}</span>
        </dd>
      </dl>
      <div className="button-row">
        {/* The visible text is the whole name, so speech control users can say what they see. */}
        <button type="button" className="primary" onClick={onSwitch} disabled={active || busy}>
          {active ? 'In use' : `Switch to ${profile.name}`}
        </button>
        <button type="button" onClick={onEdit} disabled={busy} aria-label={`Edit ${profile.name}`}>
          Edit…
        </button>
        <button type="button" className="danger" onClick={onRemove} disabled={busy} aria-label={`Remove ${profile.name}`}>
          Remove
        </button>
      </div>
    </li>
  );
}

function AddHostedProfileForm({ action, keyNames, sandboxSigner }: { action: Action; keyNames: string[]; sandboxSigner: string | null | undefined }) {
  const [name, setName] = useState('');
  const [signer, setSigner] = useState(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);
  const [baseUrl, setBaseUrl] = useState(TURNKEY_API_URL);
  const [organizationId, setOrganizationId] = useState('');
  const [apiKeyName, setApiKeyName] = useState('');
  const [authProxyUrl, setAuthProxyUrl] = useState('');
  const chosenKey = apiKeyName !== '' ? apiKeyName : (keyNames[0] ?? '');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input: ChannelInput<'profiles.add'> = {
      name,
      kind: 'hosted',
      baseUrl,
      organizationId,
      apiKeyName: chosenKey,
      enclaveSignerPublicKey: signer.trim(),
    };
    if (authProxyUrl !== '') input.authProxyUrl = authProxyUrl;
    const added = await action.run(`Adding profile ${name}…`, 'profiles.add', input);
    if (added === undefined) return;
    setName('');
    setOrganizationId('');
    setAuthProxyUrl('');
    setSigner(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);
  };

  return (
    <section className="panel" aria-labelledby="add-profile-title">
      <h2 id="add-profile-title">Add a hosted profile</h2>
      {keyNames.length === 0 ? (
        <p className="empty">Create or import an API key first: a profile needs one to sign its requests.</p>
      ) : (
        <form className="stack-form" onSubmit={(event) => void submit(event)} aria-label="Add hosted profile">
          <NameField label="Profile name" value={name} onChange={setName} maxLength={64} />
          <label>
            Service URL
            <input type="url" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} required spellCheck={false} />
          </label>
          <label>
            Organization ID
            <input
              value={organizationId}
              onChange={(event) => setOrganizationId(event.target.value)}
              required
              spellCheck={false}
              placeholder="5f2c3e4a-0b1d-4c6e-9f8a-7b6c5d4e3f21"
            />
          </label>
          <label>
            API key
            <select value={chosenKey} onChange={(event) => setApiKeyName(event.target.value)}>
              {keyNames.map((keyName) => (
                <option key={keyName} value={keyName}>
                  {keyName}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>
              Auth proxy URL <span className="muted">(optional)</span>
            </span>
            <input type="url" value={authProxyUrl} onChange={(event) => setAuthProxyUrl(event.target.value)} spellCheck={false} />
          </label>
          <SignerKeyField
            label="Enclave signer key (pinned: export bundles must carry its signature)"
            value={signer}
            onChange={setSigner}
            sandboxSigner={sandboxSigner}
          />
          <button type="submit" className="primary" disabled={action.busy !== undefined}>
            Add profile
          </button>
        </form>
      )}
    </section>
  );
}

/**
 * A profile's name, service URL and pinned enclave signer, changed through main: a new URL or signer is shown on
 * main's confirmation, old → new, before anything is saved. The Sandbox profile's URL and signer follow the Sandbox.
 */
function EditProfileDialog({
  profile,
  sandboxSigner,
  onClose,
  onSaved,
}: {
  profile: Profile;
  sandboxSigner: string | null | undefined;
  onClose: () => void;
  onSaved: () => void;
}) {
  const action = useAction();
  const [name, setName] = useState(profile.name);
  const [baseUrl, setBaseUrl] = useState(profile.baseUrl);
  const [signer, setSigner] = useState(profile.enclaveSignerPublicKey);
  const hosted = profile.kind === 'hosted';
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const changes: ChannelInput<'profiles.update'>['changes'] = {};
    if (name !== profile.name) changes.name = name;
    if (hosted && baseUrl !== profile.baseUrl) changes.baseUrl = baseUrl;
    if (hosted && signer.trim().toLowerCase() !== profile.enclaveSignerPublicKey) changes.enclaveSignerPublicKey = signer.trim();
    if (Object.keys(changes).length === 0) {
      onClose();
      return;
    }
    const saved = await action.run(`Saving profile ${profile.name}…`, 'profiles.update', { id: profile.id, changes });
    if (saved !== undefined) onSaved();
  };
  return (
    <Modal title={`Edit profile ${profile.name}`} onClose={onClose}>
      <form className="stack-form" aria-label={`Edit profile ${profile.name}`} onSubmit={(event) => void submit(event)}>
        <NameField label="Profile name" value={name} onChange={setName} maxLength={64} />
        {hosted ? (
          <>
            <label>
              Service URL
              <input type="url" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} required spellCheck={false} />
            </label>
            <SignerKeyField label="Enclave signer key" value={signer} onChange={setSigner} sandboxSigner={sandboxSigner} />
            <p className="hint">A new service URL or signer key is shown on QuorumKey’s own confirmation, old and new, before it is saved.</p>
          </>
        ) : (
          <p className="hint">The Sandbox profile’s address and signer follow the Sandbox on this computer.</p>
        )}
        <DialogFooter action={action} submitLabel="Save profile" onCancel={onClose} />
      </form>
    </Modal>
  );
}

/**
 * The Sandbox, the service on this computer: its state and address, start and stop, a reset that asks for a typed
 * phrase first, and bringing its profile back after it was removed.
 */
function SandboxPanel({ action, hasProfile }: { action: Action; hasProfile: boolean }) {
  const status = useChannel('sandbox.status');
  const [resetting, setResetting] = useState(false);
  const [phrase, setPhrase] = useState('');
  const busy = action.busy !== undefined;
  const state = status.data?.state;
  return (
    <section className="panel" aria-labelledby="sandbox-title">
      <h2 id="sandbox-title">Sandbox</h2>
      <p>
        {state === undefined
          ? 'Reading the Sandbox’s state…'
          : state === 'running'
            ? `Running at ${status.data?.baseUrl ?? 'an unknown address'}, organization ${status.data?.organizationId ?? 'unknown'}.`
            : state === 'starting'
              ? 'Starting…'
              : state === 'failed'
                ? `Failed: ${status.data?.error ?? 'no reason given'}.`
                : 'Stopped.'}
      </p>
      {status.data?.notice != null && (
        <p className="notice notice-warning" role="status">
          {status.data.notice}
        </p>
      )}
      <div className="button-row start">
        {state === 'running' ? (
          <button type="button" onClick={() => void action.run('Stopping the Sandbox…', 'sandbox.stop')} disabled={busy}>
            Stop the Sandbox
          </button>
        ) : (
          <button type="button" onClick={() => void action.run('Starting the Sandbox…', 'sandbox.start')} disabled={busy || state === 'starting'}>
            Start the Sandbox
          </button>
        )}
        {!hasProfile && (
          <button type="button" onClick={() => void action.run('Restoring the Sandbox profile…', 'sandbox.restoreProfile')} disabled={busy}>
            Restore the Sandbox profile
          </button>
        )}
        {/* Never disabled: it gets the focus back when its dialog closes, and a disabled button cannot hold it. */}
        <button type="button" className="danger" onClick={() => setResetting(true)}>
          Reset the Sandbox…
        </button>
      </div>
      {resetting && (
        <Modal title="Reset the Sandbox?" onClose={() => setResetting(false)}>
          <form
            className="stack-form"
            onSubmit={(event) => {
              event.preventDefault();
              setResetting(false);
              setPhrase('');
              void action.run('Resetting the Sandbox…', 'sandbox.reset', { confirmation: SANDBOX_RESET_PHRASE });
            }}
          >
            <p>
              Everything in the Sandbox is deleted: its users, policies, wallets and private keys, and their history. It starts again with a new
              organization; its API key on this desktop stays.
            </p>
            <label>
              Type “{SANDBOX_RESET_PHRASE}” to confirm
              <input value={phrase} onChange={(event) => setPhrase(event.target.value)} autoComplete="off" spellCheck={false} />
            </label>
            <div className="button-row">
              <button type="button" onClick={() => setResetting(false)}>
                Cancel
              </button>
              <button type="submit" className="danger" disabled={phrase !== SANDBOX_RESET_PHRASE}>
                Reset the Sandbox
              </button>
            </div>
          </form>
        </Modal>
      )}
    </section>
  );
}
