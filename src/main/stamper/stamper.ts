/**
 * Stamps request bodies with a profile's credential: an API key in the OS keychain, whose private key is loaded only
 * for the one signature and wiped right after (Keychain.withApiKeySigner), or a key on a PKCS#11 token, which signs
 * on the token (Pkcs11Tokens). A profile with a passkey votes with it (approve, reject): its authenticator answers an
 * assertion on main's own page (`assertPasskey`), checked here before the stamp is sent. Nothing in main keeps a
 * private key between requests.
 */
import type { Keychain } from '../keychain/keychain';
import { describePasskey, isVoteBody } from '../passkeys/passkey';
import { passkeyStamp, type AssertPasskey } from '../passkeys/passkey-stamp';
import type { Pkcs11Tokens } from '../pkcs11/pkcs11-tokens';
import { describeTokenKey } from '../pkcs11/token-key';
import { utf8Encode } from '../../shared/crypto/encoding';
import { fingerprintOf, stampBody } from '../../shared/crypto/stamp';
import type { ConfirmedReadings } from '../confirmation/confirmed-readings';
import { QkError } from '../../shared/errors';
import type { RequestStamper, Stamp, StampCredential } from './stamp';

export type CredentialKind = 'keychain' | 'token' | 'passkey';

/** Which credential stamps: the passkey for a vote `body` when the profile has one, else its token or keychain key. */
export function credentialKind(credential: StampCredential, body?: string): CredentialKind {
  if (credential.passkey !== undefined && body !== undefined && isVoteBody(body)) return 'passkey';
  return credential.tokenKey === undefined ? 'keychain' : 'token';
}

/**
 * Which credential stamps `body`, in words for a person: `security key "yk-5" (credential …)` for a passkey's vote,
 * `PKCS#11 token "yk" key "ops-1"`, `keychain API key "ops"`.
 */
export function credentialInWords(credential: StampCredential, body?: string): string {
  if (credentialKind(credential, body) === 'passkey' && credential.passkey !== undefined) return describePasskey(credential.passkey);
  if (credential.tokenKey !== undefined) {
    const { tokenLabel, keyLabel, keyId } = credential.tokenKey;
    return `PKCS#11 token ${JSON.stringify(tokenLabel)} key ${JSON.stringify(keyLabel)}${keyId === undefined ? '' : ` (CKA_ID ${keyId})`}`;
  }
  return `keychain API key ${JSON.stringify(credential.apiKeyName)}`;
}

/** What a token's PIN prompt says it signs when no confirmation covered the body. */
export const UNCONFIRMED_BODY = 'a request you did not confirm in QuorumKey: reading the organization is never confirmed, a change always is';

export class Stamper implements RequestStamper {
  /**
   * Without `tokens` (a tool that only ever signs with keychain keys), a token credential is refused. `readings` are
   * the lines main's confirmation showed, restated by a token's PIN prompt for the body it signs.
   */
  constructor(
    private readonly keychain: Pick<Keychain, 'withApiKeySigner'>,
    private readonly tokens?: Pick<Pkcs11Tokens, 'withSigner'>,
    private readonly readings?: Pick<ConfirmedReadings, 'take'>,
    /** Without it (the CLI, a tool), a passkey's vote is refused: there is no page to touch the key on. */
    private readonly assertPasskey?: AssertPasskey,
  ) {}

  /** The `X-Stamp` header over exactly `body` (the caller must send these bytes unchanged). */
  async stamp(credential: StampCredential, body: string): Promise<Stamp> {
    // Taken whichever credential stamps: each confirmation covers one stamp, and none is left behind in memory.
    const reading = this.readings?.take(fingerprintOf(utf8Encode(body))) ?? UNCONFIRMED_BODY;
    if (credentialKind(credential, body) === 'passkey' && credential.passkey !== undefined) {
      if (this.assertPasskey === undefined) {
        throw new QkError('PASSKEY_CANCELLED', 'this profile votes with a security key, which cannot be asked here: vote in the QuorumKey app');
      }
      const assertion = await this.assertPasskey({ passkey: credential.passkey, body, reading });
      return passkeyStamp(credential.passkey, body, assertion);
    }
    if (credential.tokenKey !== undefined) {
      if (this.tokens === undefined) {
        throw new QkError('KEYCHAIN_UNAVAILABLE', `${describeTokenKey(credential.tokenKey)} cannot sign here: this stamper has no PKCS#11 tokens`);
      }
      return this.tokens.withSigner(credential.tokenKey, (signer) => stampBody(body, signer), reading);
    }
    return this.keychain.withApiKeySigner(credential.apiKeyName, (signer) => stampBody(body, signer));
  }
}
