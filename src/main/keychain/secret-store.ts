import type { AsyncEntry, EntryOptions } from '@napi-rs/keyring';
import { QkError } from '../../shared/errors';

/** Where private keys live: a secret per account, nothing else. */
export interface SecretStore {
  /** The secret, or `null` when the store holds none for `account`. */
  get(account: string): Promise<Uint8Array | null>;
  set(account: string, secret: Uint8Array): Promise<void>;
  /** True when a secret was deleted, false when there was none. */
  delete(account: string): Promise<boolean>;
}

// On Linux the library would otherwise fall back to the kernel keyring, which forgets everything at logout: keys must
// persist in the Secret Service or not be stored at all.
const ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } };

/**
 * The native module, loaded on the first secret asked for: a command that never touches the keychain (the CLI's
 * offline ones) neither pays for it nor needs its platform binary.
 */
let keyringModule: Promise<typeof import('@napi-rs/keyring')> | undefined;
function keyring(): Promise<typeof import('@napi-rs/keyring')> {
  keyringModule ??= import('@napi-rs/keyring');
  return keyringModule;
}

/**
 * The OS keychain through `@napi-rs/keyring`: Secret Service (gnome-keyring, KWallet) on Linux, Keychain on macOS,
 * Credential Manager on Windows. The async API keeps an unlock prompt from blocking the main process.
 */
export class OsSecretStore implements SecretStore {
  /**
   * One entry per account, kept: on Linux each new entry connects to the Secret Service synchronously, which on a
   * busy bus holds up main's event loop for milliseconds per signature. An entry that fails is dropped and made anew.
   */
  private readonly entries = new Map<string, AsyncEntry>();

  constructor(private readonly serviceName: string) {}

  async get(account: string): Promise<Uint8Array | null> {
    const numbers = await this.call(account, (entry) => entry.getSecret());
    if (numbers === null) return null;
    const secret = Uint8Array.from(numbers);
    numbers.fill(0);
    return secret;
  }

  async set(account: string, secret: Uint8Array): Promise<void> {
    await this.call(account, (entry) => entry.setSecret(secret));
  }

  async delete(account: string): Promise<boolean> {
    return this.call(account, (entry) => entry.deleteCredential());
  }

  private async call<R>(account: string, operation: (entry: AsyncEntry) => Promise<R>): Promise<R> {
    try {
      let entry = this.entries.get(account);
      if (entry === undefined) {
        const { AsyncEntry } = await keyring();
        // The constructor already connects to the Secret Service on Linux, so it can throw too.
        entry = new AsyncEntry(this.serviceName, account, ENTRY_OPTIONS);
        this.entries.set(account, entry);
      }
      return await operation(entry);
    } catch (error) {
      this.entries.delete(account);
      throw keychainErrorFrom(error);
    }
  }
}

/**
 * Turns what `@napi-rs/keyring` throws into KEYCHAIN_UNAVAILABLE or KEYCHAIN_LOCKED with a next step. The library
 * only reports `code: 'GenericFailure'`, so the kind is read from the message of the underlying keyring-rs error:
 * "Platform failure: DBus error: …" when no bus or service answers, "Couldn't access platform storage: Secret Service:
 * unlock prompt was dismissed" when the collection is locked, "…: no result found" when there is no default collection.
 */
export function keychainErrorFrom(error: unknown): QkError {
  if (error instanceof QkError) return error;
  const cause = error instanceof Error ? error.message : String(error);
  const details = { cause };
  if (/unlock prompt|locked|interaction is not allowed/i.test(cause)) {
    return new QkError(
      'KEYCHAIN_LOCKED',
      `The OS keychain is locked (${cause}): unlock it (on Linux, your login keyring in Seahorse "Passwords and Keys"), then retry`,
      details,
    );
  }
  if (/Secret Service: no result found/i.test(cause)) {
    return new QkError(
      'KEYCHAIN_UNAVAILABLE',
      `The Secret Service has no default keyring to store keys in (${cause}): create a keyring in Seahorse "Passwords and Keys", make it the default and unlock it, then retry`,
      details,
    );
  }
  if (process.platform === 'linux' && /DBus|D-Bus|Secret Service|org\.freedesktop\.secrets/i.test(cause)) {
    return new QkError(
      'KEYCHAIN_UNAVAILABLE',
      `No Secret Service is running (${cause}): install and start gnome-keyring or KWallet in your desktop session, then retry`,
      details,
    );
  }
  return new QkError(
    'KEYCHAIN_UNAVAILABLE',
    `The OS keychain cannot be used (${cause}): make sure your login keychain is available to this app, then retry`,
    details,
  );
}
