/**
 * Stamps request bodies with a profile's credential: an API key in the OS keychain, whose private key is loaded only
 * for the one signature and wiped right after (Keychain.withApiKeySigner), or a key on a PKCS#11 token, which signs
 * on the token (Pkcs11Tokens). Nothing in main keeps a private key between requests.
 */
import type { Keychain } from '../keychain/keychain';
import type { Pkcs11Tokens } from '../pkcs11/pkcs11-tokens';
import { describeTokenKey } from '../pkcs11/token-key';
import { stampBody } from '../../shared/crypto/stamp';
import { QkError } from '../../shared/errors';
import type { RequestStamper, Stamp, StampCredential } from './stamp';

export type CredentialKind = 'keychain' | 'token';

export function credentialKind(credential: StampCredential): CredentialKind {
  return credential.tokenKey === undefined ? 'keychain' : 'token';
}

export class Stamper implements RequestStamper {
  /** Without `tokens` (a tool that only ever signs with keychain keys), a token credential is refused. */
  constructor(
    private readonly keychain: Pick<Keychain, 'withApiKeySigner'>,
    private readonly tokens?: Pick<Pkcs11Tokens, 'withSigner'>,
  ) {}

  /** The `X-Stamp` header over exactly `body` (the caller must send these bytes unchanged). */
  async stamp(credential: StampCredential, body: string): Promise<Stamp> {
    if (credential.tokenKey !== undefined) {
      if (this.tokens === undefined) {
        throw new QkError('KEYCHAIN_UNAVAILABLE', `${describeTokenKey(credential.tokenKey)} cannot sign here: this stamper has no PKCS#11 tokens`);
      }
      return this.tokens.withSigner(credential.tokenKey, (signer) => stampBody(body, signer));
    }
    return this.keychain.withApiKeySigner(credential.apiKeyName, (signer) => stampBody(body, signer));
  }
}
