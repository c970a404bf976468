import type { ApiKeyCurve } from '../../shared/crypto/keys';
import type { Repositories } from '../store';
import { ConnectionMemo } from '../store/table-memo';

export const WEBAUTHN_CREDENTIAL_TYPE = 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' as const;

/** A credential a request was stamped with: an API key (session keys included) or a passkey. */
export interface Credential {
  /** The api key id or authenticator id. */
  id: string;
  type: string;
  publicKey: string;
  userId: string;
  organizationId: string;
  /** For WebAuthn credentials: the credential id from the authenticator. */
  credentialId?: string;
}

/** Per connection: whether each credential is stored, remembered while the tables of credentials are unchanged. */
const credentialsHeld = new ConnectionMemo<boolean>(['api_keys', 'authenticators']);

/**
 * Whether `credential` is still stored. A request is authenticated on the read connection before its transaction
 * starts; a transaction queued ahead of it may delete the key (or its user) meanwhile. The answer is remembered as
 * the other reads of a transaction are (table-memo.ts): any deletion, a user's included, counts as a change.
 */
export function credentialStillHeld(store: Repositories, credential: Credential): boolean {
  const { credentialId, organizationId, id } = credential;
  return credentialsHeld.read(store, credentialId === undefined ? `api key ${id}` : `authenticator ${organizationId} ${id}`, () =>
    credentialId === undefined ? store.apiKeys.get(id) !== undefined : store.authenticators.get(organizationId, id) !== undefined,
  );
}

/** What a verified stamp proves, kept for vote records (v1Vote, docs/service.md#envelope-and-record). */
export interface StampProof {
  scheme: string;
  publicKey: string;
  signature: string;
}

/** Which stamp curve each credential type is verified with. */
const curveByCredentialType: Record<string, ApiKeyCurve> = {
  CREDENTIAL_TYPE_API_KEY_P256: 'p256',
  CREDENTIAL_TYPE_API_KEY_SECP256K1: 'secp256k1',
  CREDENTIAL_TYPE_API_KEY_ED25519: 'ed25519',
  CREDENTIAL_TYPE_RECOVER_USER_KEY_P256: 'p256',
  CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256: 'p256',
  CREDENTIAL_TYPE_OTP_AUTH_KEY_P256: 'p256',
  CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256: 'p256',
  CREDENTIAL_TYPE_OAUTH_KEY_P256: 'p256',
  CREDENTIAL_TYPE_LOGIN: 'p256',
};

export function curveOfCredentialType(type: string): ApiKeyCurve | undefined {
  return curveByCredentialType[type];
}

export const apiKeyCredentialTypeByCurve: Record<ApiKeyCurve, string> = {
  p256: 'CREDENTIAL_TYPE_API_KEY_P256',
  secp256k1: 'CREDENTIAL_TYPE_API_KEY_SECP256K1',
  ed25519: 'CREDENTIAL_TYPE_API_KEY_ED25519',
};
