/**
 * What a stamp is and what makes one, apart from how main signs (stamper.ts): the API client takes any stamper of
 * this shape, so it needs neither the keychain nor the PKCS#11 tokens.
 */
import type { STAMP_HEADER_NAME } from '../../shared/crypto/stamp';
import type { TokenKey } from '../pkcs11/token-key';

export interface Stamp {
  headerName: typeof STAMP_HEADER_NAME;
  headerValue: string;
}

/** What signs a profile's stamps: its token key when it has one, its keychain API key otherwise. */
export interface StampCredential {
  apiKeyName: string;
  tokenKey?: TokenKey | undefined;
}

/** Stamps exactly `body` with `credential`; the caller must send these bytes unchanged. */
export interface RequestStamper {
  stamp(credential: StampCredential, body: string): Promise<Stamp>;
}
