import { describe, expect, it } from 'vitest';
import { parseWebAuthnStamp, verifyWebAuthnStamp, WEBAUTHN_STAMP_HEADER_NAME } from '../../src/shared/crypto/webauthn';
import { utf8Encode } from '../../src/shared/crypto/encoding';
import { isVoteBody, validatePasskey, type PasskeyCredential } from '../../src/main/passkeys/passkey';
import { passkeyStamp } from '../../src/main/passkeys/passkey-stamp';
import { Stamper, credentialKind } from '../../src/main/stamper/stamper';
import { ConfirmedReadings } from '../../src/main/confirmation/confirmed-readings';
import { fingerprintOf } from '../../src/shared/crypto/stamp';
import { stampCredentialRecord } from '../../src/main/journal/activity-entry';
import { journalCredentialSchema } from '../../src/shared/journal/format';
import { createSoftAuthenticator } from '../support/soft-authenticator';
import { thrown } from '../support/assertions';

function expectRefusal(action: () => unknown, code: string, message: RegExp): void {
  const error = thrown(action);
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
}

const ORIGIN = 'http://localhost:1234';
const VOTE = JSON.stringify({
  type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
  timestampMs: '1',
  organizationId: 'o',
  parameters: { fingerprint: 'sha256:ab' },
});
const READ = JSON.stringify({ organizationId: 'o' });

function passkeyOf(authenticator: { credentialId: string; publicKey: string }): PasskeyCredential {
  return { credentialId: authenticator.credentialId, publicKey: authenticator.publicKey, authenticatorId: 'auth-1', name: 'yk-5' };
}

describe('a passkey stamp', () => {
  const authenticator = createSoftAuthenticator({ rpId: 'localhost', origin: ORIGIN });
  const passkey = passkeyOf(authenticator);

  it('is the X-Stamp-WebAuthn header the service parses, verifying over exactly the body', () => {
    const stamp = passkeyStamp(passkey, VOTE, parseWebAuthnStamp(authenticator.assert(VOTE)));
    expect(stamp.headerName).toBe(WEBAUTHN_STAMP_HEADER_NAME);
    const parsed = parseWebAuthnStamp(stamp.headerValue);
    expect(parsed.credentialId).toBe(passkey.credentialId);
    expect(verifyWebAuthnStamp(parsed, utf8Encode(VOTE), passkey.publicKey).origin).toBe(ORIGIN);
  });

  it('refuses an assertion over another body, naming the challenge', () => {
    expectRefusal(() => passkeyStamp(passkey, VOTE, parseWebAuthnStamp(authenticator.assert(READ))), 'SIGNATURE_INVALID', /challenge/);
  });

  it("refuses another credential's assertion, naming both", () => {
    const other = createSoftAuthenticator({ rpId: 'localhost', origin: ORIGIN });
    expectRefusal(() => passkeyStamp(passkey, VOTE, parseWebAuthnStamp(other.assert(VOTE))), 'SIGNATURE_INVALID', new RegExp(other.credentialId));
  });

  it('refuses an assertion whose signature is not the registered key’s', () => {
    const impostor = { ...passkeyOf(createSoftAuthenticator({ rpId: 'localhost', origin: ORIGIN })), credentialId: passkey.credentialId };
    expectRefusal(() => passkeyStamp(impostor, VOTE, parseWebAuthnStamp(authenticator.assert(VOTE))), 'SIGNATURE_INVALID', /does not verify/);
  });
});

describe('the Stamper with a passkey', () => {
  const authenticator = createSoftAuthenticator({ rpId: 'localhost', origin: ORIGIN });
  const passkey = passkeyOf(authenticator);
  const keychainStamps: string[] = [];
  const keychain = {
    withApiKeySigner: async <T>(name: string): Promise<T> => {
      keychainStamps.push(name);
      return { headerName: 'X-Stamp', headerValue: `keychain:${name}` } as T;
    },
  };

  it('stamps votes with the passkey and everything else with the API key', async () => {
    const asked: string[] = [];
    const stamper = new Stamper(keychain, undefined, undefined, async ({ body }) => {
      asked.push(body);
      return parseWebAuthnStamp(authenticator.assert(body));
    });
    const credential = { apiKeyName: 'ops', passkey };
    expect((await stamper.stamp(credential, VOTE)).headerName).toBe('X-Stamp-WebAuthn');
    expect(asked).toEqual([VOTE]);
    expect(await stamper.stamp(credential, READ)).toEqual({ headerName: 'X-Stamp', headerValue: 'keychain:ops' });
    expect(asked).toEqual([VOTE]);
    expect(credentialKind(credential, VOTE)).toBe('passkey');
    expect(credentialKind(credential, READ)).toBe('keychain');
  });

  it('takes the confirmed reading of a passkey vote, which the page restates, and leaves none behind', async () => {
    const readings = new ConfirmedReadings();
    const bodyFingerprint = fingerprintOf(utf8Encode(VOTE));
    readings.confirmed(bodyFingerprint, 'Approve "Sign a payload" as Bea?');
    const restated: string[] = [];
    const stamper = new Stamper(keychain, undefined, readings, async ({ body, reading }) => {
      restated.push(reading);
      return parseWebAuthnStamp(authenticator.assert(body));
    });
    expect((await stamper.stamp({ apiKeyName: 'ops', passkey }, VOTE)).headerName).toBe('X-Stamp-WebAuthn');
    expect(restated).toEqual(['Approve "Sign a payload" as Bea?']);
    expect(readings.take(bodyFingerprint)).toBeUndefined();
  });

  it('refuses a passkey vote where no page can ask the key (the CLI)', async () => {
    await expect(new Stamper(keychain).stamp({ apiKeyName: 'ops', passkey }, VOTE)).rejects.toMatchObject({ code: 'PASSKEY_CANCELLED' });
  });

  it('sends nothing when the page answered for another body', async () => {
    const stamper = new Stamper(keychain, undefined, undefined, async () => parseWebAuthnStamp(authenticator.assert(READ)));
    await expect(stamper.stamp({ apiKeyName: 'ops', passkey }, VOTE)).rejects.toMatchObject({ code: 'SIGNATURE_INVALID' });
  });

  it('journals the passkey with its credential id, in the journal format', () => {
    const header = passkeyStamp(passkey, VOTE, parseWebAuthnStamp(authenticator.assert(VOTE))).headerValue;
    const record = stampCredentialRecord({ apiKeyName: 'ops', passkey }, header);
    expect(record).toEqual({
      kind: 'passkey',
      name: expect.stringMatching(/^security key "yk-5"/),
      publicKey: passkey.publicKey,
      credentialId: passkey.credentialId,
    });
    expect(journalCredentialSchema.parse(record)).toEqual(record);
  });
});

describe('what a passkey votes on', () => {
  it('is an approve or reject body, read by its type', () => {
    expect(isVoteBody(VOTE)).toBe(true);
    expect(isVoteBody(VOTE.replace('APPROVE', 'REJECT'))).toBe(true);
    expect(isVoteBody(JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_USERS' }))).toBe(false);
    expect(isVoteBody(READ)).toBe(false);
    expect(isVoteBody('not json')).toBe(false);
  });

  it('is kept only as a well-formed passkey, naming the wrong field', () => {
    const authenticator = createSoftAuthenticator({ rpId: 'localhost', origin: ORIGIN });
    expect(validatePasskey(passkeyOf(authenticator), 'profile.passkey')).toEqual(passkeyOf(authenticator));
    expectRefusal(
      () => validatePasskey({ ...passkeyOf(authenticator), publicKey: '04ab' }, 'profile.passkey'),
      'REQUEST_INVALID',
      /profile\.passkey\.publicKey/,
    );
  });
});
