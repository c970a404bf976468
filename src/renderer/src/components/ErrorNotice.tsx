import type { ErrorCode } from '../../../shared/errors';
import { headlineOf } from '../error-words';

/** What to do next, for the errors whose message alone does not say it. */
const NEXT_STEP: Partial<Record<ErrorCode, string>> = {
  KEYCHAIN_UNAVAILABLE:
    'Start your operating system’s keychain (Secret Service such as GNOME Keyring or KWallet on Linux, Keychain on macOS, Credential Manager on Windows), then try again.',
  KEYCHAIN_LOCKED: 'Unlock your operating system’s keychain, then try again.',
  APP_LOCKED: 'Unlock QuorumKey, then try again.',
  REAUTH_REQUIRED: 'Try the reveal again and enter the unlock passphrase when asked.',
  TIMEOUT: 'Check that the service is up (and the profile’s URL), then try again.',
  REDIRECT_REFUSED: 'Point the profile at the service’s own URL rather than one that forwards elsewhere.',
  KEY_EXISTS: 'Choose another name, or rename the existing key on the Keys screen.',
  KEY_NOT_FOUND: 'The key list may be out of date: reload it on the Keys screen.',
  PROFILE_NOT_FOUND: 'The profile list may be out of date: reload the Profiles screen.',
  NETWORK_ERROR: 'Check the profile’s service URL and your connection, then try again.',
  IPC_SENDER_REJECTED: 'Restart QuorumKey; this page is not the app’s own window.',
  INTERNAL: 'This is a bug in QuorumKey; please report it with the message above.',
  RESPONSE_INVALID: 'This is a bug in QuorumKey; please report it with the message above.',
};

/**
 * What failed, by the name the person knows it by (`during`: "Exporting wallet Treasury"), and what happened; then the
 * specifics and what to do (`next` when the caller knows it better); the code last and small, for reports. Every
 * error notice is this one, so each leads with a sentence and keeps its code out of it.
 */
export function ErrorNotice({
  error,
  during,
  next: nextStep,
  warning = false,
  onDismiss,
}: {
  error: { code: string; message: string };
  during?: string | undefined;
  next?: string | undefined;
  /** A failure the screen works around (it keeps what it last read): drawn as a warning, not an error. */
  warning?: boolean;
  onDismiss?: () => void;
}) {
  const next = nextStep ?? (NEXT_STEP as Readonly<Record<string, string>>)[error.code];
  return (
    <div className={warning ? 'notice notice-warning' : 'notice notice-error'} role="alert">
      <p className="notice-title">
        {during !== undefined && <strong className="error-during">{during}: </strong>}
        <strong>{headlineOf(error.code)}</strong>
      </p>
      <p className="notice-detail">{error.message}</p>
      {next !== undefined && <p className="notice-next">{next}</p>}
      <p className="error-code">
        Code <code>{error.code}</code>
      </p>
      {onDismiss !== undefined && (
        <button type="button" className="link-button" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}
