import { useEffect, useRef, useState, type FormEvent } from 'react';
import { FormActions } from './FormActions';
import { SecretField } from './TextFields';

/**
 * Main asks for the unlock passphrase before a change that lowers the app's guard (a longer lock or re-auth interval,
 * capture protection off, a warning raised or removed, a used token declaration changed or removed); the field is
 * emptied once sent, whatever the answer. It appears because the person just asked for that change, so its field
 * takes the focus.
 */
export function ConfirmWideningForm({
  widens,
  busy,
  onConfirm,
  onCancel,
}: {
  widens: string;
  busy: boolean;
  onConfirm: (passphrase: string) => void;
  onCancel: () => void;
}) {
  const [passphrase, setPassphrase] = useState('');
  const passphraseField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    passphraseField.current?.focus();
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onConfirm(passphrase);
    setPassphrase('');
  };
  return (
    <section className="panel" aria-labelledby="confirm-widening-title">
      <h2 id="confirm-widening-title">Confirm with your unlock passphrase</h2>
      <p className="notice notice-warning">{widens}</p>
      <form className="stack-form" aria-label="Confirm the change" onSubmit={submit}>
        <SecretField label="Unlock passphrase" value={passphrase} onChange={setPassphrase} required ref={passphraseField} />
        <FormActions submitLabel="Confirm the change" submitDisabled={busy} onCancel={onCancel} align="end" />
      </form>
    </section>
  );
}
