import type { ReactNode, Ref } from 'react';

/** A required name for something new: plain text, never autofilled, at most maxLength characters. */
export function NameField({
  label,
  value,
  onChange,
  maxLength,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  maxLength: number;
}) {
  return (
    <label>
      {label}
      <input value={value} onChange={(event) => onChange(event.target.value)} required maxLength={maxLength} autoComplete="off" />
    </label>
  );
}

/** A required chain address or program id as pasted: never autofilled nor spell-checked; main checks its form. */
export function AddressField({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <label>
      {label}
      <input value={value} onChange={(event) => onChange(event.target.value)} required spellCheck={false} autoComplete="off" maxLength={128} />
    </label>
  );
}

/**
 * A masked secret (private key, passphrase): never autofilled nor spell-checked, so it stays out of the browser's
 * stores; onPaste receives the pasted text, e.g. to clear the clipboard after it.
 */
export function SecretField({
  label,
  value,
  onChange,
  onPaste,
  required = false,
  placeholder,
  minLength,
  ref,
}: {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  onPaste?: (text: string) => void;
  required?: boolean;
  placeholder?: string;
  minLength?: number;
  /** The input, for a form that focuses it when it appears. */
  ref?: Ref<HTMLInputElement>;
}) {
  return (
    <label>
      {label}
      <input
        type="password"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onPaste={onPaste === undefined ? undefined : (event) => onPaste(event.clipboardData.getData('text'))}
        required={required}
        autoComplete="off"
        spellCheck={false}
        placeholder={placeholder}
        minLength={minLength}
        ref={ref}
      />
    </label>
  );
}

/** A file in a folder main keeps (stamped requests, exports, signatures): a name ending in .json, never a path. */
export function FileNameField({
  label,
  value,
  onChange,
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
}) {
  return (
    <label>
      {label}
      <input
        value={value}
        onChange={(event) => onChange(event.target.value)}
        required
        spellCheck={false}
        placeholder={placeholder}
        pattern="[A-Za-z0-9][A-Za-z0-9._\-]*\.json"
      />
    </label>
  );
}
