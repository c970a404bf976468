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
import { startTestService, type TestKey, type TestService } from '../support/service';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
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
    expect(policy).toMatchObject({ policyId: created.policyId, policyName: 'sdk-server policy', effect: 'EFFECT_ALLOW', condition, notes: 'made by sdk-server' });
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
      addressFor({ curve: account.curve, publicKey: deriveKey({ seed, curve: account.curve, path: account.path }).publicKey, format: account.addressFormat }),
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

describe('@turnkey/sdk-server with a 2-of-2 root quorum', () => {
  it("the poller returns the CONSENSUS_NEEDED activity, and the second root user's approveActivity completes it", async () => {
    const second = await service.addUser({ name: 'second approver' });
    await service.setRootQuorum(2, [service.info.rootUserId, second.userId]);
    // sdk-server's client calls the global fetch; counting its get_activity requests shows the poller ran.
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      const proposed = await sdkClient().createPolicy({ policyName: 'needs both', effect: 'EFFECT_ALLOW', notes: '' });
      const polls = fetchSpy.mock.calls.filter(([url]) => (url instanceof Request ? url.url : url.toString()).endsWith('/public/v1/query/get_activity'));
      expect(polls.length).toBeGreaterThan(POLLER.numRetries);
      expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
      expect(proposed.activity.result).toEqual({});
      expect(proposed.policyId).toBeUndefined();
      expect([proposed.activity.canApprove, proposed.activity.canReject]).toEqual([true, true]);
      expect(proposed.activity.votes.map((vote) => vote.userId)).toEqual([service.info.rootUserId]);

      const approved = await sdkClient(second.key).approveActivity({ fingerprint: proposed.activity.fingerprint });
      expect(approved.activity.id).toBe(proposed.activity.id);
      expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(approved.activity.votes.map((vote) => vote.userId)).toEqual([service.info.rootUserId, second.userId]);
      const policyId = approved.activity.result.createPolicyResult?.policyId;
      expect(policyId).toEqual(expect.any(String));

      const { policy } = await sdkClient().getPolicy({ policyId: policyId! });
      expect(policy.policyName).toBe('needs both');
      const { activity } = await sdkClient().getActivity({ activityId: proposed.activity.id });
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    } finally {
      fetchSpy.mockRestore();
      await service.setRootQuorum(1, [service.info.rootUserId]);
    }
  });
});
