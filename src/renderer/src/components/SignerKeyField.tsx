import { useId } from 'react';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY } from '../../../shared/crypto/signers';

const SIGNER_KEY_PATTERN = /^04[0-9a-f]{128}$/iu;

/** Why an entered signer key cannot be used, or undefined when its form is right (main checks it is on the curve). */
export function signerProblem(signerPublicKey: string): string | undefined {
  const trimmed = signerPublicKey.trim();
  if (SIGNER_KEY_PATTERN.test(trimmed)) return undefined;
  if (/[^0-9a-f]/iu.test(trimmed)) return 'The signer key is hexadecimal: only 0-9 and a-f.';
  if (trimmed.length !== 130) return `The signer key is an uncompressed P-256 public key, 130 hex characters; this one has ${trimmed.length}.`;
  return 'An uncompressed P-256 public key starts with 04.';
}

/** Whose key it is, in words: Turnkey's production signer, this desktop's Sandbox, or `otherwise`. */
export function signerOrigin(signerPublicKey: string, sandboxSigner?: string | null, otherwise = 'the signer entered above'): string {
  const key = signerPublicKey.trim().toLowerCase();
  if (key === PRODUCTION_SIGNER_SIGN_PUBLIC_KEY) return 'Turnkey’s production signer';
  if (sandboxSigner != null && key === sandboxSigner.toLowerCase()) return 'this desktop’s Sandbox signer';
  return otherwise;
}

/**
 * The enclave signer key whose signature an export bundle must carry: uncompressed P-256 hex, checked as it is typed,
 * with buttons that fill in Turnkey's production signer or (when it runs) this desktop's Sandbox signer.
 */
export function SignerKeyField({
  label = 'Enclave signer public key',
  value,
  onChange,
  sandboxSigner,
}: {
  label?: string;
  value: string;
  onChange: (value: string) => void;
  /** The running Sandbox's signer, offered with a button; null or absent when there is none. */
  sandboxSigner?: string | null | undefined;
}) {
  const problemId = useId();
  const problem = signerProblem(value);
  return (
    <>
      <label>
        {label}
        <textarea
          value={value}
          onChange={(event) => onChange(event.target.value)}
          rows={2}
          spellCheck={false}
          aria-invalid={problem !== undefined}
          aria-describedby={problem === undefined ? undefined : problemId}
        />
      </label>
      {problem === undefined ? (
        <p className="hint">
          Must be signed by <code>{value.trim().toLowerCase()}</code> ({signerOrigin(value, sandboxSigner)})
        </p>
      ) : (
        <p className="field-error" id={problemId}>
          {problem}
        </p>
      )}
      <div className="button-row start">
        <button type="button" className="small" onClick={() => onChange(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY)}>
          Use Turnkey’s production signer
        </button>
        {sandboxSigner != null && (
          <button type="button" className="small" onClick={() => onChange(sandboxSigner)}>
            Use the Sandbox’s signer
          </button>
        )}
      </div>
    </>
  );
}
