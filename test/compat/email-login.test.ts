/**
 * email_auth through `@turnkey/http` unchanged, as an app's backend uses it: the parent organization asks for a login
 * email to a sub-organization user; the email (the local outbox) carries a credential bundle sealed to the app's
 * target key, which `@turnkey/crypto` opens into an API key of that user. Email recovery works the same way, its key
 * serving only to register a new passkey.
 */
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';
import { TurnkeyRequestError } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import { readOutbox, type CredentialBundleMessage } from '../../src/service/proxy/outbox';
import { newKey, startTestService, type TestService } from '../support/service';
import { createSoftAuthenticator } from '../support/soft-authenticator';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

async function subOrganization(options: { disableEmailAuth?: boolean } = {}) {
  const created = await t.client().createSubOrganization({
    ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'),
    parameters: {
      subOrganizationName: `customer ${t.clock.now()}`,
      rootUsers: [
        {
          userName: 'alice',
          userEmail: 'Alice@Example.com',
          apiKeys: [{ apiKeyName: 'k', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
      ...options,
    },
  });
  const result = created.activity.result.createSubOrganizationResultV8!;
  return { subOrganizationId: result.subOrganizationId, aliceId: result.rootUserIds![0]! };
}

describe('email_auth', () => {
  it("delivers a bundle to the user's email that opens into a working API key of that user", async () => {
    const { subOrganizationId, aliceId } = await subOrganization();
    const target = generateP256KeyPair();
    const reply = await t.client().emailAuth({
      ...t.nextEnvelope('ACTIVITY_TYPE_EMAIL_AUTH_V3', subOrganizationId),
      parameters: {
        email: 'alice@example.com',
        targetPublicKey: target.publicKeyUncompressed,
        emailCustomization: { appName: 'Demo' },
        expirationSeconds: '300',
      },
    });
    expect(reply.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { userId, apiKeyId } = reply.activity.result.emailAuthResult!;
    expect(userId).toBe(aliceId);

    const message = readOutbox(t.outbox).at(-1) as CredentialBundleMessage;
    expect(message).toMatchObject({
      contact: 'alice@example.com',
      channel: 'email',
      purpose: 'EMAIL_AUTH',
      organizationId: subOrganizationId,
      userId: aliceId,
    });
    const privateKey = decryptCredentialBundle(message.credentialBundle, target.privateKey);
    const key = { curve: 'p256' as const, publicKey: bytesToHex(getPublicKey(privateKey, true)), privateKey };
    const whoami = await t.client(key).getWhoami({ organizationId: subOrganizationId });
    expect([whoami.userId, whoami.organizationId]).toEqual([aliceId, subOrganizationId]);
    const { apiKey } = await t.client(key).getApiKey({ organizationId: subOrganizationId, apiKeyId });
    expect(apiKey.credential.type).toBe('CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256');
  });

  it('refuses an email no user has, and a sub-organization created without email auth', async () => {
    const { subOrganizationId } = await subOrganization();
    const target = generateP256KeyPair().publicKeyUncompressed;
    const unknown = await t
      .client()
      .emailAuth({
        ...t.nextEnvelope('ACTIVITY_TYPE_EMAIL_AUTH_V3', subOrganizationId),
        parameters: { email: 'bob@example.com', targetPublicKey: target, emailCustomization: { appName: 'Demo' } },
      })
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(TurnkeyRequestError);
    expect((unknown as TurnkeyRequestError).message).toContain('no user of organization');

    const disabled = await subOrganization({ disableEmailAuth: true });
    const refused = await t
      .client()
      .emailAuth({
        ...t.nextEnvelope('ACTIVITY_TYPE_EMAIL_AUTH_V3', disabled.subOrganizationId),
        parameters: { email: 'alice@example.com', targetPublicKey: target, emailCustomization: { appName: 'Demo' } },
      })
      .catch((error: unknown) => error);
    expect((refused as TurnkeyRequestError).message).toContain('email auth is disabled');
    expect(readOutbox(t.outbox)).toHaveLength(0);
  });
});

describe('email recovery', () => {
  const newPasskey = () => createSoftAuthenticator({ rpId: 'localhost', origin: 'http://localhost:3000' });

  it('init_user_email_recovery emails a recovery key that registers a passkey with recover_user, once', async () => {
    const { subOrganizationId, aliceId } = await subOrganization();
    const target = generateP256KeyPair();
    const init = await t.client().initUserEmailRecovery({
      ...t.nextEnvelope('ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2', subOrganizationId),
      parameters: { email: 'alice@example.com', targetPublicKey: target.publicKeyUncompressed, emailCustomization: { appName: 'Demo' } },
    });
    expect(init.activity.result.initUserEmailRecoveryResult).toEqual({ userId: aliceId });
    const message = readOutbox(t.outbox).at(-1) as CredentialBundleMessage;
    expect(message).toMatchObject({ purpose: 'EMAIL_RECOVERY', userId: aliceId });
    const privateKey = decryptCredentialBundle(message.credentialBundle, target.privateKey);
    const recoveryKey = { curve: 'p256' as const, publicKey: bytesToHex(getPublicKey(privateKey, true)), privateKey };

    // The recovery key does nothing but recover its own user.
    const wallet = await t
      .client(recoveryKey)
      .createWallet({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET', subOrganizationId), parameters: { walletName: 'no', accounts: [] } })
      .catch((error: unknown) => error);
    expect((wallet as TurnkeyRequestError).message).toContain('a recovery credential may only submit ACTIVITY_TYPE_RECOVER_USER');

    const passkey = newPasskey();
    const authenticator = { authenticatorName: 'new laptop', challenge: 'cmVjb3Zlcg', attestation: passkey.register('cmVjb3Zlcg', 'packed') };
    const recovered = await t
      .client(recoveryKey)
      .recoverUser({ ...t.nextEnvelope('ACTIVITY_TYPE_RECOVER_USER', subOrganizationId), parameters: { userId: aliceId, authenticator } });
    const [authenticatorId] = recovered.activity.result.recoverUserResult!.authenticatorId;
    const { authenticators } = await t.client().getAuthenticators({ organizationId: subOrganizationId, userId: aliceId });
    expect(authenticators.map((stored) => [stored.authenticatorId, stored.authenticatorName, stored.credentialId])).toEqual([
      [authenticatorId, 'new laptop', passkey.credentialId],
    ]);

    const again = await t
      .client(recoveryKey)
      .recoverUser({ ...t.nextEnvelope('ACTIVITY_TYPE_RECOVER_USER', subOrganizationId), parameters: { userId: aliceId, authenticator } })
      .catch((error: unknown) => error);
    expect((again as TurnkeyRequestError).code).toBe(16);
  });
});
