import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { QkError } from '../../../shared/errors';
import type { QuorumKeyApi } from '../../../shared/ipc/bridge';
import { call } from '../api';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';
import { SecretField } from './TextFields';

export interface UnlockMethods {
  unlockPassphraseSet: boolean;
  touchIdAvailable: boolean;
}

/**
 * Asks for the unlock passphrase (or Touch ID where offered) and hands it to `submit`, which sends it to main. The
 * typed passphrase is dropped from the form as soon as it has been sent, right or wrong. It appears only when the
 * person must answer it (the lock screen, a reveal's re-check), so it takes the focus: the passphrase field, or the
 * submit button when no passphrase is set.
 */
export function UnlockForm({
  methods,
  submitLabel,
  submit,
  onDone,
  onCancel,
}: {
  methods: UnlockMethods;
  submitLabel: string;
  submit: (api: QuorumKeyApi, credentials: { passphrase?: string; touchId?: true }) => Promise<unknown>;
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
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<QkError>();

  const attempt = async (label: string, credentials: { passphrase?: string; touchId?: true }) => {
    setBusy(label);
    setError(undefined);
    try {
      await call((api) => submit(api, credentials));
      onDone();
    } catch (thrown) {
      setError(thrown as QkError);
    } finally {
      setPassphrase('');
      setBusy(undefined);
    }
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
      {error !== undefined && <ErrorNotice error={error} />}
    </form>
  );
}
