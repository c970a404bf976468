/**
 * What a stamp is and what makes one, apart from how main signs (stamper.ts): the API client takes any stamper of
 * this shape, so it needs neither the keychain nor the PKCS#11 tokens nor the passkeys.
 */
import type { STAMP_HEADER_NAME } from '../../shared/crypto/stamp';
import type { WEBAUTHN_STAMP_HEADER_NAME } from '../../shared/crypto/webauthn';
import type { PasskeyCredential } from '../passkeys/passkey';
import type { TokenKey } from '../pkcs11/token-key';

export interface Stamp {
  /** `X-Stamp` for an API key's stamp (keychain or token), `X-Stamp-WebAuthn` for a passkey's. */
  headerName: typeof STAMP_HEADER_NAME | typeof WEBAUTHN_STAMP_HEADER_NAME;
  headerValue: string;
}

/**
 * What signs a profile's stamps: its token key when it has one, its keychain API key otherwise; and its votes, when it
 * has a passkey, that passkey (a touch per vote; reads stay with the API key).
 */
export interface StampCredential {
  apiKeyName: string;
  tokenKey?: TokenKey | undefined;
  passkey?: PasskeyCredential | undefined;
}

/** Stamps exactly `body` with `credential`; the caller must send these bytes unchanged. */
export interface RequestStamper {
  stamp(credential: StampCredential, body: string): Promise<Stamp>;
}
