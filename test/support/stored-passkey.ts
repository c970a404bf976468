/**
 * A user's passkey put straight into a test service's store (no registration ceremony): a soft authenticator on
 * localhost, for tests of what a passkey's stamp does (a vote, an MFA step) rather than of how one is registered.
 */
import { createSoftAuthenticator, type SoftAuthenticator } from './soft-authenticator';
import type { ApiPublicKey, TestService } from './service';

/** The origin the soft authenticator signs for, on the relying party `localhost`. */
export const PASSKEY_ORIGIN = 'http://localhost:3000';

/** Gives `userId` of the service's organization a passkey named "laptop", stored with `authenticatorId`. */
export async function addStoredPasskey(
  t: Pick<TestService<ApiPublicKey>, 'store' | 'info' | 'clock'>,
  userId: string,
  authenticatorId: string,
): Promise<SoftAuthenticator> {
  const passkey = createSoftAuthenticator({ rpId: 'localhost', origin: PASSKEY_ORIGIN });
  await t.store.transaction((tx) => {
    tx.authenticators.insert({
      id: authenticatorId,
      organizationId: t.info.organizationId,
      userId,
      name: 'laptop',
      credentialId: passkey.credentialId,
      publicKey: passkey.publicKey,
      aaguid: '00000000-0000-0000-0000-000000000000',
      attestationType: 'none',
      transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'],
      signCount: 0,
      now: t.clock.now(),
    });
  });
  return passkey;
}
