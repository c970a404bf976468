/**
 * Who may unlock: with an unlock passphrase set, unlocking needs it (or Touch ID where the Mac offers it), and
 * revealing a mnemonic or private key needs an unlock no older than a few minutes, so a person who finds the app
 * open cannot export a secret. Without a passphrase the lock is only a privacy screen; the renderer offers to set one.
 */
import { QkError } from '../../shared/errors';
import type { AppLock } from './lock';
import type { UnlockPassphrase } from './unlock-passphrase';

/** Touch ID, where the platform has it (macOS with a sensor); see touch-id.ts for Electron's. */
export interface TouchId {
  available(): boolean;
  /** Resolves once the person confirmed with a finger; rejects when they cancel or it fails. */
  prompt(reason: string): Promise<void>;
}

/** One of: the passphrase, or `touchId: true` to ask Touch ID. */
export interface UnlockCredentials {
  passphrase?: string | undefined;
  touchId?: true | undefined;
}

export interface UnlockerOptions {
  lock: AppLock;
  passphrase: UnlockPassphrase;
  touchId?: TouchId | undefined;
  now?: () => number;
}

export class Unlocker {
  readonly #lock: AppLock;
  readonly #passphrase: UnlockPassphrase;
  readonly #touchId: TouchId | undefined;
  readonly #now: () => number;
  #lastAuthenticatedAtMs = Number.NEGATIVE_INFINITY;

  constructor({ lock, passphrase, touchId, now = Date.now }: UnlockerOptions) {
    this.#lock = lock;
    this.#passphrase = passphrase;
    this.#touchId = touchId;
    this.#now = now;
  }

  async status(): Promise<{ unlockPassphraseSet: boolean; touchIdAvailable: boolean }> {
    const unlockPassphraseSet = await this.#passphrase.isSet();
    return { unlockPassphraseSet, touchIdAvailable: unlockPassphraseSet && this.touchIdAvailable() };
  }

  /** Unlocks the app once `credentials` prove the person knows the passphrase (when one is set). */
  async unlock(credentials: UnlockCredentials): Promise<void> {
    if (await this.#passphrase.isSet()) await this.authenticate(credentials, 'unlock QuorumKey');
    this.#lock.unlock();
  }

  /** Renews the recent authentication that revealing a secret needs. */
  async reauthenticate(credentials: UnlockCredentials): Promise<void> {
    await this.authenticate(credentials, 'reveal a secret in QuorumKey');
  }

  /** Sets or changes the passphrase (the current one is needed to change it); counts as a fresh authentication. */
  async setPassphrase(passphrase: string, currentPassphrase?: string): Promise<void> {
    await this.#passphrase.set(passphrase, currentPassphrase);
    this.#lastAuthenticatedAtMs = this.#now();
  }

  /**
   * Asks for the passphrase (when one is set) before a change that lowers the app's guard, described by `change`:
   * PASSPHRASE_REQUIRED without one, and a wrong one is counted and delayed as a wrong unlock is.
   */
  async confirm(passphrase: string | undefined, change: string): Promise<void> {
    if (!(await this.#passphrase.isSet())) return;
    if (passphrase === undefined) {
      throw new QkError('PASSPHRASE_REQUIRED', `${change}: enter the unlock passphrase to confirm`, { field: 'passphrase', change });
    }
    await this.#passphrase.verify(passphrase);
    this.#lastAuthenticatedAtMs = this.#now();
  }

  /** Throws REAUTH_REQUIRED when a passphrase is set and the last authentication is older than `maxAgeMs`. */
  async requireRecentAuthentication(maxAgeMs: number): Promise<void> {
    if (!(await this.#passphrase.isSet())) return;
    const ageMs = this.#now() - this.#lastAuthenticatedAtMs;
    if (ageMs <= maxAgeMs) return;
    throw new QkError(
      'REAUTH_REQUIRED',
      `revealing a secret needs the unlock passphrase again (the last unlock is more than ${Math.round(maxAgeMs / 60_000)} min old)`,
      { maxAgeMs },
    );
  }

  private touchIdAvailable(): boolean {
    return this.#touchId?.available() === true;
  }

  private async authenticate({ passphrase, touchId }: UnlockCredentials, reason: string): Promise<void> {
    if (touchId === true) {
      if (!this.touchIdAvailable() || !(await this.#passphrase.isSet())) {
        throw new QkError('FAILED_PRECONDITION', 'Touch ID is not available here; enter the unlock passphrase instead');
      }
      try {
        await this.#touchId!.prompt(reason);
      } catch (error) {
        throw new QkError(
          'PASSPHRASE_INVALID',
          `Touch ID did not confirm (${error instanceof Error ? error.message : String(error)}); try again or enter the passphrase`,
        );
      }
    } else if (passphrase === undefined) {
      throw new QkError('PASSPHRASE_INVALID', 'enter the unlock passphrase', { field: 'passphrase' });
    } else {
      await this.#passphrase.verify(passphrase);
    }
    this.#lastAuthenticatedAtMs = this.#now();
  }
}
