/**
 * Older releases of Turnkey's clients, unchanged, against the local service: `@turnkey/http` 2.x and
 * `@turnkey/sdk-server` 1.x, 4.x and 5.x (aliased devDependencies). They send their JSON as a string (so without
 * `application/json`) and still submit superseded activity versions; the service answers them as the hosted one does.
 */
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { decryptExportBundle, generateP256KeyPair } from '@turnkey/crypto';
import { TurnkeyClient as TurnkeyClientV2 } from 'http-v2';
import { Turnkey as TurnkeyV1 } from 'sdk-server-v1';
import { Turnkey as TurnkeyV4 } from 'sdk-server-v4';
import { Turnkey as TurnkeyV5 } from 'sdk-server-v5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, startTestService, type TestService } from '../support/service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const POLLER = { intervalMs: 20, numRetries: 2 };

function sdkConfig() {
  return {
    apiBaseUrl: service.info.baseUrl,
    apiPublicKey: service.rootKey.publicKey,
    apiPrivateKey: service.rootKey.privateKey,
    defaultOrganizationId: service.info.organizationId,
    activityPoller: POLLER,
  };
}

const ETHEREUM = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

const clients = {
  'sdk-server 1.x': () => new TurnkeyV1(sdkConfig()).apiClient(),
  'sdk-server 4.x': () => new TurnkeyV4(sdkConfig()).apiClient(),
  'sdk-server 5.x': () => new TurnkeyV5(sdkConfig()).apiClient(),
};

function httpV2(): TurnkeyClientV2 {
  return new TurnkeyClientV2(
    { baseUrl: service.info.baseUrl },
    new ApiKeyStamper({ apiPublicKey: service.rootKey.publicKey, apiPrivateKey: service.rootKey.privateKey }),
  );
}

describe('whoami from every older release', () => {
  it.each(Object.entries(clients))('%s', async (_release, client) => {
    const whoami = await client().getWhoami();
    expect(whoami).toMatchObject({ organizationId: service.info.organizationId, userId: service.info.rootUserId });
  });

  it('@turnkey/http 2.x', async () => {
    const whoami = await httpV2().getWhoami({ organizationId: service.info.organizationId });
    expect(whoami).toMatchObject({ organizationId: service.info.organizationId, userId: service.info.rootUserId });
  });
});

describe.each(Object.entries(clients))('%s, unchanged', (release, client) => {
  it('creates a wallet and exports it as a bundle @turnkey/crypto decrypts', async () => {
    const created = await client().createWallet({ walletName: `${release} wallet`, accounts: [ETHEREUM] });
    expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_WALLET');
    expect(created.addresses).toHaveLength(1);
    const target = generateP256KeyPair();
    const exported = await client().exportWallet({ walletId: created.walletId, targetPublicKey: target.publicKeyUncompressed });
    const mnemonic = await decryptExportBundle({
      exportBundle: exported.exportBundle,
      embeddedKey: target.privateKey,
      organizationId: service.info.organizationId,
      returnMnemonic: true,
      dangerouslyOverrideSignerPublicKey: service.info.enclaveSignerPublicKey,
    });
    expect(mnemonic.split(' ')).toHaveLength(12);
  });

  it('creates users with the version it sends, and the new user signs in with the key it was given', async () => {
    const key = newKey('p256');
    const user = { userName: `${release} user`, authenticators: [], userTags: [] };
    // 1.x sends CREATE_USERS_V2: API keys without a curve (P-256) and no OAuth providers.
    const created =
      release === 'sdk-server 1.x'
        ? await new TurnkeyV1(sdkConfig())
            .apiClient()
            .createUsers({ users: [{ ...user, apiKeys: [{ apiKeyName: 'first key', publicKey: key.publicKey }] }] })
        : await client().createUsers({
            users: [
              { ...user, apiKeys: [{ apiKeyName: 'first key', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' }], oauthProviders: [] },
            ],
          });
    const sent = release === 'sdk-server 1.x' ? 'ACTIVITY_TYPE_CREATE_USERS_V2' : 'ACTIVITY_TYPE_CREATE_USERS_V3';
    expect(created.activity.type).toBe(sent);
    expect(Object.keys(created.activity.intent)).toEqual([sent === 'ACTIVITY_TYPE_CREATE_USERS_V2' ? 'createUsersIntentV2' : 'createUsersIntentV3']);
    expect(created.userIds).toHaveLength(1);

    const asNewUser = new TurnkeyV5({ ...sdkConfig(), apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }).apiClient();
    expect(await asNewUser.getWhoami()).toMatchObject({ userId: created.userIds[0], username: `${release} user` });
  });

  it('creates a sub-organization with CREATE_SUB_ORGANIZATION_V7 and its wallet', async () => {
    const rootKey = newKey('p256');
    const created = await client().createSubOrganization({
      subOrganizationName: `${release} sub-organization`,
      rootUsers: [
        {
          userName: 'sub root',
          apiKeys: [{ apiKeyName: 'sub root key', publicKey: rootKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
      wallet: { walletName: 'sub wallet', accounts: [ETHEREUM] },
    });
    expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7');
    expect(created.activity.result).toEqual({
      createSubOrganizationResultV7: expect.objectContaining({ subOrganizationId: created.subOrganizationId }),
    });
    expect(created.wallet?.addresses).toHaveLength(1);
    expect(created.rootUserIds).toHaveLength(1);
  });

  it('creates a policy and updates it with the update version it sends', async () => {
    const condition = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'";
    const created = await client().createPolicy({ policyName: `${release} policy`, effect: 'EFFECT_ALLOW', condition, notes: '' });
    expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_POLICY_V3');
    const updated = await client().updatePolicy({ policyId: created.policyId, policyName: `${release} policy, renamed`, policyNotes: 'renamed' });
    const sent =
      release === 'sdk-server 1.x'
        ? ['ACTIVITY_TYPE_UPDATE_POLICY', 'updatePolicyResult']
        : ['ACTIVITY_TYPE_UPDATE_POLICY_V2', 'updatePolicyResultV2'];
    expect([updated.activity.type, Object.keys(updated.activity.result)]).toEqual([sent[0], [sent[1]]]);
    const { policy } = await client().getPolicy({ policyId: created.policyId });
    expect(policy).toMatchObject({ policyName: `${release} policy, renamed`, notes: 'renamed', condition });
  });
});

describe('@turnkey/http 2.x, unchanged', () => {
  const envelope = <T extends string>(type: T) => ({ type, timestampMs: String(Date.now()), organizationId: service.info.organizationId });

  it('creates a wallet and exports it as a bundle @turnkey/crypto decrypts', async () => {
    const client = httpV2();
    const created = await client.createWallet({
      ...envelope('ACTIVITY_TYPE_CREATE_WALLET'),
      parameters: { walletName: 'http 2.x wallet', accounts: [ETHEREUM] },
    });
    const walletId = created.activity.result.createWalletResult?.walletId ?? '';
    const target = generateP256KeyPair();
    const exported = await client.exportWallet({
      ...envelope('ACTIVITY_TYPE_EXPORT_WALLET'),
      parameters: { walletId, targetPublicKey: target.publicKeyUncompressed },
    });
    const mnemonic = await decryptExportBundle({
      exportBundle: exported.activity.result.exportWalletResult?.exportBundle ?? '',
      embeddedKey: target.privateKey,
      organizationId: service.info.organizationId,
      returnMnemonic: true,
      dangerouslyOverrideSignerPublicKey: service.info.enclaveSignerPublicKey,
    });
    expect(mnemonic.split(' ')).toHaveLength(12);
  });

  it('creates users (V3), a sub-organization (V7) and a policy', async () => {
    const client = httpV2();
    const users = await client.createUsers({
      ...envelope('ACTIVITY_TYPE_CREATE_USERS_V3'),
      parameters: { users: [{ userName: 'http 2.x user', apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] },
    });
    expect([users.activity.status, Object.keys(users.activity.intent)]).toEqual(['ACTIVITY_STATUS_COMPLETED', ['createUsersIntentV3']]);

    const subOrganization = await client.createSubOrganization({
      ...envelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7'),
      parameters: {
        subOrganizationName: 'http 2.x sub-organization',
        rootUsers: [
          {
            userName: 'root',
            apiKeys: [{ apiKeyName: 'k', publicKey: newKey('p256').publicKey, curveType: 'API_KEY_CURVE_P256' }],
            authenticators: [],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
      },
    });
    expect(subOrganization.activity.result.createSubOrganizationResultV7?.subOrganizationId).toEqual(expect.any(String));

    const policy = await client.createPolicy({
      ...envelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
      parameters: { policyName: 'http 2.x policy', effect: 'EFFECT_ALLOW', condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'", notes: '' },
    });
    const policyId = policy.activity.result.createPolicyResult?.policyId ?? '';
    expect((await client.getPolicy({ organizationId: service.info.organizationId, policyId })).policy.policyName).toBe('http 2.x policy');
  });
});
