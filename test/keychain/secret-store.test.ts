/**
 * How the library's failures are classified. The messages are the ones @napi-rs/keyring 2.x actually throws (observed
 * on Linux: no bus, a locked gnome-keyring collection, a Secret Service without a default collection); the first two
 * are also exercised end to end in keychain.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { keychainErrorFrom } from '../../src/main/keychain/secret-store';
import { QkError } from '../../src/shared/errors';

function libraryError(message: string): Error {
  return Object.assign(new Error(message), { code: 'GenericFailure' });
}

describe('keychainErrorFrom', () => {
  it.runIf(process.platform === 'linux')('maps a missing D-Bus session to KEYCHAIN_UNAVAILABLE with the next step', () => {
    const error = keychainErrorFrom(
      libraryError('Platform failure: DBus error: Failed to connect to socket /run/user/1000/bus: No such file or directory'),
    );
    expect(error.code).toBe('KEYCHAIN_UNAVAILABLE');
    expect(error.message).toMatch(/^No Secret Service is running .*install and start gnome-keyring or KWallet/);
    expect(error.details).toEqual({ cause: expect.stringContaining('Failed to connect to socket') });
  });

  it('maps a dismissed unlock prompt to KEYCHAIN_LOCKED', () => {
    const error = keychainErrorFrom(libraryError("Couldn't access platform storage: Secret Service: unlock prompt was dismissed"));
    expect(error.code).toBe('KEYCHAIN_LOCKED');
    expect(error.message).toContain('unlock it');
  });

  it('maps a Secret Service without a default collection to KEYCHAIN_UNAVAILABLE asking for a default keyring', () => {
    const error = keychainErrorFrom(libraryError("Couldn't access platform storage: Secret Service: no result found"));
    expect(error.code).toBe('KEYCHAIN_UNAVAILABLE');
    expect(error.message).toContain('no default keyring');
  });

  it('keeps unrecognised failures as KEYCHAIN_UNAVAILABLE with the cause, and QkErrors unchanged', () => {
    const unknown = keychainErrorFrom(libraryError('Attribute too long'));
    expect(unknown.code).toBe('KEYCHAIN_UNAVAILABLE');
    expect(unknown.message).toContain('Attribute too long');
    const original = new QkError('KEY_INVALID', 'bad');
    expect(keychainErrorFrom(original)).toBe(original);
  });
});
