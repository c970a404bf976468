import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { NameField } from '../components/TextFields';
import { Progress } from '../components/Progress';
import { QueryStatus } from '../components/QueryStatus';
import { useAction } from '../mutations';
import { useChannel } from '../queries';

/**
 * The security key (or passkey) the active profile votes with. Adding one opens main's own page, where the key is
 * touched; this window only names it and hears the outcome (it never sees an assertion or the key's answer).
 */
export function PasskeyPanel() {
  const profile = useChannel('profiles.getActive');
  const action = useAction();
  const [name, setName] = useState('');
  /** A registration that waits for approvals, and the key the profile voted with when it was asked for. */
  const [waiting, setWaiting] = useState<{ fingerprint: string; name: string; before: string | undefined }>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const before = profile.data?.passkey?.credentialId;
    const outcome = await action.run(`Adding security key ${name}…`, 'users.addPasskey', { name });
    if (outcome === undefined) return;
    setName('');
    setWaiting(
      outcome.state === 'completed' || outcome.state === 'rejected' ? undefined : { fingerprint: outcome.activity.fingerprint, name, before },
    );
  };

  const passkey = profile.data?.passkey;
  return (
    <section className="panel" aria-labelledby="passkey-title">
      <h2 id="passkey-title">Security key to vote with</h2>
      <p className="hint">
        A security key (or passkey) registered for this profile’s user approves and rejects with a touch; the profile’s API key still reads. The touch
        happens in QuorumKey’s own window, which shows what you vote on.
      </p>
      <QueryStatus query={profile} loading="Loading the profile…" />
      {profile.data === null && <p>Choose a profile first.</p>}
      {passkey !== undefined && (
        <p>
          Profile {profile.data?.name} votes with security key <strong>{passkey.name}</strong> (credential <code>{passkey.credentialId}</code>).
        </p>
      )}
      {waiting !== undefined && passkey?.credentialId === waiting.before && (
        <p role="status">
          Adding security key <strong>{waiting.name}</strong> waits for approvals (activity <code>{waiting.fingerprint}</code>). Once it is approved,
          QuorumKey attaches it to this profile, which then votes with it.
        </p>
      )}
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {profile.data !== null && profile.data !== undefined && (
        <form className="inline-form" onSubmit={(event) => void submit(event)} aria-label="Add a security key to vote with">
          <NameField label="Key name" value={name} onChange={setName} maxLength={64} />
          <button type="submit" className="primary" disabled={action.busy !== undefined}>
            Add a security key to vote with
          </button>
        </form>
      )}
    </section>
  );
}
