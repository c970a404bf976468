/**
 * `X-Stamp-WebAuthn` (docs/service.md#passkeys): the assertion names its credential id; the authenticator registered
 * with that id in the target organization (or its parent) holds the key the assertion must verify with. As in
 * WebAuthn's assertion verification (§7.2, step 21), an authenticator that counts its signatures must show a count
 * above the last one seen: an assertion whose count does not advance is a replay or comes from a cloned authenticator,
 * and is refused. Authenticators that report 0 every time (most synced passkeys) do not count, and are not checked.
 */
import { QkError } from '../../shared/errors';
import { parseWebAuthnStamp, verifyWebAuthnStamp } from '../../shared/crypto/webauthn';
import { WEBAUTHN_CREDENTIAL_TYPE } from './credentials';
import type { Store } from '../store';
import type { StampFormat } from './authenticate';

/** The scheme recorded on votes cast with a passkey. */
export const WEBAUTHN_STAMP_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256_WEBAUTHN';

export function webAuthnStampFormat(store: Pick<Store, 'transaction'>): StampFormat {
  return {
    header: 'x-stamp-webauthn',
    verify(headerValue) {
      // Only parsed here: the signature is checked in resolve, with the key of the authenticator the stamp names.
      const stamp = parseWebAuthnStamp(headerValue);
      return { scheme: WEBAUTHN_STAMP_SCHEME, publicKey: stamp.credentialId, signature: headerValue };
    },
    async resolve(proof, { organization, repositories, body, now }) {
      const stamp = parseWebAuthnStamp(proof.signature);
      const candidates = repositories.authenticators
        .findByCredentialId(stamp.credentialId)
        .filter((authenticator) => authenticator.organizationId === organization.id || authenticator.organizationId === organization.parentId);
      const authenticator = candidates.find((candidate) => candidate.organizationId === organization.id) ?? candidates[0];
      if (authenticator === undefined) {
        throw new QkError(
          'CREDENTIAL_NOT_FOUND',
          `credential ID could not be found in organization or its parent organization: ${stamp.credentialId} is not an authenticator of organization ${organization.id}`,
          { credentialId: stamp.credentialId, organizationId: organization.id },
        );
      }
      const { signCount } = verifyWebAuthnStamp(stamp, body, authenticator.publicKey);
      if (signCount !== 0 || authenticator.signCount !== 0) {
        const advanced = await store.transaction((tx) => tx.authenticators.advanceSignCount(authenticator.id, signCount, now));
        if (!advanced) {
          throw new QkError(
            'SIGNATURE_INVALID',
            `could not verify WebAuthn signature: authenticator ${authenticator.id} signed with count ${signCount}, not above its last count; ` +
              'the assertion was replayed or the authenticator may be cloned. Sign the request again; if this persists, remove the authenticator',
            { credentialId: stamp.credentialId, signCount },
          );
        }
      }
      return {
        id: authenticator.id,
        type: WEBAUTHN_CREDENTIAL_TYPE,
        publicKey: authenticator.publicKey,
        userId: authenticator.userId,
        organizationId: authenticator.organizationId,
        credentialId: authenticator.credentialId,
      };
    },
  };
}
