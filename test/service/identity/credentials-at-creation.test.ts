/**
 * Users and sub-organizations created with passkeys, OAuth providers, a wallet and a verification token, through
 * Turnkey's client; signup_v2 with a wallet through plain fetch. Passkeys are proven by stamping X-Stamp-WebAuthn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityOperations, queryOperations } from '../../../src/shared/api';
import { createSoftAuthenticator, type SoftAuthenticator } from '../../support/soft-authenticator';
import { createTestIssuer, TEST_ISSUER as ISSUER, type TestIssuer } from '../../support/test-issuer';
import { clientSignature, newKey, refusal, type Reply, startTestService, type TestService, tokenIdOf } from '../../support/service';

const AUDIENCE = 'quorumkey-test-client';
const ETHEREUM_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const SOLANA_ACCOUNT = {
  curve: 'CURVE_ED25519',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/501'/0'/0'",
  addressFormat: 'ADDRESS_FORMAT_SOLANA',
} as const;

let t: TestService;
let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await createTestIssuer(AUDIENCE);
  t = await startTestService({ oidcIssuers: [issuer.trusted] });
});
afterAll(() => t.close());

const idToken = (subject: string) => issuer.idToken({ sub: subject, nowMs: t.clock.now() });

const newPasskey = () => createSoftAuthenticator({ rpId: 'localhost', origin: 'http://localhost:3000' });
const registration = (passkey: SoftAuthenticator, authenticatorName = 'laptop') => ({
  authenticatorName,
  challenge: 'Y3JlYXRpb24',
  attestation: passkey.register('Y3JlYXRpb24', 'packed'),
});

/** A query stamped by the passkey (X-Stamp-WebAuthn), as a browser would send it. */
async function queryWithPasskey(passkey: SoftAuthenticator, name: string, request: Record<string, unknown>): Promise<Reply> {
  const body = JSON.stringify(request);
  return t.post(`/public/v1/query/${name}`, body, { unstamped: true, headers: { 'X-Stamp-WebAuthn': passkey.assert(body) } });
}

describe('create_users with credentials', () => {
  it('registers passkeys and OAuth providers (token or claims); the passkey then stamps queries', async () => {
    const passkey = newPasskey();
    const oidcToken = await idToken('subject-users-1');
    const { activity } = await t.client().createUsers(
      t.envelope('ACTIVITY_TYPE_CREATE_USERS_V4', {
        users: [
          {
            userName: 'pat',
            userTags: [],
            apiKeys: [],
            authenticators: [registration(passkey)],
            oauthProviders: [
              { providerName: 'by token', oidcToken },
              { providerName: 'by claims', oidcClaims: { iss: ISSUER, sub: 'subject-users-2', aud: AUDIENCE } },
            ],
          },
        ],
      }),
    );
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const [userId] = activityOperations.create_users.result.parse(activity.result.createUsersResult).userIds;

    const reply = await queryWithPasskey(passkey, 'get_user', { organizationId: t.info.organizationId, userId });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { user } = queryOperations.get_user.response.parse(reply.body);
    expect(user.authenticators).toMatchObject([
      { authenticatorName: 'laptop', credentialId: passkey.credentialId, credential: { publicKey: passkey.publicKey } },
    ]);
    expect(user.oauthProviders.map((p) => [p.providerName, p.subject])).toEqual([
      ['by token', 'subject-users-1'],
      ['by claims', 'subject-users-2'],
    ]);
    const whoami = await queryWithPasskey(passkey, 'whoami', { organizationId: t.info.organizationId });
    expect(whoami.body.userId).toBe(userId);
  });

  it('refuses, before recording anything, a bad attestation, one credential twice, and a provider with both token and claims', async () => {
    const submit = (users: unknown[]) => t.submit('create_users', 'ACTIVITY_TYPE_CREATE_USERS_V4', { users });
    const user = (name: string, extra: Record<string, unknown>) => ({
      userName: name,
      userTags: [],
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
      ...extra,
    });
    const passkey = newPasskey();
    const broken = { ...registration(passkey), attestation: { ...passkey.register('Y3JlYXRpb24'), attestationObject: 'AAAA' } };
    expect(refusal(await submit([user('a', { authenticators: [broken] })]))).toEqual([400, 'REQUEST_INVALID']);
    const twice = await submit([user('a', { authenticators: [registration(passkey)] }), user('b', { authenticators: [registration(passkey)] })]);
    expect(refusal(twice)).toEqual([409, 'ALREADY_EXISTS']);
    expect(twice.body.message).toContain('parameters.users[1].authenticators[0].attestation.credentialId');
    const both = await submit([
      user('a', { oauthProviders: [{ providerName: 'x', oidcToken: 'x', oidcClaims: { iss: ISSUER, sub: 's', aud: AUDIENCE } }] }),
    ]);
    expect(refusal(both)).toEqual([400, 'REQUEST_INVALID']);
    const names = (await t.client().getUsers({ organizationId: t.info.organizationId })).users.map((u) => u.userName);
    expect(names).not.toContain('a');
  });
});

describe('create_sub_organization', () => {
  it('creates a passkey root user and a wallet, returned in the result and listed by get_organization', async () => {
    const passkey = newPasskey();
    const { activity } = await t.client().createSubOrganization(
      t.envelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
        subOrganizationName: 'with wallet',
        rootUsers: [{ userName: 'owner', apiKeys: [], authenticators: [registration(passkey)], oauthProviders: [] }],
        rootQuorumThreshold: 1,
        wallet: { walletName: 'main', mnemonicLength: 24, accounts: [ETHEREUM_ACCOUNT, SOLANA_ACCOUNT] },
      }),
    );
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const result = activityOperations.create_sub_organization.result.parse(activity.result.createSubOrganizationResultV8);
    expect(result.wallet?.addresses).toHaveLength(2);
    expect(result.wallet?.addresses[0]).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const organization = await queryWithPasskey(passkey, 'get_organization', { organizationId: result.subOrganizationId });
    expect(organization.status, JSON.stringify(organization.body)).toBe(200);
    const { organizationData } = queryOperations.get_organization.response.parse(organization.body);
    expect(organizationData.wallets).toMatchObject([{ walletId: result.wallet!.walletId, walletName: 'main', exported: false, imported: false }]);
    expect(organizationData.privateKeys).toEqual([]);
    const accounts = await queryWithPasskey(passkey, 'list_wallet_accounts', {
      organizationId: result.subOrganizationId,
      walletId: result.wallet!.walletId,
    });
    expect(accounts.body.accounts.map((a: { address: string }) => a.address)).toEqual(result.wallet!.addresses);
  });

  it('marks the root user with the verified contact verified, once per token, when the token key signed that user', async () => {
    const tokenKey = newKey();
    const email = 'quinn@example.com';
    const verificationToken = await t.verifyContact(email, tokenKey);
    const owner = {
      userName: 'quinn',
      userEmail: email,
      apiKeys: [{ apiKeyName: 'k', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
      authenticators: [],
      oauthProviders: [],
    };
    const other = { userName: 'other', apiKeys: [], authenticators: [], oauthProviders: [] };
    const signed = (apiKeys: unknown) =>
      clientSignature(tokenKey, { signupV2: { apiKeys, email }, tokenId: tokenIdOf(verificationToken), type: 'USAGE_TYPE_SIGNUP' });
    const create = async (signature: Awaited<ReturnType<typeof signed>>) =>
      t.submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
        subOrganizationName: `verified ${t.clock.now()}`,
        rootUsers: [other, owner],
        rootQuorumThreshold: 1,
        verificationToken,
        clientSignature: signature,
      });

    const unsigned = await create(await signed([]));
    expect(unsigned.body.activity.failure.details[0].turnkeyErrorCode).toBe('SIGNATURE_INVALID');
    const created = await create(await signed(owner.apiKeys));
    expect(created.body.activity.status, JSON.stringify(created.body.activity.failure)).toBe('ACTIVITY_STATUS_COMPLETED');
    const { subOrganizationId, rootUserIds } = created.body.activity.result.createSubOrganizationResultV8;
    expect(rootUserIds).toHaveLength(2);
    const verified = await t.client().getVerifiedSubOrgIds({ organizationId: t.info.organizationId, filterType: 'EMAIL', filterValue: email });
    expect(verified.organizationIds).toEqual([subOrganizationId]);

    t.clock.advance(1);
    const again = await create(await signed(owner.apiKeys));
    expect(again.body.activity.failure.details[0].turnkeyErrorCode).toBe('TOKEN_INVALID');
  });
});

describe('get_organization', () => {
  it('lists the organization’s private keys', async () => {
    const { activity } = await t.client().createPrivateKeys(
      t.envelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
        privateKeys: [{ privateKeyName: 'signer', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }],
      }),
    );
    const [created] = activity.result.createPrivateKeysResultV2!.privateKeys;
    const { organizationData } = queryOperations.get_organization.response.parse(
      await t.client().getOrganization({ organizationId: t.info.organizationId }),
    );
    expect(organizationData.privateKeys).toMatchObject([
      { privateKeyId: created!.privateKeyId, privateKeyName: 'signer', addresses: created!.addresses },
    ]);
  });
});

describe('signup_v2 with a wallet', () => {
  it('answers walletId and addresses of a wallet created in the new sub-organization', async () => {
    const apiKey = newKey();
    const reply = await t.proxy('signup_v2', {
      userName: 'wendy',
      apiKeys: [{ apiKeyName: 'k', publicKey: apiKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
      authenticators: [],
      oauthProviders: [],
      wallet: { walletName: 'first', accounts: [ETHEREUM_ACCOUNT] },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { organizationId, wallet } = reply.body as { organizationId: string; wallet: { walletId: string; addresses: string[] } };
    const { accounts } = await t.client(apiKey).getWalletAccounts({ organizationId, walletId: wallet.walletId });
    expect(accounts.map((a) => a.address)).toEqual(wallet.addresses);
    expect(accounts[0]?.path).toBe(ETHEREUM_ACCOUNT.path);

    const badLength = await t.proxy('signup_v2', {
      apiKeys: [{ apiKeyName: 'k', publicKey: newKey().publicKey, curveType: 'API_KEY_CURVE_P256' }],
      authenticators: [],
      oauthProviders: [],
      wallet: { walletName: 'w', accounts: [], mnemonicLength: 11 },
    });
    expect(refusal(badLength)).toEqual([400, 'MNEMONIC_INVALID']);
    expect(badLength.body.message).toContain('wallet.mnemonicLength');
  });
});
