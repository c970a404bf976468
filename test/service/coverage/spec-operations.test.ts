/**
 * Spec operations and options the other end-to-end tests leave out, driven by Turnkey's official `@turnkey/http`
 * client: delete_private_keys (docs/service.md#activity-types), list_verified_suborgs (docs/service.md#operations),
 * every optional signup_v2 field including its wallet, otp_login_v2 with an explicit organizationId
 * (docs/service.md#auth-proxy), and oauth_login's default session lifetime and invalidateExisting
 * (docs/service.md#activity-types, docs/service.md#limits). The proxy is called by plain fetch exactly as
 * docs/service.md#auth-proxy shows.
 */
import { decryptExportBundle, generateP256KeyPair } from '@turnkey/crypto';
import { TurnkeyClient, TurnkeyRequestError } from '@turnkey/http';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSessionJwt } from '../../../src/shared/crypto/tokens';
import { GrpcCode } from '../../../src/shared/errors';
import { createTestIssuer, sessionNonce, TEST_ISSUER as ISSUER, type TestIssuer } from '../../support/test-issuer';
import { clientSignature, newKey, startTestService, type TestKey, type TestService, tokenIdOf } from '../../support/service';

const AUDIENCE = 'quorumkey-coverage';
let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await createTestIssuer(AUDIENCE);
});

let t: TestService;
let client: TurnkeyClient;
beforeEach(async () => {
  t = await startTestService({ oidcIssuers: [issuer.trusted] });
  client = t.client(t.rootKey);
});
afterEach(() => t.close());

/** Plain fetch with the headers docs/service.md#auth-proxy lists. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
async function proxyCall(name: string, body: unknown): Promise<{ status: number; body: any }> {
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
    proof.clientSignature = await clientSignature(tokenKey, {
      signupV2: { apiKeys, email },
      tokenId: tokenIdOf(verificationToken),
      type: 'USAGE_TYPE_SIGNUP',
    });
  }
  const reply = await proxyCall('signup_v2', { userEmail: email, apiKeys, authenticators: [], oauthProviders: [], ...proof });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toMatchObject({ organizationId: expect.any(String), userId: expect.any(String) });
  expect(reply.body.wallet).toBeUndefined();
  return reply.body.organizationId as string;
}

describe('delete_private_keys through @turnkey/http', () => {
  it('removes exported keys at once and unexported ones only with deleteWithoutExport, echoing the intent', async () => {
    const privateKeys = ['exported', 'never exported'].map((privateKeyName) => ({
      privateKeyName,
      curve: 'CURVE_SECP256K1' as const,
      addressFormats: ['ADDRESS_FORMAT_ETHEREUM' as const],
      privateKeyTags: [],
    }));
    const created = await client.createPrivateKeys({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'), parameters: { privateKeys } });
    const [exportedId, keptId] = created.activity.result.createPrivateKeysResultV2!.privateKeys.map((key) => key.privateKeyId!);
    await client.exportPrivateKey({
      ...t.nextEnvelope('ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'),
      parameters: { privateKeyId: exportedId!, targetPublicKey: generateP256KeyPair().publicKeyUncompressed },
    });

    const refused = client.deletePrivateKeys({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS'), parameters: { privateKeyIds: [keptId!] } });
    expect(await refusalOf(refused)).toEqual([GrpcCode.FAILED_PRECONDITION, 'NOT_EXPORTED']);

    const deleted = await client.deletePrivateKeys({
      ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS'),
      parameters: { privateKeyIds: [exportedId!] },
    });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(deleted.activity.intent.deletePrivateKeysIntent).toEqual({ privateKeyIds: [exportedId] });
    expect(deleted.activity.result.deletePrivateKeysResult).toEqual({ privateKeyIds: [exportedId] });

    const forced = await client.deletePrivateKeys({
      ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS'),
      parameters: { privateKeyIds: [keptId!], deleteWithoutExport: true },
    });
    expect(forced.activity.intent.deletePrivateKeysIntent).toEqual({ privateKeyIds: [keptId], deleteWithoutExport: true });
    expect(forced.activity.result.deletePrivateKeysResult).toEqual({ privateKeyIds: [keptId] });

    const { privateKeys: left } = await client.getPrivateKeys({ organizationId: t.info.organizationId });
    expect(left).toEqual([]);
    expect(await refusalOf(client.getPrivateKey({ organizationId: t.info.organizationId, privateKeyId: keptId! }))).toEqual([
      GrpcCode.NOT_FOUND,
      'NOT_FOUND',
    ]);
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
  it('answers 10 sub-organizations per page by default and accepts limits from 1 to 100 (docs/service.md#limits)', async () => {
    const verified: string[] = [];
    for (let index = 0; index < 11; index++) verified.push(await signup(`member${index}@example.com`, true));
    const page = async (paginationOptions?: Record<string, string>) =>
      (
        await client.getVerifiedSubOrgIds({
          organizationId: t.info.organizationId,
          ...(paginationOptions === undefined ? {} : { paginationOptions }),
        })
      ).organizationIds;
    expect(await page()).toEqual(verified.slice(0, 10));
    expect(await page({ after: verified[9]! })).toEqual([verified[10]]);
    expect(await page({ limit: '100' })).toEqual(verified);
    expect(await refusalOf(page({ limit: '0' }))).toEqual([GrpcCode.INVALID_ARGUMENT, 'REQUEST_INVALID']);
  });
});

describe('signup_v2 with every optional field', () => {
  it('creates the named organization, user, tag, phone number and wallet, which its own API key then reads and exports', async () => {
    const apiKey = newKey();
    const ethereum = {
      curve: 'CURVE_SECP256K1',
      pathFormat: 'PATH_FORMAT_BIP32',
      path: "m/44'/60'/0'/0/0",
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
      name: 'eth',
    };
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
    const { organizationId, userId, wallet } = reply.body as {
      organizationId: string;
      userId: string;
      wallet: { walletId: string; addresses: string[] };
    };
    expect(wallet).toEqual({ walletId: expect.any(String), addresses: [expect.stringMatching(/^0x[0-9a-fA-F]{40}$/)] });

    const own = t.client(apiKey);
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

const whoamiStatus = async (organizationId: string, key: TestKey) => (await t.post('/public/v1/query/whoami', { organizationId }, { key })).status;

describe('otp_login_v2 with organizationId', () => {
  it('logs in to the named sub-organization, and refuses an organization the contact did not sign up in', async () => {
    const organizationId = await signup('erin@example.com', true);
    const login = async (targetOrganizationId: string) => {
      const tokenKey = newKey();
      const sessionKey = newKey();
      const verificationToken = await t.verifyContact('erin@example.com', tokenKey);
      const signature = await clientSignature(tokenKey, {
        login: { publicKey: sessionKey.publicKey },
        tokenId: tokenIdOf(verificationToken),
        type: 'USAGE_TYPE_LOGIN',
      });
      const reply = await proxyCall('otp_login_v2', {
        verificationToken,
        publicKey: sessionKey.publicKey,
        clientSignature: signature,
        organizationId: targetOrganizationId,
      });
      return { reply, sessionKey };
    };

    const { reply, sessionKey } = await login(organizationId);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(parseSessionJwt(reply.body.session as string)).toMatchObject({ organization_id: organizationId, public_key: sessionKey.publicKey });
    expect(await whoamiStatus(organizationId, sessionKey)).toBe(200);

    const elsewhere = await login(t.info.organizationId);
    expect([elsewhere.reply.status, elsewhere.reply.body.details[0].turnkeyErrorCode]).toEqual([404, 'NOT_FOUND']);
    expect(await whoamiStatus(t.info.organizationId, elsewhere.sessionKey)).toBe(401);
  });
});

describe('oauth_login through @turnkey/http', () => {
  function idToken(subject: string, sessionPublicKey: string): Promise<string> {
    return issuer.idToken({ sub: subject, nonce: sessionNonce(sessionPublicKey), nowMs: t.clock.now() });
  }

  it('gives a 15-minute session when expirationSeconds is omitted, and invalidateExisting revokes the earlier ones', async () => {
    const apiKey = newKey();
    const signedUp = await proxyCall('signup_v2', {
      userName: 'Frank',
      apiKeys: [{ apiKeyName: 'laptop', publicKey: apiKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
      authenticators: [],
      oauthProviders: [{ providerName: 'issuer', oidcClaims: { iss: ISSUER, sub: 'frank', aud: AUDIENCE } }],
    });
    expect(signedUp.status, JSON.stringify(signedUp.body)).toBe(200);
    const { organizationId, userId } = signedUp.body as { organizationId: string; userId: string };
    const login = async (sessionKey: TestKey, extra: { invalidateExisting?: boolean } = {}) => {
      t.clock.advance(1);
      const { activity } = await t.client(apiKey).oauthLogin({
        type: 'ACTIVITY_TYPE_OAUTH_LOGIN',
        timestampMs: String(t.clock.now()),
        organizationId,
        parameters: { oidcToken: await idToken('frank', sessionKey.publicKey), publicKey: sessionKey.publicKey, ...extra },
      });
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      return parseSessionJwt(activity.result.oauthLoginResult!.session);
    };

    const first = newKey();
    const claims = await login(first);
    expect(claims).toMatchObject({ user_id: userId, organization_id: organizationId, public_key: first.publicKey });
    expect(claims.exp).toBe(Math.floor(t.clock.now() / 1000) + 15 * 60);

    const second = newKey();
    await login(second);
    expect([await whoamiStatus(organizationId, first), await whoamiStatus(organizationId, second)]).toEqual([200, 200]);
    const third = newKey();
    await login(third, { invalidateExisting: true });
    expect([
      await whoamiStatus(organizationId, first),
      await whoamiStatus(organizationId, second),
      await whoamiStatus(organizationId, third),
    ]).toEqual([401, 401, 200]);

    t.clock.advance(15 * 60 * 1000 + 1000);
    expect(await whoamiStatus(organizationId, third)).toBe(401);
  });
});
