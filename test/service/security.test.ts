import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeStampVerifier } from '../../src/node/stamp-backend';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { newKey, startTestService, type TestService } from '../support/service';

const CREATE_POLICY = 'ACTIVITY_TYPE_CREATE_POLICY_V3';
let t: TestService;
let otherOrganizationId: string;
let otherKey: ReturnType<typeof newKey>;

beforeAll(async () => {
  t = await startTestService();
  otherOrganizationId = randomUUID();
  await t.store.transaction((tx) => tx.organizations.insert({ id: otherOrganizationId, name: 'other', rootQuorumThreshold: 1, now: t.clock.now() }));
  otherKey = (await t.addUser({ organizationId: otherOrganizationId })).key;
});
afterAll(async () => {
  await t.close();
});

function body(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: CREATE_POLICY,
    timestampMs: String(t.clock.now()),
    organizationId: t.info.organizationId,
    parameters: { policyName: `p ${randomUUID()}`, effect: 'EFFECT_ALLOW', notes: '' },
    ...overrides,
  });
}

async function stampOf(text: string, key = t.rootKey): Promise<string> {
  return (await stampBody(text, signerFromPrivateKey(key.curve, key.privateKey))).headerValue;
}

/** Posts, expects the refusal, and checks that nothing was recorded. */
async function expectRefused(text: string, headers: Record<string, string>, status: number, code: string): Promise<void> {
  const before = t.store.read.activities.list({ organizationId: t.info.organizationId, limit: 100 }).length;
  const reply = await t.post('/public/v1/submit/create_policy', text, { unstamped: true, headers });
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.details[0].turnkeyErrorCode).toBe(code);
  expect(JSON.stringify(reply.body)).not.toMatch(/at .*\.ts:\d+/);
  expect(t.store.read.activities.list({ organizationId: t.info.organizationId, limit: 100 })).toHaveLength(before);
  expect(t.store.read.policies.countByOrganization(t.info.organizationId)).toBe(0);
}

describe('refused stamps and envelopes record nothing', () => {
  it('a forged stamp: the root public key with another key’s signature', async () => {
    const text = body();
    const forger = newKey();
    const real = JSON.parse(Buffer.from(await stampOf(text, forger), 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...real, publicKey: t.rootKey.publicKey })).toString('base64url');
    await expectRefused(text, { 'x-stamp': forged }, 401, 'SIGNATURE_INVALID');
  });

  it('a stamp replayed over another body', async () => {
    const stamp = await stampOf(body());
    await expectRefused(body(), { 'x-stamp': stamp }, 401, 'SIGNATURE_INVALID');
  });

  it('a timestamp more than an hour old, and one more than 5 minutes ahead', async () => {
    const old = body({ timestampMs: String(t.clock.now() - 60 * 60 * 1000 - 1) });
    await expectRefused(old, { 'x-stamp': await stampOf(old) }, 400, 'INVALID_TIME');
    const future = body({ timestampMs: String(t.clock.now() + 5 * 60 * 1000 + 1) });
    await expectRefused(future, { 'x-stamp': await stampOf(future) }, 400, 'INVALID_TIME');
  });

  it('an unknown organization, and an organization the key does not belong to', async () => {
    const unknown = body({ organizationId: randomUUID() });
    await expectRefused(unknown, { 'x-stamp': await stampOf(unknown) }, 404, 'ORGANIZATION_NOT_FOUND');
    const foreign = body({ organizationId: otherOrganizationId });
    await expectRefused(foreign, { 'x-stamp': await stampOf(foreign) }, 401, 'PUBLIC_KEY_NOT_FOUND');
  });

  it('a key of another organization used on this one', async () => {
    const text = body();
    await expectRefused(text, { 'x-stamp': await stampOf(text, otherKey) }, 401, 'PUBLIC_KEY_NOT_FOUND');
  });

  it('two stamp headers', async () => {
    const text = body();
    await expectRefused(text, { 'x-stamp': await stampOf(text), 'x-stamp-webauthn': '{}' }, 400, 'REQUEST_INVALID');
  });

  it('an expired API key', async () => {
    const { userId, key } = await t.addUser();
    const expiring = newKey();
    await t.store.transaction((tx) =>
      tx.apiKeys.insert({
        id: randomUUID(),
        organizationId: t.info.organizationId,
        userId,
        name: 'expired',
        publicKey: expiring.publicKey,
        credentialType: 'CREDENTIAL_TYPE_API_KEY_P256',
        expirationSeconds: 60,
        sessionProfileId: undefined,
        now: t.clock.now() - 61_000,
      }),
    );
    const text = body();
    await expectRefused(text, { 'x-stamp': await stampOf(text, expiring) }, 401, 'API_KEY_EXPIRED');
    expect((await t.query('whoami', {}, { key })).status).toBe(200);
  });

  it('a malformed envelope names the field', async () => {
    const text = body({ parameters: { policyName: 'x', effect: 'EFFECT_MAYBE', notes: '' } });
    await expectRefused(text, { 'x-stamp': await stampOf(text) }, 400, 'REQUEST_INVALID');
    const reply = await t.post('/public/v1/submit/create_policy', text);
    expect(reply.body.message).toMatch(/parameters\.effect/);
    // Another operation's type (older versions of create_policy itself are accepted: activity-versions.ts).
    const wrongType = body({ type: 'ACTIVITY_TYPE_CREATE_WALLET' });
    await expectRefused(wrongType, { 'x-stamp': await stampOf(wrongType) }, 400, 'REQUEST_INVALID');
  });

  it('a parent organization user may read a sub-organization but not act in it', async () => {
    const subId = randomUUID();
    await t.store.transaction((tx) =>
      tx.organizations.insert({ id: subId, parentId: t.info.organizationId, name: 'sub', rootQuorumThreshold: 1, now: t.clock.now() }),
    );
    const read = await t.query('list_policies', { organizationId: subId });
    expect(read.status).toBe(200);
    const text = body({ organizationId: subId });
    await expectRefused(text, { 'x-stamp': await stampOf(text) }, 400, 'ORGANIZATION_MISMATCH');
  });
});

describe('a key deleted while its request waits for the write lock', () => {
  const refusedOnceItsTurnComes = async (actedBefore: boolean) => {
    const real = createNodeStampVerifier();
    let verified = (): void => {};
    const s = await startTestService({
      stampVerifier: {
        verify(...args) {
          const valid = real.verify(...args);
          verified();
          return valid;
        },
      },
    });
    try {
      const holder = await s.addUser({ name: 'leaving operator' });
      await s.setRootQuorum(1, [s.info.rootUserId, holder.userId]);
      const keyId = s.store.read.apiKeys.findByPublicKey(holder.key.publicKey)[0]!.id;
      // An activity of the key's before: what its transaction found of the key must not answer for the next one.
      const before = actedBefore
        ? await s.submit(
            'create_policy',
            CREATE_POLICY,
            { policyName: 'before the deletion', effect: 'EFFECT_ALLOW', notes: '' },
            { key: holder.key },
          )
        : undefined;
      expect(before?.body.activity.status).toBe(actedBefore ? 'ACTIVITY_STATUS_COMPLETED' : undefined);
      const stampChecked = new Promise<void>((resolve) => (verified = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const deletion = s.store.transaction(async (tx) => {
        await gate;
        tx.apiKeys.delete(keyId);
      });
      const request = s.submit(
        'create_policy',
        CREATE_POLICY,
        { policyName: 'from a deleted key', effect: 'EFFECT_ALLOW', notes: '' },
        { key: holder.key },
      );
      // Past the stamp check the request reads its rows and queues for the write lock without waiting on I/O, so it
      // is queued behind the deletion by the next turn of the event loop.
      await stampChecked;
      await new Promise((resolve) => setImmediate(resolve));
      release();
      await deletion;
      const reply = await request;
      expect(reply.body.details[0].turnkeyErrorCode).toBe('PUBLIC_KEY_NOT_FOUND');
      expect(reply.body.message).toContain('was deleted before the request could run');
      expect(s.store.read.activities.list({ organizationId: s.info.organizationId, limit: 100 })).toHaveLength(actedBefore ? 1 : 0);
      expect(s.store.read.policies.listByOrganization(s.info.organizationId).map((policy) => policy.name)).toEqual(
        actedBefore ? ['before the deletion'] : [],
      );
    } finally {
      await s.close();
    }
  };

  it('does not act: the request is refused once its turn comes, and nothing is recorded', () => refusedOnceItsTurnComes(false));

  it('does not act either when the key acted just before', () => refusedOnceItsTurnComes(true));
});
