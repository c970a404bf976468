import { useState, type FormEvent } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { ErrorNotice } from './ErrorNotice';
import { Modal } from './Modal';
import { Progress } from './Progress';
import { QueryStatus } from './QueryStatus';
import { RowAction } from './RowAction';
import { TableHead } from './TableHead';
import { useAction } from '../mutations';
import { useChannel } from '../queries';

type Credential = ChannelOutput<'users.credentials'>['credentials'][number];
type TokenKey = ChannelOutput<'keys.listTokenKeys'>[number];
type Outcome = ChannelOutput<'users.removeApiKeys'>;

/**
 * A user's credentials in one list, as main reads them: each with its kind in words, the profiles of this desktop
 * that sign with it, and what removing it would leave (or why main refuses that). Beneath, the move of a profile from
 * its keychain key to a key on a hardware token, one step after the other.
 */
export function UserCredentialsDialog({
  user,
  onClose,
  onDone,
}: {
  user: { userId: string; userName: string };
  onClose: () => void;
  /** A write that did not complete here (it waits for votes, or was rejected) is shown by the screen. */
  onDone: (what: string, outcome: Outcome) => void;
}) {
  const credentials = useChannel('users.credentials', { userId: user.userId });
  const action = useAction();
  const list = credentials.data?.credentials;
  // The keychain keys a profile of this desktop signs with: the ones a hardware key can replace.
  const movable = list?.filter((credential) => credential.kind === 'keychain-key' && credential.profiles.length > 0) ?? [];

  const remove = async (credential: Credential) => {
    const what = `Remove API key ${credential.name} of ${user.userName}`;
    const outcome = await action.run(`Removing API key ${credential.name}…`, 'users.removeApiKeys', {
      userId: user.userId,
      apiKeyIds: [credential.id],
    });
    if (outcome !== undefined && outcome.state !== 'completed') onDone(what, outcome);
  };

  return (
    <Modal title={`Credentials of ${user.userName}`} onClose={onClose}>
      <QueryStatus query={credentials} loading="Reading the credentials…" />
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {list !== undefined && list.length === 0 && <p className="empty">{user.userName} has no credential: nothing can sign for this user.</p>}
      {list !== undefined && list.length > 0 && (
        <table className="data-table" aria-label={`Credentials of ${user.userName}`}>
          <TableHead columns={['Name', 'Kind', 'Signs for', 'If removed']} withActions />
          <tbody>
            {list.map((credential) => (
              <tr key={credential.id}>
                <th scope="row">
                  {credential.name}
                  {!credential.working && <span className="badge">expired</span>}
                </th>
                <td>{credential.kindInWords}</td>
                <td>{credential.profiles.length === 0 ? <span className="muted">no profile here</span> : credential.profiles.join(', ')}</td>
                <td>
                  {credential.refusal === undefined ? (
                    `leaves ${credential.leaves}`
                  ) : (
                    <span className="warning-text">Refused: {credential.refusal}.</span>
                  )}
                </td>
                <td className="row-actions">
                  {credential.kind !== 'security-key' && credential.kind !== 'passkey' && (
                    <RowAction
                      verb="Remove"
                      subject={`API key ${credential.name} of ${user.userName}`}
                      danger
                      disabled={credential.refusal !== undefined || action.busy !== undefined}
                      onClick={() => void remove(credential)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {movable.map((credential) => (
        <MoveToHardwareKey key={credential.id} user={user} from={credential} onDone={onDone} />
      ))}
    </Modal>
  );
}

/**
 * "Move to a hardware key": choose a token key (or make one there), add it to the user as an API key (main reads its
 * public key from the token), switch the profiles that sign with the keychain key to it, then remove the keychain key
 * from the list above, which main allows once nothing signs with it.
 */
function MoveToHardwareKey({
  user,
  from,
  onDone,
}: {
  user: { userId: string; userName: string };
  from: Credential;
  onDone: (what: string, outcome: Outcome) => void;
}) {
  const modules = useChannel('keys.pkcs11Modules');
  const profiles = useChannel('profiles.list');
  const action = useAction();
  const [module, setModule] = useState('');
  const [tokenLabel, setTokenLabel] = useState('');
  const [keys, setKeys] = useState<TokenKey[]>();
  const [chosen, setChosen] = useState<TokenKey>();
  const [newLabel, setNewLabel] = useState('');
  const [added, setAdded] = useState(false);

  const openToken = async (event: FormEvent) => {
    event.preventDefault();
    const listed = await action.run(`Opening token ${tokenLabel} (QuorumKey asks its PIN in its own window)…`, 'keys.listTokenKeys', {
      module,
      tokenLabel,
    });
    if (listed !== undefined) setKeys(listed.filter((key) => key.canSign));
  };
  const generate = async () => {
    const made = await action.run(`Generating key ${newLabel} on token ${tokenLabel}…`, 'keys.generateTokenKey', {
      module,
      tokenLabel,
      keyLabel: newLabel,
    });
    if (made === undefined) return;
    setKeys((current) => [...(current ?? []), made]);
    setChosen(made);
  };
  const ref = (key: TokenKey) => ({
    module: key.module,
    tokenLabel: key.tokenLabel,
    keyLabel: key.keyLabel,
    ...(key.keyId === undefined ? {} : { keyId: key.keyId }),
  });
  const addToUser = async (key: TokenKey) => {
    const what = `Add token key ${key.keyLabel} to ${user.userName}`;
    const outcome = await action.run(`Adding token key ${key.keyLabel} to ${user.userName}…`, 'users.addApiKey', {
      userId: user.userId,
      apiKey: { kind: 'token', apiKeyName: `${key.keyLabel} on ${key.tokenLabel}`, ...ref(key) },
    });
    if (outcome === undefined) return;
    if (outcome.state === 'completed') setAdded(true);
    else onDone(what, outcome);
  };
  const switchProfiles = async (key: TokenKey) => {
    for (const name of from.profiles) {
      const profile = profiles.data?.find((candidate) => candidate.name === name);
      if (profile === undefined) continue;
      const switched = await action.run(`Switching profile ${name} to token key ${key.keyLabel}…`, 'profiles.useTokenKey', {
        id: profile.id,
        key: ref(key),
      });
      if (switched === undefined) return;
    }
  };

  return (
    <section className="panel" aria-label={`Move ${from.name} to a hardware key`}>
      <h3>Move to a hardware key</h3>
      <p className="hint">
        {from.profiles.join(', ')} sign{from.profiles.length === 1 ? 's' : ''} as {user.userName} with {from.kindInWords}. A key on a hardware token
        signs there and cannot be copied off it; its PIN is asked in a QuorumKey window of its own.
      </p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      <ol className="steps">
        <li>
          <form className="inline-form" onSubmit={(event) => void openToken(event)} aria-label="Choose a token">
            <label>
              Module
              <select value={module} onChange={(event) => setModule(event.target.value)} required>
                <option value="" disabled>
                  Choose a module
                </option>
                {(modules.data ?? []).map((choice) => (
                  <option key={choice.path} value={choice.path}>
                    {choice.name}: {choice.path}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Token label
              <input value={tokenLabel} onChange={(event) => setTokenLabel(event.target.value)} required maxLength={32} />
            </label>
            <button type="submit" disabled={action.busy !== undefined}>
              Open token
            </button>
          </form>
          {keys !== undefined && (
            <div className="inline-form">
              <label>
                Token key
                <select
                  value={chosen?.publicKey ?? ''}
                  onChange={(event) => setChosen(keys.find((key) => key.publicKey === event.target.value))}
                  aria-label="Token key"
                >
                  <option value="" disabled>
                    {keys.length === 0 ? 'No key yet: generate one' : 'Choose a key'}
                  </option>
                  {keys.map((key) => (
                    <option key={key.publicKey} value={key.publicKey}>
                      {key.keyLabel} {key.keptOnToken ? '(kept on the token)' : '(can be read off the token)'}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                New key label
                <input value={newLabel} onChange={(event) => setNewLabel(event.target.value)} maxLength={32} />
              </label>
              <button type="button" disabled={newLabel === '' || action.busy !== undefined} onClick={() => void generate()}>
                Generate on token
              </button>
            </div>
          )}
        </li>
        <li>
          <button
            type="button"
            disabled={chosen === undefined || added || action.busy !== undefined}
            onClick={() => chosen !== undefined && void addToUser(chosen)}
          >
            Add it to {user.userName} as an API key
          </button>
          {added && <span className="muted"> Added.</span>}
        </li>
        <li>
          <button
            type="button"
            disabled={chosen === undefined || !added || action.busy !== undefined}
            onClick={() => chosen !== undefined && void switchProfiles(chosen)}
          >
            Sign {from.profiles.join(', ')} with it
          </button>
        </li>
        <li>Then remove {from.name} above: QuorumKey allows it once no profile of this desktop signs with it.</li>
      </ol>
    </section>
  );
}
