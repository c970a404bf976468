import { useId, useState, type FormEvent } from 'react';
import type { ChannelInput, ChannelOutput } from '../../../shared/ipc/contract';
import { CheckboxGroup } from '../components/CheckboxGroup';
import { DialogFooter } from '../components/DialogFooter';
import { ErrorNotice } from '../components/ErrorNotice';
import { QueryStatus } from '../components/QueryStatus';
import { RootQuorumOverlapNotice } from '../components/RootQuorumOverlapNotice';
import { ConfirmDialog, Modal, ReadingDialog } from '../components/Modal';
import { Progress } from '../components/Progress';
import { RowAction } from '../components/RowAction';
import { SelectField, type SelectOption } from '../components/SelectField';
import { TableHead } from '../components/TableHead';
import { NameField } from '../components/TextFields';
import { UserCredentialsDialog } from '../components/UserCredentialsDialog';
import { WaitingForVotes } from '../components/WaitingForVotes';
import { useAction, type Action } from '../mutations';
import { useChannel } from '../queries';

type Organization = ChannelOutput<'organization.lookup'>;
type User = Organization['users'][number];
type ActivityView = ChannelOutput<'activities.get'>;
type NewApiKey = NonNullable<ChannelInput<'users.create'>['apiKey']>;
/** What every write answers: done, or waiting for votes, or voted down. */
type Outcome = { state: 'completed'; activity: ActivityView } | { state: 'consensus-needed' | 'pending' | 'rejected'; activity: ActivityView };

const CURVES: SelectOption<'p256' | 'secp256k1' | 'ed25519'>[] = [
  { value: 'p256', label: 'P-256' },
  { value: 'secp256k1', label: 'secp256k1' },
  { value: 'ed25519', label: 'Ed25519' },
];

/** The organization's users with their tags and credentials, and its root quorum: both change through activities. */
export function UsersScreen() {
  const organization = useChannel('organization.lookup');
  const action = useAction();
  const [outcome, setOutcome] = useState<{ what: string; outcome: Outcome }>();
  const [editingTags, setEditingTags] = useState<User>();
  const [addingKeyTo, setAddingKeyTo] = useState<User>();
  const [deleting, setDeleting] = useState<User>();
  const [credentialsOf, setCredentialsOf] = useState<User>();

  const finished = (what: string, result: Outcome | undefined) => {
    if (result === undefined) return;
    setOutcome({ what, outcome: result });
  };
  const org = organization.data;
  const tagName = (tagId: string) => org?.tags.find((tag) => tag.tagId === tagId)?.tagName ?? tagId;

  return (
    <section className="screen" aria-labelledby="users-title">
      <h1 id="users-title">Users</h1>
      <p className="lead">People and machines of the organization, what they may sign with, and the root quorum that can approve anything.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {outcome !== undefined &&
        (outcome.outcome.state === 'consensus-needed' || outcome.outcome.state === 'pending' ? (
          <WaitingForVotes what={outcome.what} activity={outcome.outcome.activity} onDismiss={() => setOutcome(undefined)} />
        ) : (
          <div className="notice notice-info" role="status">
            <p className="notice-title">{outcome.outcome.state === 'rejected' ? `${outcome.what}: rejected.` : `${outcome.what}: done.`}</p>
            <button type="button" className="link-button" onClick={() => setOutcome(undefined)}>
              Dismiss
            </button>
          </div>
        ))}
      <QueryStatus query={organization} loading="Loading users…" />
      <RootQuorumOverlapNotice />

      {org !== undefined && (
        <>
          <section className="panel" aria-labelledby="user-list-title">
            <h2 id="user-list-title">People and machines</h2>
            <table className="data-table" aria-labelledby="user-list-title">
              <TableHead columns={['Name', 'Tags', 'API keys', 'Authenticators']} withActions />
              <tbody>
                {org.users.map((user) => (
                  <tr key={user.userId}>
                    <th scope="row">
                      {user.userName}
                      {org.rootQuorum?.userIds.includes(user.userId) === true && <span className="badge badge-active">root quorum</span>}
                      <br />
                      <code className="muted">{user.userId}</code>
                    </th>
                    <td>{user.userTags.length === 0 ? <span className="muted">none</span> : user.userTags.map(tagName).join(', ')}</td>
                    <td>
                      {user.apiKeys.length === 0 ? (
                        <span className="muted">none</span>
                      ) : (
                        <ul className="refs">
                          {user.apiKeys.map((key) => (
                            <li key={key.apiKeyId}>
                              {key.apiKeyName}{' '}
                              <RowAction
                                verb="Remove"
                                subject={`API key ${key.apiKeyName} of ${user.userName}`}
                                danger
                                onClick={() =>
                                  void action
                                    .run(`Removing API key ${key.apiKeyName}…`, 'users.removeApiKeys', {
                                      userId: user.userId,
                                      apiKeyIds: [key.apiKeyId],
                                    })
                                    .then((result) => finished(`Remove API key ${key.apiKeyName} of ${user.userName}`, result))
                                }
                              />
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td>
                      {user.authenticators.length === 0 ? (
                        <span className="muted">none</span>
                      ) : (
                        user.authenticators.map((item) => item.authenticatorName).join(', ')
                      )}
                    </td>
                    <td className="row-actions">
                      <RowAction verb="Credentials" subject={`of ${user.userName}`} onClick={() => setCredentialsOf(user)} />
                      <RowAction verb="Edit tags" subject={`of ${user.userName}`} onClick={() => setEditingTags(user)} />
                      <RowAction verb="Add API key" subject={`for ${user.userName}`} onClick={() => setAddingKeyTo(user)} />
                      <RowAction verb="Delete" subject={user.userName} danger onClick={() => setDeleting(user)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <CreateUserForm action={action} tags={org.tags} onDone={(name, result) => finished(`Create user ${name}`, result)} />
            <CreateTagForm action={action} users={org.users} onDone={(name, result) => finished(`Create tag ${name}`, result)} />
          </section>
          <RootQuorumPanel
            key={JSON.stringify(org.rootQuorum)}
            organization={org}
            action={action}
            onDone={(result) => finished('Change the root quorum', result)}
          />
        </>
      )}

      {editingTags !== undefined && org !== undefined && (
        <TagsDialog
          user={editingTags}
          tags={org.tags}
          onClose={() => setEditingTags(undefined)}
          onDone={(result) => {
            setEditingTags(undefined);
            finished(`Change the tags of ${editingTags.userName}`, result);
          }}
        />
      )}
      {addingKeyTo !== undefined && (
        <AddApiKeyDialog
          user={addingKeyTo}
          onClose={() => setAddingKeyTo(undefined)}
          onDone={(result) => {
            setAddingKeyTo(undefined);
            finished(`Add an API key for ${addingKeyTo.userName}`, result);
          }}
        />
      )}
      {credentialsOf !== undefined && (
        <UserCredentialsDialog
          user={credentialsOf}
          onClose={() => setCredentialsOf(undefined)}
          onDone={(what, result) => {
            setCredentialsOf(undefined);
            finished(what, result);
          }}
        />
      )}
      {deleting !== undefined && (
        <DeleteUserDialog
          user={deleting}
          onClose={() => setDeleting(undefined)}
          onConfirm={() => {
            const user = deleting;
            setDeleting(undefined);
            void action
              .run(`Deleting ${user.userName}…`, 'users.delete', { userIds: [user.userId] })
              .then((result) => finished(`Delete user ${user.userName}`, result));
          }}
        />
      )}
    </section>
  );
}

/**
 * Deleting a user, as main reads it before anything is asked: a deletion main's stamp check refuses (the user this
 * profile signs as, a member of the root quorum) is said to be refused, with main's reason, and offers nothing to
 * confirm; any other is confirmed here and then on main's surface, and may wait for votes.
 */
function DeleteUserDialog({ user, onClose, onConfirm }: { user: { userId: string; userName: string }; onClose: () => void; onConfirm: () => void }) {
  const check = useChannel('users.deletionCheck', { userId: user.userId });
  if (check.data?.refusal !== undefined) {
    return (
      <ReadingDialog title={`User ${user.userName} cannot be deleted from here`} onClose={onClose}>
        <div className="modal-body">
          <p>QuorumKey refuses to submit this deletion: {check.data.refusal}. Nothing would be stamped or sent, so there is nothing to vote on.</p>
        </div>
      </ReadingDialog>
    );
  }
  if (check.data === undefined) {
    return (
      <ReadingDialog title={`Delete user ${user.userName}?`} onClose={onClose}>
        <div className="modal-body">
          <QueryStatus query={check} loading="Reading what this deletion does…" />
        </div>
      </ReadingDialog>
    );
  }
  return (
    <ConfirmDialog
      title={`Delete user ${user.userName}?`}
      message={<p>Their API keys and authenticators stop working. Like every change it may wait for votes.</p>}
      confirmLabel="Delete user"
      onCancel={onClose}
      onConfirm={onConfirm}
    />
  );
}

/** A new API key: made in this desktop's keychain (only its public key leaves), or a public key pasted here. */
function ApiKeyFields({ value, onChange }: { value: ApiKeyChoice; onChange: (value: ApiKeyChoice) => void }) {
  // The create form and the add-key dialog are on screen together: each needs its own radio group.
  const group = useId();
  return (
    <>
      <fieldset className="choice-group">
        <legend>API key</legend>
        <label className="radio">
          <input type="radio" name={group} checked={value.kind === 'generate'} onChange={() => onChange({ ...value, kind: 'generate' })} />
          Make one in this desktop’s keychain
        </label>
        <label className="radio">
          <input type="radio" name={group} checked={value.kind === 'paste'} onChange={() => onChange({ ...value, kind: 'paste' })} />
          Paste a public key
        </label>
        <label className="radio">
          <input type="radio" name={group} checked={value.kind === 'none'} onChange={() => onChange({ ...value, kind: 'none' })} />
          None yet
        </label>
      </fieldset>
      {value.kind !== 'none' && (
        <NameField label="API key name" value={value.name} onChange={(name) => onChange({ ...value, name })} maxLength={64} />
      )}
      {value.kind === 'paste' && (
        <>
          <label>
            Public key (hex)
            <input
              value={value.publicKey}
              onChange={(event) => onChange({ ...value, publicKey: event.target.value.trim() })}
              required
              spellCheck={false}
              autoComplete="off"
            />
          </label>
          <SelectField label="Curve" value={value.curve} options={CURVES} onChange={(curve) => onChange({ ...value, curve })} />
        </>
      )}
    </>
  );
}

interface ApiKeyChoice {
  kind: 'generate' | 'paste' | 'none';
  name: string;
  publicKey: string;
  curve: 'p256' | 'secp256k1' | 'ed25519';
}

const NO_KEY_YET: ApiKeyChoice = { kind: 'generate', name: '', publicKey: '', curve: 'p256' };

/** Makes the keychain key first when asked to, then names the key for the service. */
async function newApiKey(action: Action, choice: ApiKeyChoice): Promise<NewApiKey | undefined | 'failed'> {
  if (choice.kind === 'none') return undefined;
  if (choice.kind === 'paste') return { kind: 'public-key', apiKeyName: choice.name, publicKey: choice.publicKey, curve: choice.curve };
  const made = await action.run(`Creating API key ${choice.name} in the keychain…`, 'keys.generateApiKey', {
    name: choice.name,
    curve: choice.curve,
  });
  return made === undefined ? 'failed' : { kind: 'keychain', keyName: made.name };
}

function CreateUserForm({
  action,
  tags,
  onDone,
}: {
  action: Action;
  tags: Organization['tags'];
  onDone: (name: string, result: Outcome | undefined) => void;
}) {
  const [name, setName] = useState('');
  const [tagIds, setTagIds] = useState<string[]>([]);
  const [apiKey, setApiKey] = useState<ApiKeyChoice>(NO_KEY_YET);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const key = await newApiKey(action, apiKey);
    if (key === 'failed') return;
    const result = await action.run(`Creating user ${name}…`, 'users.create', {
      userName: name,
      tagIds,
      ...(key === undefined ? {} : { apiKey: key }),
    });
    if (result === undefined) return;
    onDone(name, result);
    setName('');
    setTagIds([]);
    setApiKey(NO_KEY_YET);
  };
  return (
    <form className="stack-form" aria-label="Create user" onSubmit={(event) => void submit(event)}>
      <h3>Create a user</h3>
      <NameField label="User name" value={name} onChange={setName} maxLength={256} />
      <TagChoices tags={tags} chosen={tagIds} onChange={setTagIds} />
      <ApiKeyFields value={apiKey} onChange={setApiKey} />
      <button type="submit" className="primary" disabled={action.busy !== undefined}>
        Create user
      </button>
    </form>
  );
}

function TagChoices({ tags, chosen, onChange }: { tags: Organization['tags']; chosen: readonly string[]; onChange: (tagIds: string[]) => void }) {
  if (tags.length === 0) return <p className="hint">No tags yet: create one below to group users for policies.</p>;
  return <CheckboxGroup legend="Tags" options={tags.map((tag) => ({ id: tag.tagId, label: tag.tagName }))} chosen={chosen} onChange={onChange} />;
}

function UserChoices({
  legend,
  users,
  chosen,
  onChange,
}: {
  legend: string;
  users: readonly User[];
  chosen: readonly string[];
  onChange: (userIds: string[]) => void;
}) {
  return (
    <CheckboxGroup legend={legend} options={users.map((user) => ({ id: user.userId, label: user.userName }))} chosen={chosen} onChange={onChange} />
  );
}

function CreateTagForm({
  action,
  users,
  onDone,
}: {
  action: Action;
  users: readonly User[];
  onDone: (name: string, result: Outcome | undefined) => void;
}) {
  const [name, setName] = useState('');
  const [userIds, setUserIds] = useState<string[]>([]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await action.run(`Creating tag ${name}…`, 'users.createTag', { tagName: name, userIds });
    if (result === undefined) return;
    onDone(name, result);
    setName('');
    setUserIds([]);
  };
  return (
    <form className="stack-form" aria-label="Create tag" onSubmit={(event) => void submit(event)}>
      <h3>Create a tag</h3>
      <NameField label="Tag name" value={name} onChange={setName} maxLength={256} />
      <UserChoices legend="Users who get it" users={users} chosen={userIds} onChange={setUserIds} />
      <button type="submit" disabled={action.busy !== undefined}>
        Create tag
      </button>
    </form>
  );
}

function TagsDialog({
  user,
  tags,
  onClose,
  onDone,
}: {
  user: User;
  tags: Organization['tags'];
  onClose: () => void;
  onDone: (result: Outcome) => void;
}) {
  const action = useAction();
  const [tagIds, setTagIds] = useState<string[]>([...user.userTags]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await action.run(`Changing the tags of ${user.userName}…`, 'users.setTags', { userId: user.userId, tagIds });
    if (result !== undefined) onDone(result);
  };
  return (
    <Modal title={`Tags of ${user.userName}`} onClose={onClose}>
      <form className="stack-form" onSubmit={(event) => void submit(event)}>
        <TagChoices tags={tags} chosen={tagIds} onChange={setTagIds} />
        {tagIds.length === 0 && <p className="hint">Keep at least one tag: a change that leaves none is read by the service as no change.</p>}
        <DialogFooter action={action} submitLabel="Save tags" submitDisabled={tagIds.length === 0} onCancel={onClose} />
      </form>
    </Modal>
  );
}

function AddApiKeyDialog({ user, onClose, onDone }: { user: User; onClose: () => void; onDone: (result: Outcome) => void }) {
  const action = useAction();
  const [apiKey, setApiKey] = useState<ApiKeyChoice>(NO_KEY_YET);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const key = await newApiKey(action, apiKey);
    if (key === 'failed' || key === undefined) return;
    const result = await action.run(`Adding API key for ${user.userName}…`, 'users.addApiKey', { userId: user.userId, apiKey: key });
    if (result !== undefined) onDone(result);
  };
  return (
    <Modal title={`Add an API key for ${user.userName}`} onClose={onClose}>
      <form className="stack-form" onSubmit={(event) => void submit(event)}>
        <ApiKeyFields value={apiKey} onChange={setApiKey} />
        <DialogFooter action={action} submitLabel="Add API key" submitDisabled={apiKey.kind === 'none'} onCancel={onClose} />
      </form>
    </Modal>
  );
}

/** The root quorum: who can approve anything together, and how many of them must. Changing it is an activity too. */
function RootQuorumPanel({
  organization,
  action,
  onDone,
}: {
  organization: Organization;
  action: Action;
  onDone: (result: Outcome | undefined) => void;
}) {
  const quorum = organization.rootQuorum;
  const [members, setMembers] = useState<string[]>(quorum?.userIds ?? []);
  const [threshold, setThreshold] = useState(String(quorum?.threshold ?? 1));
  const nameOf = (userId: string) => organization.users.find((user) => user.userId === userId)?.userName ?? userId;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    onDone(await action.run('Proposing the new root quorum…', 'organization.updateRootQuorum', { userIds: members, threshold: Number(threshold) }));
  };
  const tooHigh = Number(threshold) > members.length;
  return (
    <section className="panel" aria-labelledby="quorum-title">
      <h2 id="quorum-title">Root quorum</h2>
      {quorum === undefined ? (
        <p className="hint">The service does not report its root quorum.</p>
      ) : (
        <p>
          Now: {quorum.threshold} of {quorum.userIds.length} — {quorum.userIds.map(nameOf).join(', ')}. Together they can approve anything, including
          changing the quorum; a change waits for their votes.
        </p>
      )}
      <form className="stack-form" aria-label="Change the root quorum" onSubmit={(event) => void submit(event)}>
        <UserChoices legend="Members" users={organization.users} chosen={members} onChange={setMembers} />
        <label>
          Approvals needed
          <input
            type="number"
            min={1}
            max={Math.max(1, members.length)}
            value={threshold}
            onChange={(event) => setThreshold(event.target.value)}
            required
          />
        </label>
        {members.length === 1 && <p className="notice notice-warning">With one member, that person alone can approve anything.</p>}
        {tooHigh && <p className="field-error">It needs more approvals than it has members: it could approve nothing.</p>}
        <button type="submit" className="primary" disabled={action.busy !== undefined || members.length === 0 || tooHigh}>
          Propose this quorum
        </button>
      </form>
    </section>
  );
}
