/**
 * The `X-Stamp-WebAuthn` stamp of a body by a profile's passkey: main asks for the assertion (on its own page, see
 * passkey-page.ts) and checks what came back against the passkey it registered before anything is sent, so a page
 * that answered for another credential, another body or with a forged signature is refused here, in words.
 */
import { utf8Encode } from '../../shared/crypto/encoding';
import { WEBAUTHN_STAMP_HEADER_NAME, verifyWebAuthnStamp, webAuthnStampHeaderValue, type WebAuthnStamp } from '../../shared/crypto/webauthn';
import { QkError, toQkError } from '../../shared/errors';
import type { Stamp } from '../stamper/stamp';
import { describePasskey, type PasskeyCredential } from './passkey';

export interface PasskeyAssertionRequest {
  passkey: PasskeyCredential;
  /** The exact body to be sent: the assertion's challenge is webAuthnChallengeFor(body). */
  body: string;
  /** The line main's confirmation showed for this body, which the page restates (UNCONFIRMED_BODY when none did). */
  reading: string;
}

/** Asks the person's authenticator for an assertion over `request.body`; PASSKEY_CANCELLED when none comes. */
export type AssertPasskey = (request: PasskeyAssertionRequest) => Promise<WebAuthnStamp>;

/**
 * The stamp of `body` from `assertion`, once it is shown to be `passkey`'s over exactly `body`: same credential id,
 * the body's challenge, user presence, and a signature that verifies with the registered key. SIGNATURE_INVALID
 * otherwise, naming what did not match.
 */
export function passkeyStamp(passkey: PasskeyCredential, body: string, assertion: WebAuthnStamp): Stamp {
  if (assertion.credentialId !== passkey.credentialId) {
    throw new QkError(
      'SIGNATURE_INVALID',
      `the assertion came from credential ${assertion.credentialId}, not from this profile's ${describePasskey(passkey)}; nothing was sent`,
      { credentialId: assertion.credentialId },
    );
  }
  try {
    verifyWebAuthnStamp(assertion, utf8Encode(body), passkey.publicKey);
  } catch (error) {
    const cause = toQkError(error);
    throw new QkError(
      'SIGNATURE_INVALID',
      `the ${describePasskey(passkey)} answered an assertion QuorumKey cannot use: ${cause.message}; nothing was sent`,
      {
        credentialId: passkey.credentialId,
      },
    );
  }
  return { headerName: WEBAUTHN_STAMP_HEADER_NAME, headerValue: webAuthnStampHeaderValue(assertion) };
}
