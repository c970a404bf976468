/**
 * `@turnkey/sdk-server`, unchanged, against the local service: its `Turnkey` class and `apiClient()` pointed at the
 * service's baseUrl with the root API key. Its activity poller, result flattening and error type are Turnkey's own,
 * so what it accepts here is what a server-side integrator gets.
 */
import { decryptExportBundle, generateP256KeyPair } from '@turnkey/crypto';
import { Turnkey, TurnkeyRequestError, type TurnkeyApiClient } from '@turnkey/sdk-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GrpcCode } from '../../src/shared/errors';
import { addressFor } from '../../src/service/enclave/addresses';
import { deriveKey } from '../../src/service/enclave/derivation';
import { mnemonicToSeed } from '../../src/service/enclave/mnemonic';
import { copySeedFixture, type SeedCopy } from '../support/seed';
import { startTestService, type TestKey, type TestService } from '../support/service';

const ETHEREUM = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
/** The ids test/fixtures/seeds/two-of-two.yaml fixes. */
const SEEDED = {
  organizationId: '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  alice: '11111111-2222-4333-8444-555555555555',
  bob: '66666666-7777-4888-8999-aaaaaaaaaaaa',
  wallet: '0a1b2c3d-0000-4000-8000-00000000a11e',
  privateKey: '0a1b2c3d-0000-4000-8000-0000000000ce',
  policy: '0a1b2c3d-0000-4000-8000-0000000000b0',
  subOrganization: '5e5e5e5e-0000-4000-8000-000000000001',
};
/** Short polling so a CONSENSUS_NEEDED activity comes back within a test, after the poller gives up. */
const POLLER = { intervalMs: 20, numRetries: 2 };

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

/** The SDK as an integrator constructs it; `key` defaults to the service's root API key. */
function sdkClient(key: TestKey = service.rootKey): TurnkeyApiClient {
  const turnkey = new Turnkey({
    apiBaseUrl: service.info.baseUrl,
    apiPublicKey: key.publicKey,
    apiPrivateKey: key.privateKey,
    defaultOrganizationId: service.info.organizationId,
    activityPoller: POLLER,
  });
  return turnkey.apiClient();
}

describe('@turnkey/sdk-server against the local service', () => {
  it('whoami names the root user of the default organization', async () => {
    const whoami = await sdkClient().getWhoami();
    expect(whoami).toMatchObject({ organizationId: service.info.organizationId, userId: service.info.rootUserId });
    expect(typeof whoami.organizationName).toBe('string');
  });

  it('createWallet answers the flattened result, and getWalletAccounts lists the same addresses', async () => {
    const client = sdkClient();
    const created = await client.createWallet({ walletName: 'sdk-server wallet', accounts: [ETHEREUM, SOLANA] });
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_WALLET');
    expect(created.walletId).toBe(created.activity.result.createWalletResult?.walletId);
    expect(created.addresses).toHaveLength(2);

    const { accounts } = await client.getWalletAccounts({ walletId: created.walletId });
    expect(accounts.map((account) => [account.path, account.addressFormat, account.address])).toEqual([
      [ETHEREUM.path, ETHEREUM.addressFormat, created.addresses[0]],
      [SOLANA.path, SOLANA.addressFormat, created.addresses[1]],
    ]);
    expect(accounts.every((account) => account.walletId === created.walletId && account.organizationId === service.info.organizationId)).toBe(true);
  });

  it('createPolicy, getPolicy and listActivities agree on the policy and its activity', async () => {
    const client = sdkClient();
    const condition = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'";
    const created = await client.createPolicy({ policyName: 'sdk-server policy', effect: 'EFFECT_ALLOW', condition, notes: 'made by sdk-server' });
    expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_POLICY_V3');
    expect(created.activity.intent.createPolicyIntentV3).toMatchObject({ policyName: 'sdk-server policy', effect: 'EFFECT_ALLOW', condition });

    const { policy } = await client.getPolicy({ policyId: created.policyId });
    expect(policy).toMatchObject({
      policyId: created.policyId,
      policyName: 'sdk-server policy',
      effect: 'EFFECT_ALLOW',
      condition,
      notes: 'made by sdk-server',
    });
    expect(policy.createdAt).toEqual({ seconds: expect.stringMatching(/^\d+$/), nanos: expect.stringMatching(/^\d+$/) });

    const { activities } = await client.getActivities({ filterByType: ['ACTIVITY_TYPE_CREATE_POLICY_V3'] });
    expect(activities.map((activity) => activity.id)).toContain(created.activity.id);
    expect(activities.every((activity) => activity.type === 'ACTIVITY_TYPE_CREATE_POLICY_V3')).toBe(true);
  });

  it('exportWallet sends a bundle that @turnkey/crypto decrypts, pinned to the service signer, to the wallet mnemonic', async () => {
    const client = sdkClient();
    const created = await client.createWallet({ walletName: 'sdk-server export', accounts: [ETHEREUM, SOLANA] });
    const target = generateP256KeyPair();
    const exported = await client.exportWallet({ walletId: created.walletId, targetPublicKey: target.publicKeyUncompressed });
    expect(exported.walletId).toBe(created.walletId);

    const mnemonic = await decryptExportBundle({
      exportBundle: exported.exportBundle,
      embeddedKey: target.privateKey,
      organizationId: service.info.organizationId,
      returnMnemonic: true,
      dangerouslyOverrideSignerPublicKey: service.info.enclaveSignerPublicKey,
    });
    expect(mnemonic.split(' ')).toHaveLength(12);
    const seed = await mnemonicToSeed(mnemonic);
    const derived = [ETHEREUM, SOLANA].map((account) =>
      addressFor({
        curve: account.curve,
        publicKey: deriveKey({ seed, curve: account.curve, path: account.path }).publicKey,
        format: account.addressFormat,
      }),
    );
    expect(derived).toEqual(created.addresses);

    // The same bundle checked against another signer key is refused by Turnkey's verifier.
    await expect(
      decryptExportBundle({
        exportBundle: exported.exportBundle,
        embeddedKey: target.privateKey,
        organizationId: service.info.organizationId,
        returnMnemonic: true,
        dangerouslyOverrideSignerPublicKey: generateP256KeyPair().publicKeyUncompressed,
      }),
    ).rejects.toThrow();
  });

  it('maps a service error to TurnkeyRequestError with the gRPC code, message and turnkeyErrorCode', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const error = await sdkClient()
      .getPolicy({ policyId: missing })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(TurnkeyRequestError);
    const requestError = error as TurnkeyRequestError;
    expect(requestError.code).toBe(GrpcCode.NOT_FOUND);
    expect(requestError.message).toMatch(new RegExp(`^Turnkey error ${GrpcCode.NOT_FOUND}: .*${missing}`));
    expect(requestError.details).toEqual([expect.objectContaining({ turnkeyErrorCode: 'NOT_FOUND' })]);

    const stranger = { curve: 'p256' as const, ...generateP256KeyPair() };
    const unknownKey = await sdkClient({ curve: stranger.curve, publicKey: stranger.publicKey, privateKey: stranger.privateKey })
      .getWhoami()
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(unknownKey).toBeInstanceOf(TurnkeyRequestError);
    expect((unknownKey as TurnkeyRequestError).code).toBe(GrpcCode.UNAUTHENTICATED);
  });
});

describe('@turnkey/sdk-server against a seeded Sandbox (test/fixtures/seeds/two-of-two.yaml)', () => {
  let seeded: TestService;
  let seedCopy: SeedCopy;
  beforeAll(async () => {
    seedCopy = copySeedFixture('two-of-two.yaml');
    seeded = await startTestService({ seed: { file: seedCopy, rootKeyFile: 'alice.key.json' } });
  });
  afterAll(async () => {
    await seeded.close();
    seedCopy.remove();
  });
  const seededClient = (key: TestKey, organizationId = SEEDED.organizationId) =>
    new Turnkey({
      apiBaseUrl: seeded.info.baseUrl,
      apiPublicKey: key.publicKey,
      apiPrivateKey: key.privateKey,
      defaultOrganizationId: organizationId,
      activityPoller: POLLER,
    }).apiClient();

  it('starts with the organizations, users, wallet, key and policy of the file, under its ids', async () => {
    const alice = seededClient(seedCopy.key('alice.key.json'));
    expect(seeded.info).toMatchObject({ organizationId: SEEDED.organizationId, rootUserId: SEEDED.alice });
    expect(await alice.getWhoami()).toMatchObject({
      organizationId: SEEDED.organizationId,
      organizationName: 'Compat organization',
      userId: SEEDED.alice,
      username: 'Alice',
    });
    const { wallets } = await alice.getWallets({});
    expect(wallets.map((wallet) => [wallet.walletId, wallet.walletName])).toEqual([[SEEDED.wallet, 'Treasury']]);
    const { accounts } = await alice.getWalletAccounts({ walletId: SEEDED.wallet });
    expect(accounts.map((account) => account.addressFormat)).toEqual(['ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_SOLANA']);
    const { privateKey } = await alice.getPrivateKey({ privateKeyId: SEEDED.privateKey });
    expect(privateKey).toMatchObject({ privateKeyName: 'Hot key', curve: 'CURVE_SECP256K1' });
    const { policy } = await alice.getPolicy({ policyId: SEEDED.policy });
    expect(policy).toMatchObject({ policyName: 'Bob signs alone', effect: 'EFFECT_ALLOW', notes: 'seeded' });
    const { organizationIds } = await alice.getSubOrgIds({});
    expect(organizationIds).toEqual([SEEDED.subOrganization]);
    const carol = seededClient(seedCopy.key('carol.key.json'), SEEDED.subOrganization);
    expect(await carol.getWhoami()).toMatchObject({ organizationId: SEEDED.subOrganization, username: 'Carol' });
  });

  it("the poller returns the CONSENSUS_NEEDED activity, and the second root user's approveActivity completes it", async () => {
    const alice = seedCopy.key('alice.key.json');
    const bob = seedCopy.key('bob.key.json');
    // sdk-server's client calls the global fetch; counting its get_activity requests shows the poller ran.
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      const proposed = await seededClient(alice).createPolicy({ policyName: 'needs both', effect: 'EFFECT_ALLOW', notes: '' });
      const polls = fetchSpy.mock.calls.filter(([url]) =>
        (url instanceof Request ? url.url : url.toString()).endsWith('/public/v1/query/get_activity'),
      );
      expect(polls.length).toBeGreaterThan(POLLER.numRetries);
      expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
      expect(proposed.activity.result).toEqual({});
      expect(proposed.policyId).toBeUndefined();
      expect([proposed.activity.canApprove, proposed.activity.canReject]).toEqual([true, true]);
      expect(proposed.activity.votes.map((vote) => vote.userId)).toEqual([SEEDED.alice]);

      const approved = await seededClient(bob).approveActivity({ fingerprint: proposed.activity.fingerprint });
      expect(approved.activity.id).toBe(proposed.activity.id);
      expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(approved.activity.votes.map((vote) => vote.userId)).toEqual([SEEDED.alice, SEEDED.bob]);
      const policyId = approved.activity.result.createPolicyResult?.policyId;
      expect(policyId).toEqual(expect.any(String));

      const { policy } = await seededClient(alice).getPolicy({ policyId: policyId! });
      expect(policy.policyName).toBe('needs both');
      const { activity } = await seededClient(alice).getActivity({ activityId: proposed.activity.id });
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    } finally {
      fetchSpy.mockRestore();
    }
  });

  it('the seeded policy lets Bob alone sign with the seeded private key', async () => {
    const signed = await seededClient(seedCopy.key('bob.key.json')).signRawPayload({
      signWith: SEEDED.privateKey,
      payload: '0x' + '11'.repeat(32),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(signed.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(signed.r).toMatch(/^[0-9a-f]{64}$/i);
  });
});
