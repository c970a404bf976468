/**
 * email_auth through `@turnkey/http` unchanged, as an app's backend uses it: the parent organization asks for a login
 * email to a sub-organization user; the email (the local outbox) carries a credential bundle sealed to the app's
 * target key, which `@turnkey/crypto` opens into an API key of that user.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';
import { TurnkeyRequestError } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import { readOutbox, type CredentialBundleMessage } from '../../src/service/proxy/outbox';
import { newKey, startTestService, type TestService } from '../service/helpers';

let t: TestService;
let outbox: string;
beforeEach(async () => {
  outbox = join(mkdtempSync(join(tmpdir(), 'quorumkey-email-login-')), 'outbox.jsonl');
  t = await startTestService({ otpOutbox: outbox });
});
afterEach(() => t.close());

function envelope<T extends string>(type: T, organizationId = t.info.organizationId) {
  t.clock.advance(1);
  return { type, timestampMs: String(t.clock.now()), organizationId };
}

async function subOrganization(options: { disableEmailAuth?: boolean } = {}) {
  const created = await t.client().createSubOrganization({
    ...envelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'),
    parameters: {
      subOrganizationName: `customer ${t.clock.now()}`,
      rootUsers: [{ userName: 'alice', userEmail: 'Alice@Example.com', apiKeys: [{ apiKeyName: 'k', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }], authenticators: [], oauthProviders: [] }],
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
      ...envelope('ACTIVITY_TYPE_EMAIL_AUTH_V3', subOrganizationId),
      parameters: { email: 'alice@example.com', targetPublicKey: target.publicKeyUncompressed, emailCustomization: { appName: 'Demo' }, expirationSeconds: '300' },
    });
    expect(reply.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { userId, apiKeyId } = reply.activity.result.emailAuthResult!;
    expect(userId).toBe(aliceId);

    const message = readOutbox(outbox).at(-1) as CredentialBundleMessage;
    expect(message).toMatchObject({ contact: 'alice@example.com', channel: 'email', purpose: 'EMAIL_AUTH', organizationId: subOrganizationId, userId: aliceId });
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
      .emailAuth({ ...envelope('ACTIVITY_TYPE_EMAIL_AUTH_V3', subOrganizationId), parameters: { email: 'bob@example.com', targetPublicKey: target, emailCustomization: { appName: 'Demo' } } })
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(TurnkeyRequestError);
    expect((unknown as TurnkeyRequestError).message).toContain('no user of organization');

    const disabled = await subOrganization({ disableEmailAuth: true });
    const refused = await t
      .client()
      .emailAuth({ ...envelope('ACTIVITY_TYPE_EMAIL_AUTH_V3', disabled.subOrganizationId), parameters: { email: 'alice@example.com', targetPublicKey: target, emailCustomization: { appName: 'Demo' } } })
      .catch((error: unknown) => error);
    expect((refused as TurnkeyRequestError).message).toContain('email auth is disabled');
    expect(readOutbox(outbox)).toHaveLength(0);
  });
});
