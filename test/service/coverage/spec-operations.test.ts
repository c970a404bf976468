/**
 * Spec operations and options the other end-to-end tests leave out, driven by Turnkey's official `@turnkey/http`
 * client: delete_private_keys (spec §4.3), list_verified_suborgs (spec §4.2) and every optional signup_v2 field
 * including its wallet (spec §4.1), with the proxy called by plain fetch exactly as spec §4.1 shows the calls.
 */
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { decryptExportBundle, generateP256KeyPair } from '@turnkey/crypto';
import { TurnkeyClient, TurnkeyRequestError } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GrpcCode } from '../../../src/shared/errors';
import { newKey, type TestKey } from '../helpers';
import { clientSignature, startProxyTestService, tokenIdOf, type ProxyTestService } from '../proxy/support';

let t: ProxyTestService;
let client: TurnkeyClient;
beforeEach(async () => {
  t = await startProxyTestService();
  client = new TurnkeyClient({ baseUrl: t.info.baseUrl }, new ApiKeyStamper({ apiPublicKey: t.rootKey.publicKey, apiPrivateKey: t.rootKey.privateKey }));
});
afterEach(() => t.close());

/** A fresh timestamp per request: identical bodies would be one idempotent activity. */
function envelope<T extends string>(type: T) {
  t.clock.advance(1);
  return { type, timestampMs: String(t.clock.now()), organizationId: t.info.organizationId };
}

/** Plain fetch with the headers spec §4.1 lists. */
async function proxyCall(name: string, body: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted field by field
  const response = await fetch(`${t.info.authProxyUrl}/v1/${name}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Proxy-Config-Id': t.info.authProxyConfigId },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The gRPC code and turnkeyErrorCode of a call Turnkey's client must reject. */
async function refusalOf(call: Promise<unknown>): Promise<[number, unknown]> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TurnkeyRequestError);
  const { code, details } = error as TurnkeyRequestError;
  return [code, (details?.[0] as { turnkeyErrorCode?: unknown } | undefined)?.turnkeyErrorCode];
}

async function signup(email: string, verified: boolean): Promise<string> {
  const apiKeys = [{ apiKeyName: 'laptop', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }];
  const proof: Record<string, unknown> = {};
  if (verified) {
    const tokenKey: TestKey = newKey();
    const verificationToken = await t.verifyContact(email, tokenKey);
    proof.verificationToken = verificationToken;
    proof.clientSignature = await clientSignature(tokenKey, { signupV2: { apiKeys, email }, tokenId: tokenIdOf(verificationToken), type: 'USAGE_TYPE_SIGNUP' });
  }
  const reply = await proxyCall('signup_v2', { userEmail: email, apiKeys, authenticators: [], oauthProviders: [], ...proof });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toMatchObject({ organizationId: expect.any(String), userId: expect.any(String) });
  expect(reply.body.wallet).toBeUndefined();
  return reply.body.organizationId as string;
}

describe('delete_private_keys through @turnkey/http', () => {
  it('removes exported keys at once and unexported ones only with deleteWithoutExport, echoing the intent', async () => {
    const privateKeys = ['exported', 'never exported'].map((privateKeyName) => ({ privateKeyName, curve: 'CURVE_SECP256K1' as const, addressFormats: ['ADDRESS_FORMAT_ETHEREUM' as const], privateKeyTags: [] }));
    const created = await client.createPrivateKeys({ ...envelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'), parameters: { privateKeys } });
    const [exportedId, keptId] = created.activity.result.createPrivateKeysResultV2!.privateKeys.map((key) => key.privateKeyId!);
    await client.exportPrivateKey({
      ...envelope('ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'),
      parameters: { privateKeyId: exportedId!, targetPublicKey: generateP256KeyPair().publicKeyUncompressed },
    });

    const refused = client.deletePrivateKeys({ ...envelope('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS'), parameters: { privateKeyIds: [keptId!] } });
    expect(await refusalOf(refused)).toEqual([GrpcCode.FAILED_PRECONDITION, 'NOT_EXPORTED']);

    const deleted = await client.deletePrivateKeys({ ...envelope('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS'), parameters: { privateKeyIds: [exportedId!] } });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(deleted.activity.intent.deletePrivateKeysIntent).toEqual({ privateKeyIds: [exportedId] });
    expect(deleted.activity.result.deletePrivateKeysResult).toEqual({ privateKeyIds: [exportedId] });

    const forced = await client.deletePrivateKeys({
      ...envelope('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS'),
      parameters: { privateKeyIds: [keptId!], deleteWithoutExport: true },
    });
    expect(forced.activity.intent.deletePrivateKeysIntent).toEqual({ privateKeyIds: [keptId], deleteWithoutExport: true });
    expect(forced.activity.result.deletePrivateKeysResult).toEqual({ privateKeyIds: [keptId] });

    const { privateKeys: left } = await client.getPrivateKeys({ organizationId: t.info.organizationId });
    expect(left).toEqual([]);
    expect(await refusalOf(client.getPrivateKey({ organizationId: t.info.organizationId, privateKeyId: keptId! }))).toEqual([GrpcCode.NOT_FOUND, 'NOT_FOUND']);
  });
});

describe('list_verified_suborgs through @turnkey/http', () => {
  it('lists only sub-organizations whose contact was verified, filtered by email and paged with cursors', async () => {
    const first = await signup('first@example.com', true);
    const second = await signup('second@example.com', true);
    await signup('unverified@example.com', false);

    const list = (extra: Record<string, unknown> = {}) => client.getVerifiedSubOrgIds({ organizationId: t.info.organizationId, ...extra });
    expect((await list()).organizationIds).toEqual([first, second]);
    expect((await list({ filterType: 'EMAIL', filterValue: 'second@example.com' })).organizationIds).toEqual([second]);
    expect((await list({ filterType: 'EMAIL', filterValue: 'unverified@example.com' })).organizationIds).toEqual([]);
    expect((await list({ paginationOptions: { limit: '1' } })).organizationIds).toEqual([first]);
    expect((await list({ paginationOptions: { after: first } })).organizationIds).toEqual([second]);
    expect(await refusalOf(list({ paginationOptions: { limit: '101' } }))).toEqual([GrpcCode.INVALID_ARGUMENT, 'REQUEST_INVALID']);
  });
});

describe('signup_v2 with every optional field', () => {
  it('creates the named organization, user, tag, phone number and wallet, which its own API key then reads and exports', async () => {
    const apiKey = newKey();
    const ethereum = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM', name: 'eth' };
    const reply = await proxyCall('signup_v2', {
      userEmail: 'dana@example.com',
      userPhoneNumber: '+15550001111',
      userTag: 'founders',
      userName: 'Dana',
      organizationName: 'Dana Labs',
      apiKeys: [{ apiKeyName: 'laptop', publicKey: apiKey.publicKey, curveType: 'API_KEY_CURVE_P256', expirationSeconds: '3600' }],
      authenticators: [],
      oauthProviders: [],
      wallet: { walletName: 'main', accounts: [ethereum], mnemonicLength: 24 },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { organizationId, userId, wallet } = reply.body as { organizationId: string; userId: string; wallet: { walletId: string; addresses: string[] } };
    expect(wallet).toEqual({ walletId: expect.any(String), addresses: [expect.stringMatching(/^0x[0-9a-fA-F]{40}$/)] });

    const own = new TurnkeyClient({ baseUrl: t.info.baseUrl }, new ApiKeyStamper({ apiPublicKey: apiKey.publicKey, apiPrivateKey: apiKey.privateKey }));
    expect(await own.getWhoami({ organizationId })).toMatchObject({ organizationId, organizationName: 'Dana Labs', userId, username: 'Dana' });
    const { user } = await own.getUser({ organizationId, userId });
    expect(user).toMatchObject({ userName: 'Dana', userEmail: 'dana@example.com', userPhoneNumber: '+15550001111' });
    expect(user.apiKeys.map((key) => [key.apiKeyName, key.expirationSeconds])).toEqual([['laptop', '3600']]);
    const { userTags } = await own.listUserTags({ organizationId });
    expect(userTags.map((tag) => [tag.tagName, tag.tagType])).toEqual([['founders', 'TAG_TYPE_USER']]);
    expect(user.userTags).toEqual([userTags[0]!.tagId]);

    const { accounts } = await own.getWalletAccounts({ organizationId, walletId: wallet.walletId });
    expect(accounts.map((account) => account.address)).toEqual(wallet.addresses);
    const target = generateP256KeyPair();
    const exported = await own.exportWallet({
      type: 'ACTIVITY_TYPE_EXPORT_WALLET',
      timestampMs: String(t.clock.now()),
      organizationId,
      parameters: { walletId: wallet.walletId, targetPublicKey: target.publicKeyUncompressed },
    });
    const mnemonic = await decryptExportBundle({
      exportBundle: exported.activity.result.exportWalletResult!.exportBundle,
      embeddedKey: target.privateKey,
      organizationId,
      returnMnemonic: true,
      dangerouslyOverrideSignerPublicKey: t.info.enclaveSignerPublicKey,
    });
    expect(mnemonic.split(' ')).toHaveLength(24);
  });

  it('refuses a wallet mnemonicLength outside 12, 15, 18, 21, 24', async () => {
    const reply = await proxyCall('signup_v2', {
      apiKeys: [{ apiKeyName: 'laptop', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }],
      authenticators: [],
      oauthProviders: [],
      wallet: { walletName: 'odd', accounts: [], mnemonicLength: 13 },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body.message).toMatch(/mnemonicLength/);
  });
});
