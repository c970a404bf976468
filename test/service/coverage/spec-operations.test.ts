/**
 * Spec operations whose other end-to-end tests post hand-built bodies, driven here by Turnkey's official
 * `@turnkey/http` client: delete_private_keys (spec §4.3) and list_verified_suborgs (spec §4.2), the latter over
 * sub-organizations made through the proxy with plain fetch exactly as spec §4.1 shows the calls.
 */
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateP256KeyPair } from '@turnkey/crypto';
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
  expect(reply.body).toEqual({ organizationId: expect.any(String), userId: expect.any(String) });
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
