/**
 * Stored credentials (docs/service.md#stored-credentials) through Turnkey's own client: OAuth 2.0 credentials and fiat
 * on-ramp credentials are created, read, listed, updated and deleted, their secrets sealed by @turnkey/crypto as an
 * app seals them for the hosted service and answered exactly as they arrived. Each refusal (a secret that is no
 * sealed envelope, a client already stored, an unknown id, a policy's denial, a vote still needed) stores nothing.
 */
import { encryptOauth2ClientSecret, encryptOnRampSecret } from '@turnkey/crypto';
import { TurnkeyRequestError, type TurnkeyClient } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';

let t: TestService;
let root: TurnkeyClient;
beforeEach(async () => {
  t = await startTestService();
  root = t.client();
});
afterEach(() => t.close());

type Reply = { activity: { status: string; failure?: { details?: unknown[] } } };

/** How a request ended: the turnkeyErrorCode of an HTTP refusal or of a FAILED activity, else the activity's status. */
async function outcomeOf(call: Promise<Reply>): Promise<string> {
  try {
    const { activity } = await call;
    if (activity.status !== 'ACTIVITY_STATUS_FAILED') return activity.status;
    return (activity.failure?.details?.[0] as { turnkeyErrorCode: string }).turnkeyErrorCode;
  } catch (error) {
    // The test's client and this file may load @turnkey/http through different entries: no instanceof.
    if (!(error instanceof Error) || error.name !== TurnkeyRequestError.name) throw error;
    return ((error as TurnkeyRequestError).details?.[0] as { turnkeyErrorCode: string }).turnkeyErrorCode;
  }
}

const organization = () => ({ organizationId: t.info.organizationId });

type Oauth2Fields = Parameters<TurnkeyClient['createOauth2Credential']>[0]['parameters'];

function createOauth2Credential(parameters: Oauth2Fields, client: TurnkeyClient = root) {
  return client.createOauth2Credential({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL'), parameters });
}

function updateOauth2Credential(oauth2CredentialId: string, parameters: Oauth2Fields) {
  return root.updateOauth2Credential({
    ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL'),
    parameters: { oauth2CredentialId, ...parameters },
  });
}

function deleteOauth2Credential(oauth2CredentialId: string) {
  return root.deleteOauth2Credential({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL'), parameters: { oauth2CredentialId } });
}

async function oauth2Fields(clientId: string, secret = 'client-secret'): Promise<Oauth2Fields> {
  // Sealed to Turnkey's production TLS fetcher, as an app's code does for the hosted service.
  return { provider: 'OAUTH2_PROVIDER_DISCORD', clientId, encryptedClientSecret: await encryptOauth2ClientSecret(secret) };
}

async function storedOauth2Ids(): Promise<string[]> {
  return (await root.listOauth2Credentials(organization())).oauth2Credentials.map((credential) => credential.oauth2CredentialId);
}

describe('OAuth 2.0 credentials', () => {
  it('are created, read, listed, updated and deleted, the client secret answered exactly as it arrived', async () => {
    const fields = await oauth2Fields('1234567890');
    const created = await createOauth2Credential(fields);
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const oauth2CredentialId = created.activity.result.createOauth2CredentialResult?.oauth2CredentialId ?? '';

    const { oauth2Credential } = await root.getOauth2Credential({ ...organization(), oauth2CredentialId });
    expect(oauth2Credential).toEqual({
      oauth2CredentialId,
      organizationId: t.info.organizationId,
      ...fields,
      createdAt: expect.objectContaining({ seconds: expect.stringMatching(/^\d+$/) }),
      updatedAt: expect.objectContaining({ seconds: expect.stringMatching(/^\d+$/) }),
    });

    const changed = { ...(await oauth2Fields('1234567890', 'rotated secret')), provider: 'OAUTH2_PROVIDER_X' as const };
    t.clock.advance(1000);
    expect((await updateOauth2Credential(oauth2CredentialId, changed)).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const [listed] = (await root.listOauth2Credentials(organization())).oauth2Credentials;
    expect(listed).toMatchObject({ oauth2CredentialId, ...changed });
    expect(Number(listed!.updatedAt.seconds)).toBeGreaterThan(Number(listed!.createdAt.seconds));

    expect((await deleteOauth2Credential(oauth2CredentialId)).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await storedOauth2Ids()).toEqual([]);
    expect(await outcomeOf(root.getOauth2Credential({ ...organization(), oauth2CredentialId }).then(() => ({ activity: { status: 'found' } })))).toBe(
      'NOT_FOUND',
    );
  });

  const envelope = async () => encryptOauth2ClientSecret('client-secret');
  /** Each case answers the request to judge, not yet sent, once it has made what it needs. */
  const cases: [string, () => Promise<() => Promise<Reply>>, string][] = [
    [
      'a client secret that is not hex',
      async () => () => createOauth2Credential({ provider: 'OAUTH2_PROVIDER_X', clientId: 'a', encryptedClientSecret: 'secret in the clear' }),
      'REQUEST_INVALID',
    ],
    [
      'a client secret cut short',
      async () => {
        const sealed = await envelope();
        return () => createOauth2Credential({ provider: 'OAUTH2_PROVIDER_X', clientId: 'a', encryptedClientSecret: sealed.slice(0, -2) });
      },
      'REQUEST_INVALID',
    ],
    [
      'an envelope whose ephemeral key is not on P-256',
      async () => {
        const sealed = await envelope();
        // Bytes 12..77 are the ephemeral key: keep its 04 prefix, zero its coordinates.
        const broken = `${sealed.slice(0, 26)}${'0'.repeat(128)}${sealed.slice(154)}`;
        return () => createOauth2Credential({ provider: 'OAUTH2_PROVIDER_X', clientId: 'a', encryptedClientSecret: broken });
      },
      'REQUEST_INVALID',
    ],
    [
      'a client the organization already stores',
      async () => {
        expect((await createOauth2Credential(await oauth2Fields('same'))).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        const again = await oauth2Fields('same');
        return () => createOauth2Credential(again);
      },
      'ALREADY_EXISTS',
    ],
    [
      'an update of a credential that does not exist',
      async () => {
        const fields = await oauth2Fields('b');
        return () => updateOauth2Credential('11111111-2222-4333-8444-555555555555', fields);
      },
      'NOT_FOUND',
    ],
    ['a deletion of a credential that does not exist', async () => () => deleteOauth2Credential('11111111-2222-4333-8444-555555555555'), 'NOT_FOUND'],
    [
      'a user no policy allows',
      async () => {
        const stranger = await t.addUser({ name: 'stranger' });
        const fields = await oauth2Fields('c');
        return () => createOauth2Credential(fields, t.client(stranger.key));
      },
      'REQUEST_NOT_AUTHORIZED',
    ],
    [
      'a user an allow policy admits but a deny policy names',
      async () => {
        const operator = await t.addUser({ name: 'operator' });
        for (const [effect, condition] of [
          ['EFFECT_ALLOW', "activity.resource == 'OAUTH2_CREDENTIAL'"],
          ['EFFECT_DENY', "activity.resource == 'OAUTH2_CREDENTIAL' && activity.action == 'CREATE'"],
        ] as const) {
          const { activity } = await root.createPolicy({
            ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
            parameters: { policyName: condition, effect, condition, consensus: `approvers.any(user, user.id == '${operator.userId}')`, notes: '' },
          });
          expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        }
        const fields = await oauth2Fields('d');
        return () => createOauth2Credential(fields, t.client(operator.key));
      },
      'REQUEST_NOT_AUTHORIZED',
    ],
  ];

  it.each(cases)('refuses %s, storing nothing', async (_name, prepare, expected) => {
    const request = await prepare();
    const before = await storedOauth2Ids();
    expect(await outcomeOf(request())).toBe(expected);
    expect(await storedOauth2Ids()).toEqual(before);
  });

  it('waits for the root quorum’s second vote before storing anything', async () => {
    const second = await t.addUser({ name: 'second approver' });
    await t.setRootQuorum(2, [t.info.rootUserId, second.userId]);
    const proposed = await createOauth2Credential(await oauth2Fields('needs two'));
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(await storedOauth2Ids()).toEqual([]);
    const approved = await t.client(second.key).approveActivity({
      ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'),
      parameters: { fingerprint: proposed.activity.fingerprint },
    });
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await storedOauth2Ids()).toEqual([approved.activity.result.createOauth2CredentialResult?.oauth2CredentialId]);
  });
});

/** The same text with its last base58 character changed, which its checksum then refuses. */
const flipLastCharacter = (text: string) => `${text.slice(0, -1)}${text.endsWith('2') ? '3' : '2'}`;

describe('fiat on-ramp credentials', () => {
  const list = async () => (await root.listFiatOnRampCredentials(organization())).fiatOnRampCredentials;

  it('are created, listed, updated and deleted, the sealed keys answered exactly as they arrived', async () => {
    const fields = {
      onrampProvider: 'FIAT_ON_RAMP_PROVIDER_COINBASE' as const,
      projectId: 'project-1',
      publishableApiKey: 'pk_test_1',
      encryptedSecretApiKey: encryptOnRampSecret('sk_test_1'),
      encryptedPrivateApiKey: encryptOnRampSecret('private key'),
    };
    const created = await root.createFiatOnRampCredential({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL'),
      parameters: { ...fields, sandboxMode: true },
    });
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const fiatOnrampCredentialId = created.activity.result.createFiatOnRampCredentialResult?.fiatOnRampCredentialId ?? '';
    expect(await list()).toEqual([
      expect.objectContaining({ fiatOnrampCredentialId, organizationId: t.info.organizationId, ...fields, sandboxMode: true }),
    ]);

    const changed = {
      onrampProvider: 'FIAT_ON_RAMP_PROVIDER_MOONPAY' as const,
      publishableApiKey: 'pk_live_2',
      encryptedSecretApiKey: encryptOnRampSecret('sk_live_2'),
    };
    const updated = await root.updateFiatOnRampCredential({
      ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL'),
      parameters: { fiatOnrampCredentialId, ...changed },
    });
    expect(updated.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const [listed] = await list();
    expect(listed).toMatchObject({ fiatOnrampCredentialId, ...changed, sandboxMode: true });
    expect(listed).not.toHaveProperty('projectId');
    expect(listed).not.toHaveProperty('encryptedPrivateApiKey');

    const deleted = await root.deleteFiatOnRampCredential({
      ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL'),
      parameters: { fiatOnrampCredentialId },
    });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await list()).toEqual([]);
  });

  it.each([
    ['a secret key in the clear', { encryptedSecretApiKey: 'sk_live_in_the_clear' }],
    ['a private key whose checksum fails', { encryptedPrivateApiKey: flipLastCharacter(encryptOnRampSecret('private')) }],
    ['an empty publishable key', { publishableApiKey: ' ' }],
  ])('refuses %s, storing nothing', async (_name, change) => {
    const request = root.createFiatOnRampCredential({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL'),
      parameters: {
        onrampProvider: 'FIAT_ON_RAMP_PROVIDER_MOONPAY',
        publishableApiKey: 'pk',
        encryptedSecretApiKey: encryptOnRampSecret('sk'),
        ...change,
      },
    });
    expect(await outcomeOf(request)).toBe('REQUEST_INVALID');
    expect(await list()).toEqual([]);
  });
});
