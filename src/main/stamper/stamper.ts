/**
 * Stamps request bodies with an API key held in the OS keychain. The private key is loaded only for the one
 * signature and wiped right after (Keychain.withApiKeySigner), so nothing in main keeps it between requests.
 */
import type { Keychain } from '../keychain/keychain';
import { stampBody, STAMP_HEADER_NAME } from '../../shared/crypto/stamp';

export interface Stamp {
  headerName: typeof STAMP_HEADER_NAME;
  headerValue: string;
}

export class Stamper {
  constructor(private readonly keychain: Pick<Keychain, 'withApiKeySigner'>) {}

  /** The `X-Stamp` header over exactly `body` (the caller must send these bytes unchanged). */
  stamp(apiKeyName: string, body: string): Promise<Stamp> {
    return this.keychain.withApiKeySigner(apiKeyName, (signer) => stampBody(body, signer));
  }
}
