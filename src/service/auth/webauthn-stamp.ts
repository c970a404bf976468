/**
 * `X-Stamp-WebAuthn` (api-notes §2.3): the assertion names its credential id; the authenticator registered with that
 * id in the target organization (or its parent) holds the key the assertion must verify with.
 */
import { QkError } from '../../shared/errors';
import { parseWebAuthnStamp, verifyWebAuthnStamp } from '../../shared/crypto/webauthn';
import { WEBAUTHN_CREDENTIAL_TYPE } from '../families/credentials';
import type { StampFormat } from './authenticate';

/** The scheme recorded on votes cast with a passkey. */
export const WEBAUTHN_STAMP_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256_WEBAUTHN';

export function webAuthnStampFormat(): StampFormat {
  return {
    header: 'x-stamp-webauthn',
    verify(headerValue) {
      // Only parsed here: the signature is checked in resolve, with the key of the authenticator the stamp names.
      const stamp = parseWebAuthnStamp(headerValue);
      return { scheme: WEBAUTHN_STAMP_SCHEME, publicKey: stamp.credentialId, signature: headerValue };
    },
    resolve(proof, { organization, repositories, body }) {
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
      verifyWebAuthnStamp(stamp, body, authenticator.publicKey);
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
