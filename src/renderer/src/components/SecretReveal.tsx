import { useEffect, useState } from 'react';
import { bridgeError } from '../../../shared/ipc/bridge';
import { copySecret } from '../clipboard';
import { useSecretOnScreen } from '../secret-on-screen';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { ErrorNotice } from './ErrorNotice';

/** PLAINTEXT: what `exports.reveal` and `exports.decryptBundle` answer. Kept only in component state. */
export type RevealedSecret = ChannelOutput<'exports.decryptBundle'>;

/** How long a revealed secret stays on screen before it is hidden for good. */
export const AUTO_HIDE_MS = 120_000;
/** How long the words stay unmasked after a click. */
const UNMASK_MS = 20_000;

const FORMAT_NAMES: Record<Extract<RevealedSecret, { kind: 'private-key' }>['format'], string> = {
  hexadecimal: 'Hexadecimal',
  solana: 'Solana (base58 of private ‖ public key)',
  'wif-mainnet': 'Wallet Import Format (WIF), mainnet',
  'wif-testnet': 'Wallet Import Format (WIF), testnet',
};

/**
 * Shows a decrypted secret masked; it is unmasked while the button is held, or for 20 s after a click. The whole
 * panel hides itself after two minutes. Masked text is not in the DOM at all, only bullets. The secret lives only
 * in the parent's component state: `onHide` must drop it. While the panel is shown main keeps the window out of
 * screen capture, and nothing is unmasked before main confirmed that.
 */
export function SecretReveal({ secret, subject, onHide }: { secret: RevealedSecret; subject: string; onHide: () => void }) {
  const [held, setHeld] = useState(false);
  const [unmaskedUntilClick, setUnmaskedUntilClick] = useState(false);
  const [copied, setCopied] = useState<{ what: 'secret' | 'passphrase'; clearAfterMs: number }>();
  const [copyFailure, setCopyFailure] = useState<string>();
  const protection = useSecretOnScreen();
  const visible = protection.ready && (held || unmaskedUntilClick);

  useEffect(() => {
    const timer = setTimeout(onHide, AUTO_HIDE_MS);
    return () => clearTimeout(timer);
  }, [onHide]);

  useEffect(() => {
    if (!unmaskedUntilClick) return;
    const timer = setTimeout(() => setUnmaskedUntilClick(false), UNMASK_MS);
    return () => clearTimeout(timer);
  }, [unmaskedUntilClick]);

  const copy = (what: 'secret' | 'passphrase', text: string) => {
    copySecret(text).then(
      (clearAfterMs) => {
        setCopied({ what, clearAfterMs });
        setCopyFailure(undefined);
      },
      (error: unknown) => setCopyFailure(`The copy failed (${bridgeError(error).message}); select the text instead.`),
    );
  };

  const text = secret.kind === 'mnemonic' ? secret.mnemonic : secret.privateKey;
  return (
    <section className="secret-reveal" aria-label={`Secret of ${subject}`}>
      <p className="notice notice-warning">
        Anyone who sees this {secret.kind === 'mnemonic' ? 'mnemonic' : 'private key'} controls {subject}. It hides itself after{' '}
        {AUTO_HIDE_MS / 60_000} minutes.
        {protection.ready &&
          !protection.supported &&
          ' This OS cannot keep the window out of screenshots and screen sharing: make sure nothing is recording.'}
      </p>
      {protection.error !== undefined && (
        <>
          <p>The window could not be kept out of screen capture, so the secret stays masked. Hide it and reveal it again.</p>
          <ErrorNotice error={protection.error} />
        </>
      )}
      {secret.kind === 'mnemonic' ? (
        <ol className="mnemonic-words" aria-label="Mnemonic words">
          {secret.mnemonic.split(/\s+/u).map((word, index) => (
            <li key={index}>
              <span className="word-index">{index + 1}</span>
              <code>{visible ? word : '•••••'}</code>
            </li>
          ))}
        </ol>
      ) : (
        <dl className="facts">
          <dt>Format</dt>
          <dd>{FORMAT_NAMES[secret.format]}</dd>
          <dt>Private key</dt>
          <dd>
            <code aria-label="Private key">{visible ? secret.privateKey : '•'.repeat(24)}</code>
          </dd>
        </dl>
      )}
      <div className="button-row start">
        {/* The label follows the click state only: changing it while held would resize the button under the pointer. */}
        <button
          type="button"
          aria-pressed={unmaskedUntilClick}
          disabled={!protection.ready}
          onPointerDown={() => setHeld(true)}
          onPointerUp={() => setHeld(false)}
          onPointerLeave={() => setHeld(false)}
          onClick={() => setUnmaskedUntilClick((shown) => !shown)}
        >
          {unmaskedUntilClick ? 'Mask' : 'Hold or click to reveal'}
        </button>
        <button type="button" onClick={() => copy('secret', text)}>
          {copied?.what === 'secret' ? 'Copied' : `Copy ${secret.kind === 'mnemonic' ? 'mnemonic' : 'private key'}`}
        </button>
        <button type="button" className="primary" onClick={onHide}>
          Hide and forget
        </button>
      </div>
      {secret.kind === 'mnemonic' && secret.passphrase !== undefined && (
        <div className="passphrase">
          <p>
            This wallet also has a passphrase (BIP-39 “25th word”); keep it apart from the mnemonic.{' '}
            <code aria-label="Passphrase">{visible ? secret.passphrase : '•'.repeat(12)}</code>
          </p>
          <button type="button" className="small" onClick={() => copy('passphrase', secret.passphrase!)}>
            {copied?.what === 'passphrase' ? 'Copied' : 'Copy passphrase'}
          </button>
        </div>
      )}
      <p className="hint" aria-live="polite">
        {copied !== undefined && `Copied; the clipboard is cleared in ${copied.clearAfterMs / 1000} s, or when QuorumKey locks or quits.`}
      </p>
      {copyFailure !== undefined && <p role="alert">{copyFailure}</p>}
    </section>
  );
}
