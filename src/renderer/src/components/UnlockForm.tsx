import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useAction } from '../mutations';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';
import { SecretField } from './TextFields';

export interface UnlockMethods {
  unlockPassphraseSet: boolean;
  touchIdAvailable: boolean;
}

/**
 * Asks for the unlock passphrase (or Touch ID where offered) and sends it to main on `channel`. The
 * typed passphrase is dropped from the form as soon as it has been sent, right or wrong. It appears only when the
 * person must answer it (the lock screen, a reveal's re-check), so it takes the focus: the passphrase field, or the
 * submit button when no passphrase is set.
 */
export function UnlockForm({
  methods,
  submitLabel,
  channel,
  onDone,
  onCancel,
}: {
  methods: UnlockMethods;
  submitLabel: string;
  /** Unlocking the app, or renewing a recent unlock for a reveal. */
  channel: 'app.unlock' | 'app.reauthenticate';
  onDone: () => void;
  /** Shows a Cancel button (in dialogs). */
  onCancel?: () => void;
}) {
  const [passphrase, setPassphrase] = useState('');
  const passphraseField = useRef<HTMLInputElement>(null);
  const submitButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    (passphraseField.current ?? submitButton.current)?.focus();
  }, []);
  const action = useAction();
  const busy = action.busy;

  const attempt = async (label: string, credentials: { passphrase?: string; touchId?: true }) => {
    const done = await action.run(label, channel, credentials);
    setPassphrase('');
    if (done !== undefined) onDone();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void attempt('Checking…', methods.unlockPassphraseSet ? { passphrase } : {});
  };

  return (
    <form className="stack-form unlock-form" onSubmit={onSubmit}>
      {methods.unlockPassphraseSet && (
        <SecretField label="Unlock passphrase" value={passphrase} onChange={setPassphrase} required ref={passphraseField} />
      )}
      <div className="button-row">
        {onCancel !== undefined && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="primary large" disabled={busy !== undefined} ref={submitButton}>
          {submitLabel}
        </button>
        {methods.touchIdAvailable && (
          <button type="button" disabled={busy !== undefined} onClick={() => void attempt('Waiting for Touch ID…', { touchId: true })}>
            Use Touch ID
          </button>
        )}
      </div>
      <Progress label={busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} />}
    </form>
  );
}
