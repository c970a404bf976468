/**
 * Spec operations end to end over HTTP with Turnkey's official client (@turnkey/http + @turnkey/api-key-stamper):
 * passkeys registered at signup stamping X-Stamp-WebAuthn, OAuth login against a test issuer, session profiles and
 * their scope, deletion of authenticators and OAuth providers, smart contract interfaces, TVC apps.
 */
import { verifySessionJwtSignature } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionJwt } from '../../../src/shared/crypto/tokens';
import { createSoftAuthenticator } from '../../support/soft-authenticator';
import { createTestIssuer, sessionNonce as nonceFor, TEST_ISSUER as ISSUER, type IdTokenClaims, type TestIssuer } from '../../support/test-issuer';
import { newKey, startTestService, type TestService } from '../../support/service';

const AUDIENCE = 'quorumkey-test-client';
let t: TestService;
let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await createTestIssuer(AUDIENCE);
  t = await startTestService({ oidcIssuers: [issuer.trusted] });
});
afterAll(() => t.close());

const idToken = (claims: Omit<IdTokenClaims, 'nowMs'>) => issuer.idToken({ ...claims, nowMs: t.clock.now() });

async function signup(body: Record<string, unknown>) {
  const apiKey = newKey();
  const reply = await t.proxy('signup_v2', {
    apiKeys: [{ apiKeyName: 'key', publicKey: apiKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
    authenticators: [],
    oauthProviders: [],
    ...body,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { organizationId: reply.body.organizationId as string, userId: reply.body.userId as string, apiKey };
}

describe('passkeys', () => {
  it('registers a passkey at signup that then stamps X-Stamp-WebAuthn requests; a tampered assertion is refused', async () => {
    const passkey = createSoftAuthenticator({ rpId: 'localhost', origin: 'http://localhost:3000' });
    const challenge = 'c2lnbnVwLWNoYWxsZW5nZQ';
    const { organizationId, userId } = await signup({
      userName: 'passkey user',
      authenticators: [{ authenticatorName: 'laptop', challenge, attestation: passkey.register(challenge, 'packed') }],
    });
    const body = JSON.stringify({ organizationId, userId });
    const stamped = await t.post('/public/v1/query/get_authenticators', body, {
      unstamped: true,
      headers: { 'X-Stamp-WebAuthn': passkey.assert(body) },
    });
    expect(stamped.status).toBe(200);
    const { authenticators } = stamped.body as { authenticators: { credentialId: string; credential: { type: string } }[] };
    expect(authenticators).toMatchObject([
      { credentialId: passkey.credentialId, credential: { type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR', publicKey: passkey.publicKey } },
    ]);

    const otherBody = JSON.stringify({ organizationId, userId: 'someone-else' });
    const replayed = await t.post('/public/v1/query/get_authenticators', otherBody, {
      unstamped: true,
      headers: { 'X-Stamp-WebAuthn': passkey.assert(body) },
    });
    expect(replayed.status).toBe(401);
    expect(replayed.body.details[0].turnkeyErrorCode).toBe('SIGNATURE_INVALID');

    const assertion = JSON.parse(passkey.assert(body)) as Record<string, string>;
    const flipped = Buffer.from(assertion.signature!, 'base64url');
    flipped[flipped.length - 1]! ^= 0x01;
    const tampered = await t.post('/public/v1/query/get_authenticators', body, {
      unstamped: true,
      headers: { 'X-Stamp-WebAuthn': JSON.stringify({ ...assertion, signature: flipped.toString('base64url') }) },
    });
    expect(tampered.status).toBe(401);

    const stranger = createSoftAuthenticator({ rpId: 'localhost', origin: 'http://localhost:3000' });
    const unknown = await t.post('/public/v1/query/get_authenticators', body, {
      unstamped: true,
      headers: { 'X-Stamp-WebAuthn': stranger.assert(body) },
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.details[0].turnkeyErrorCode).toBe('CREDENTIAL_NOT_FOUND');
  });

  it('refuses an assertion whose sign count does not advance: a replay, or a cloned authenticator; a passkey that always counts 0 is not checked', async () => {
    const query = async (passkeyStamp: string, body: string) =>
      t.post('/public/v1/query/get_authenticators', body, { unstamped: true, headers: { 'X-Stamp-WebAuthn': passkeyStamp } });
    const counting = createSoftAuthenticator({ rpId: 'localhost', origin: 'http://localhost:3000' });
    const { organizationId, userId } = await signup({
      authenticators: [{ authenticatorName: 'key', challenge: 'Y2g', attestation: counting.register('Y2g') }],
    });
    const body = JSON.stringify({ organizationId, userId });

    const first = counting.assert(body);
    expect((await query(first, body)).status).toBe(200);
    const replayed = await query(first, body);
    expect(replayed.status).toBe(401);
    expect(replayed.body.details[0].turnkeyErrorCode).toBe('SIGNATURE_INVALID');
    expect(replayed.body.message).toContain('may be cloned');

    // Both copies sign with the count they would next use: whichever comes second does not advance.
    const clone = counting.clone();
    expect((await query(counting.assert(body), body)).status).toBe(200);
    expect((await query(clone.assert(body), body)).status).toBe(401);
    expect((await query(counting.assert(body), body)).status).toBe(200);
    // Two requests racing with the same count: exactly one passes.
    const racing = counting.clone().assert(body);
    expect((await Promise.all([query(racing, body), query(counting.assert(body), body)])).map((reply) => reply.status).sort()).toEqual([200, 401]);

    const synced = createSoftAuthenticator({ rpId: 'localhost', origin: 'http://localhost:3000', counts: false });
    const zero = await signup({ authenticators: [{ authenticatorName: 'synced', challenge: 'Y2g', attestation: synced.register('Y2g') }] });
    const zeroBody = JSON.stringify({ organizationId: zero.organizationId, userId: zero.userId });
    const once = synced.assert(zeroBody);
    expect((await query(once, zeroBody)).status).toBe(200);
    expect((await query(once, zeroBody)).status).toBe(200);
  });

  it('deletes authenticators of the user only (delete_authenticators)', async () => {
    const passkey = createSoftAuthenticator({ rpId: 'localhost', origin: 'http://localhost:3000' });
    const { organizationId, userId, apiKey } = await signup({
      authenticators: [{ authenticatorName: 'a', challenge: 'Y2g', attestation: passkey.register('Y2g') }],
    });
    const tk = t.client(apiKey);
    const { authenticators } = await tk.getAuthenticators({ organizationId, userId });
    const authenticatorId = authenticators[0]!.authenticatorId;
    const missing = await t.submit(
      'delete_authenticators',
      'ACTIVITY_TYPE_DELETE_AUTHENTICATORS',
      { userId, authenticatorIds: ['nope'] },
      { organizationId, key: apiKey },
    );
    expect(missing.status).toBe(404);
    const { activity } = await tk.deleteAuthenticators(
      t.envelope('ACTIVITY_TYPE_DELETE_AUTHENTICATORS', { userId, authenticatorIds: [authenticatorId] }, organizationId),
    );
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(activity.result.deleteAuthenticatorsResult?.authenticatorIds).toEqual([authenticatorId]);
    expect((await tk.getAuthenticators({ organizationId, userId })).authenticators).toEqual([]);
  });
});

describe('OAuth', () => {
  it('logs in with an OIDC token matched to the user’s provider; refuses wrong nonce, audience, expiry and unknown subjects', async () => {
    const { organizationId, userId, apiKey } = await signup({
      userName: 'oauth user',
      oauthProviders: [{ providerName: 'test', oidcClaims: { iss: ISSUER, sub: 'subject-1', aud: AUDIENCE } }],
    });
    const tk = t.client(apiKey);
    const sessionKey = newKey();
    const login = (oidcToken: string, extra: Record<string, unknown> = {}) =>
      t.submit('oauth_login', 'ACTIVITY_TYPE_OAUTH_LOGIN', { oidcToken, publicKey: sessionKey.publicKey, ...extra }, { organizationId, key: apiKey });

    const token = await idToken({ sub: 'subject-1', nonce: nonceFor(sessionKey.publicKey) });
    const { activity } = await tk.oauthLogin(
      t.envelope('ACTIVITY_TYPE_OAUTH_LOGIN', { oidcToken: token, publicKey: sessionKey.publicKey, expirationSeconds: '120' }, organizationId),
    );
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const session = activity.result.oauthLoginResult!.session;
    await expect(verifySessionJwtSignature(session, t.info.sessionSignerPublicKey)).resolves.toBe(true);
    expect(parseSessionJwt(session)).toMatchObject({ user_id: userId, organization_id: organizationId, public_key: sessionKey.publicKey });
    expect(parseSessionJwt(session).exp).toBe(Math.floor(t.clock.now() / 1000) + 120);
    expect((await t.post('/public/v1/query/whoami', { organizationId }, { key: sessionKey })).body.userId).toBe(userId);

    const failure = async (reply: Awaited<ReturnType<typeof login>>) => {
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_FAILED');
      return reply.body.activity.failure.message as string;
    };
    expect(await failure(await login(await idToken({ sub: 'subject-1', nonce: nonceFor(newKey().publicKey) })))).toMatch(/nonce/);
    expect(await failure(await login(await idToken({ sub: 'subject-1', nonce: nonceFor(sessionKey.publicKey), aud: 'other' })))).toMatch(/no user/);
    expect(await failure(await login(await idToken({ sub: 'subject-2', nonce: nonceFor(sessionKey.publicKey) })))).toMatch(/no user/);
    expect(await failure(await login(await idToken({ sub: 'subject-1', nonce: nonceFor(sessionKey.publicKey), expiresInSeconds: -10 })))).toMatch(
      /expired/,
    );
  });

  it('creates providers from verified OIDC tokens, refuses duplicates, and deletes them (delete_oauth_providers)', async () => {
    const { organizationId, userId, apiKey } = await signup({
      oauthProviders: [{ providerName: 'first', oidcToken: await idToken({ sub: 'subject-9' }) }],
    });
    const tk = t.client(apiKey);
    const duplicate = await t.submit(
      'create_oauth_providers',
      'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2',
      {
        userId,
        oauthProviders: [{ providerName: 'again', oidcClaims: { iss: ISSUER, sub: 'subject-9', aud: AUDIENCE } }],
      },
      { organizationId, key: apiKey },
    );
    expect(duplicate.body.activity.failure.details[0].turnkeyErrorCode).toBe('OAUTH_PROVIDER_ALREADY_EXISTS');
    const { oauthProviders } = await tk.getOauthProviders({ organizationId, userId });
    expect(oauthProviders).toMatchObject([{ providerName: 'first', issuer: ISSUER, audience: AUDIENCE, subject: 'subject-9' }]);
    const { activity } = await tk.deleteOauthProviders(
      t.envelope('ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS', { userId, providerIds: [oauthProviders[0]!.providerId] }, organizationId),
    );
    expect(activity.result.deleteOauthProvidersResult?.providerIds).toEqual([oauthProviders[0]!.providerId]);
    expect((await tk.getOauthProviders({ organizationId, userId })).oauthProviders).toEqual([]);
  });
});

describe('session profiles', () => {
  it('creates profiles (visible to sub-organizations) and limits sessions to the profile scope', async () => {
    const root = t.client(t.rootKey);
    const organizationId = t.info.organizationId;
    const { activity } = await root.createSessionProfile(
      t.envelope(
        'ACTIVITY_TYPE_CREATE_SESSION_PROFILE',
        {
          sessionProfileName: 'contracts only',
          scope: "activity.type == 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE'",
          expirationSeconds: '60',
          notes: 'narrow',
        },
        organizationId,
      ),
    );
    const sessionProfileId = activity.result.createSessionProfileResult!.sessionProfileId;
    const bad = await t.submit(
      'create_session_profile',
      'ACTIVITY_TYPE_CREATE_SESSION_PROFILE',
      { sessionProfileName: 'x', scope: 'activity.type ==' },
      { organizationId },
    );
    expect(bad.status).toBe(400);

    const { organizationId: subOrganizationId, apiKey } = await signup({
      oauthProviders: [{ providerName: 'test', oidcClaims: { iss: ISSUER, sub: 'scoped', aud: AUDIENCE } }],
    });
    const profiles = await t.client(apiKey).getSessionProfiles({ organizationId: subOrganizationId });
    expect(profiles.sessionProfiles).toMatchObject([
      { sessionProfileId, sessionProfileName: 'contracts only', expirationSeconds: '60', notes: 'narrow' },
    ]);

    const sessionKey = newKey();
    const login = await t.submit(
      'oauth_login',
      'ACTIVITY_TYPE_OAUTH_LOGIN',
      {
        oidcToken: await idToken({ sub: 'scoped', nonce: nonceFor(sessionKey.publicKey) }),
        publicKey: sessionKey.publicKey,
        sessionProfileId,
      },
      { organizationId: subOrganizationId, key: apiKey },
    );
    const session = parseSessionJwt(login.body.activity.result.oauthLoginResult.session);
    expect(session).toMatchObject({
      session_type: 'contracts only',
      session_profile_id: sessionProfileId,
      scope: "activity.type == 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE'",
    });
    expect(session.exp).toBe(Math.floor(t.clock.now() / 1000) + 60);

    const outside = await t.submit(
      'create_session_profile',
      'ACTIVITY_TYPE_CREATE_SESSION_PROFILE',
      { sessionProfileName: 'y', scope: 'true' },
      { organizationId: subOrganizationId, key: sessionKey },
    );
    expect(outside.status).toBe(403);
    expect(outside.body.message).toMatch(/outside the scope/);
    const inside = await t.submit(
      'create_smart_contract_interface',
      'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
      {
        smartContractAddress: '0x' + '11'.repeat(20),
        smartContractInterface: JSON.stringify([{ type: 'function', name: 'transfer', inputs: [] }]),
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label: 'token',
      },
      { organizationId: subOrganizationId, key: sessionKey },
    );
    expect(inside.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});

/** An Anchor (0.30+) IDL whose one instruction takes an argument of `type`. */
function unreadableIdl(type: unknown): string {
  return JSON.stringify({
    address: '11111111111111111111111111111111',
    metadata: { name: 'p', version: '0.1.0', spec: '0.1.0' },
    instructions: [{ name: 'init', discriminator: [1, 2, 3, 4, 5, 6, 7, 8], accounts: [], args: [{ name: 'amount', type }] }],
    types: [],
  });
}

describe('smart contract interfaces and TVC apps', () => {
  it('validates, lists and deletes ABIs and IDLs', async () => {
    const root = t.client(t.rootKey);
    const organizationId = t.info.organizationId;
    const abi = JSON.stringify([{ type: 'function', name: 'approve', inputs: [{ name: 'spender', type: 'address' }] }]);
    const idl = JSON.stringify({ version: '0.1.0', name: 'p', instructions: [{ name: 'init', accounts: [], args: [] }] });
    const created = await root.createSmartContractInterface(
      t.envelope(
        'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
        {
          smartContractAddress: '0x' + 'ab'.repeat(20),
          smartContractInterface: abi,
          type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
          label: 'erc20',
          notes: 'n',
        },
        organizationId,
      ),
    );
    const id = created.activity.result.createSmartContractInterfaceResult!.smartContractInterfaceId;
    await root.createSmartContractInterface(
      t.envelope(
        'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
        {
          smartContractAddress: '11111111111111111111111111111111',
          smartContractInterface: idl,
          type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
          label: 'program',
        },
        organizationId,
      ),
    );
    const listed = await root.getSmartContractInterfaces({ organizationId });
    expect(listed.smartContractInterfaces).toMatchObject([
      { smartContractInterfaceId: id, smartContractInterface: abi, type: 'ETHEREUM', label: 'erc20', notes: 'n', organizationId },
      { type: 'SOLANA', label: 'program', notes: '' },
    ]);
    for (const [parameters, problem] of [
      [{ smartContractAddress: '0x12', smartContractInterface: abi, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'l' }, /Ethereum address/],
      [
        {
          smartContractAddress: '0x' + 'ab'.repeat(20),
          smartContractInterface: '{not json',
          type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
          label: 'l',
        },
        /not JSON/,
      ],
      [
        { smartContractAddress: '0x' + 'ab'.repeat(20), smartContractInterface: idl, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'l' },
        /JSON array/,
      ],
      [
        {
          smartContractAddress: '11111111111111111111111111111111',
          smartContractInterface: abi,
          type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
          label: 'l',
        },
        /JSON object/,
      ],
      // Shaped like an IDL, but no instruction of it could ever be decoded: refused now, not at every signing.
      [
        {
          smartContractAddress: '11111111111111111111111111111111',
          smartContractInterface: unreadableIdl('bogus'),
          type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
          label: 'l',
        },
        /cannot be read: .*bogus/,
      ],
      [
        {
          smartContractAddress: '11111111111111111111111111111111',
          smartContractInterface: unreadableIdl({ defined: { name: 'Missing' } }),
          type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
          label: 'l',
        },
        /cannot be read: .*missing/i,
      ],
    ] as const) {
      const reply = await t.submit('create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', parameters, {
        organizationId,
      });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toMatch(problem);
    }
    const deleted = await root.deleteSmartContractInterface(
      t.envelope('ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE', { smartContractInterfaceId: id }, organizationId),
    );
    expect(deleted.activity.result.deleteSmartContractInterfaceResult?.smartContractInterfaceId).toBe(id);
    expect((await root.getSmartContractInterfaces({ organizationId })).smartContractInterfaces.map((entry) => entry.type)).toEqual(['SOLANA']);
  });

  it('creates a TVC app with new operator sets, reuses a set, lists and deletes apps', async () => {
    const root = t.client(t.rootKey);
    const organizationId = t.info.organizationId;
    const operator = () => ({ name: 'op', publicKey: newKey().publicKey });
    const quorumPublicKey = t.info.enclaveSignerPublicKey + t.info.sessionSignerPublicKey;
    const created = await root.createTvcApp(
      t.envelope(
        'ACTIVITY_TYPE_CREATE_TVC_APP',
        {
          name: 'app one',
          quorumPublicKey,
          manifestSetParams: { name: 'manifest', newOperators: [operator(), operator()], threshold: 2 },
          shareSetParams: { name: 'share', newOperators: [operator(), operator(), operator()], threshold: 2 },
        },
        organizationId,
      ),
    );
    const result = created.activity.result.createTvcAppResult!;
    expect(result.manifestSetOperatorIds).toHaveLength(2);
    expect(result.shareSetOperatorIds).toHaveLength(3);
    expect(String(result.shareSetThreshold)).toBe('2');
    const second = await t.submit(
      'create_tvc_app',
      'ACTIVITY_TYPE_CREATE_TVC_APP',
      {
        name: 'app two',
        quorumPublicKey: t.info.enclaveSignerPublicKey,
        manifestSetId: result.manifestSetId,
        shareSetParams: { name: 'share two', existingOperatorIds: result.shareSetOperatorIds.slice(0, 1), threshold: '1' },
      },
      { organizationId },
    );
    expect(second.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    for (const [parameters, status] of [
      [{ name: 'app one', quorumPublicKey, manifestSetId: result.manifestSetId, shareSetId: result.shareSetId }, 409],
      [{ name: 'x', quorumPublicKey: 'zz', manifestSetId: result.manifestSetId, shareSetId: result.shareSetId }, 400],
      [{ name: 'x', quorumPublicKey, shareSetId: result.shareSetId }, 400],
      [
        {
          name: 'x',
          quorumPublicKey,
          manifestSetId: result.manifestSetId,
          shareSetParams: { name: 's', newOperators: [operator()], threshold: '2' },
        },
        400,
      ],
    ] as const) {
      expect(
        (await t.submit('create_tvc_app', 'ACTIVITY_TYPE_CREATE_TVC_APP', parameters, { organizationId })).status,
        JSON.stringify(parameters),
      ).toBe(status);
    }
    const listed = await t.post('/public/v1/query/list_tvc_apps', { organizationId });
    expect(listed.body.tvcApps).toMatchObject([
      { id: result.appId, name: 'app one', quorumPublicKey, manifestSet: { id: result.manifestSetId, threshold: '2' }, enableEgress: false },
      { name: 'app two', manifestSet: { id: result.manifestSetId } },
    ]);
    const deleted = await root.deleteTvcAppAndDeployments(
      t.envelope('ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS', { appId: result.appId }, organizationId),
    );
    expect(deleted.activity.result.deleteTvcAppAndDeploymentsResult?.appId).toBe(result.appId);
    expect((await t.post('/public/v1/query/list_tvc_apps', { organizationId })).body.tvcApps.map((app: { name: string }) => app.name)).toEqual([
      'app two',
    ]);
  });
});
