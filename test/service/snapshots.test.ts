/**
 * The Sandbox's snapshots (docs/sandbox.md#snapshots): POST /sandbox/v1/snapshot takes the state, POST
 * /sandbox/v1/restore puts it back; a restored Sandbox answers Turnkey's client exactly as before (ids, keys,
 * policies, activities), signs with the same keys, and its clock is back where it was. Protected as the clock is.
 */
import { Turnkey } from '@turnkey/sdk-server';
import { recoverAddress, serializeSignature } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SNAPSHOTS } from '../../src/service/snapshots';
import { copySeedFixture, type SeedCopy } from '../support/seed';
import { refusal, startTestService, type TestKey, type TestService } from '../support/service';

const ORGANIZATION_ID = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const SUB_ORGANIZATION_ID = '6e5e5e5e-0000-4000-8000-000000000001';
const WALLET_ID = '1a1b2c3d-0000-4000-8000-00000000a11e';
const DAY_MS = 24 * 60 * 60 * 1000;

const copies: SeedCopy[] = [];
const services: TestService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  for (const copy of copies.splice(0)) copy.remove();
});

async function seeded(options: { clockControl?: boolean } = {}) {
  const copy = copySeedFixture('one-root.yaml');
  copies.push(copy);
  const t = await startTestService({ seed: { file: copy, rootKeyFile: 'dana.key.json' }, ...options });
  services.push(t);
  const dana = copy.key('dana.key.json');
  const client = new Turnkey({
    apiBaseUrl: t.info.baseUrl,
    apiPublicKey: dana.publicKey,
    apiPrivateKey: dana.privateKey,
    defaultOrganizationId: ORGANIZATION_ID,
    activityPoller: { intervalMs: 20, numRetries: 1 },
  }).apiClient();
  return { t, client, erin: copy.key('erin.key.json') };
}

const snapshot = (t: TestService, key?: TestKey) =>
  t.post('/sandbox/v1/snapshot', { organizationId: ORGANIZATION_ID }, key === undefined ? {} : { key });
const restore = (t: TestService, snapshotId: string) => t.post('/sandbox/v1/restore', { organizationId: ORGANIZATION_ID, snapshotId });

type Client = Awaited<ReturnType<typeof seeded>>['client'];

/** Everything a test would read back: organization, users, wallets and accounts, keys, policies, activities. */
async function stateOf(client: Client) {
  const wallets = (await client.getWallets()).wallets;
  return {
    whoami: await client.getWhoami(),
    users: (await client.getUsers()).users,
    wallets,
    accounts: await Promise.all(wallets.map(async (wallet) => (await client.getWalletAccounts({ walletId: wallet.walletId })).accounts)),
    privateKeys: (await client.getPrivateKeys()).privateKeys,
    policies: (await client.getPolicies()).policies,
    activities: (await client.getActivities()).activities,
    subOrganizations: (await client.getSubOrgIds()).organizationIds,
  };
}

async function signWithTreasury(client: Client) {
  const { accounts } = await client.getWalletAccounts({ walletId: WALLET_ID });
  const address = accounts[0]!.address as `0x${string}`;
  const digest = `0x${'cd'.repeat(32)}` as const;
  const { r, s, v } = await client.signRawPayload({
    signWith: address,
    payload: digest,
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_NO_OP',
  });
  return { address, signer: await recoverAddress({ hash: digest, signature: serializeSignature({ r: `0x${r}`, s: `0x${s}`, yParity: Number(v) }) }) };
}

describe('snapshots', () => {
  it('a restored Sandbox answers exactly as before, signs with the same keys, and the snapshot serves again', async () => {
    const { t, client } = await seeded();
    await signWithTreasury(client);
    const taken = await snapshot(t);
    expect(taken.status).toBe(200);
    const snapshotId = taken.body.snapshotId as string;
    const before = await stateOf(client);

    // A test's changes: a wallet, a policy, a user, a signature, the seeded private key deleted.
    await client.createWallet({ walletName: 'Scratch', accounts: [] });
    await client.createPolicy({ policyName: 'scratch', effect: 'EFFECT_DENY', condition: "activity.action == 'EXPORT'", notes: '' });
    await client.createUsers({ users: [{ userName: 'Frank', apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] });
    await client.deletePrivateKeys({ privateKeyIds: ['1a1b2c3d-0000-4000-8000-0000000000ce'], deleteWithoutExport: true });
    const signed = await signWithTreasury(client);
    expect(await stateOf(client)).not.toEqual(before);

    const restored = await restore(t, snapshotId);
    expect([restored.status, restored.body.snapshotId], t.logs.join('\n')).toEqual([200, snapshotId]);
    expect(await stateOf(client)).toEqual(before);
    // The wallet's key is the one it had: it signs for the same address.
    const again = await signWithTreasury(client);
    expect(again).toEqual({ address: signed.address, signer: signed.address });

    // Restoring keeps the snapshot: the next test starts from it too.
    expect((await restore(t, snapshotId)).status).toBe(200);
    expect(await stateOf(client)).toEqual(before);
    expect(t.store.integrityCheck()).toBe('ok');
  });

  it('puts the clock back where it was when the snapshot was taken', async () => {
    const { t } = await seeded({ clockControl: true });
    const snapshotId = (await snapshot(t)).body.snapshotId as string;
    const moved = await t.post('/sandbox/v1/clock', { organizationId: ORGANIZATION_ID, advanceMs: String(DAY_MS) });
    expect(moved.body.aheadMs).toBe(String(DAY_MS));
    const restored = await restore(t, snapshotId);
    expect(restored.body.nowMs).toBe(String(t.clock.now()));
    expect((await t.post('/sandbox/v1/clock', { organizationId: ORGANIZATION_ID })).body.aheadMs).toBe('0');
  });

  it('waits for the running transaction, then replaces its writes too', async () => {
    const { t, client } = await seeded();
    const snapshotId = (await snapshot(t)).body.snapshotId as string;
    let releaseTransaction!: () => void;
    const held = new Promise<void>((resolve) => (releaseTransaction = resolve));
    const order: string[] = [];
    const transaction = t.store.transaction(async (tx) => {
      tx.connection.run('UPDATE organizations SET name = :name WHERE id = :id', { name: 'renamed meanwhile', id: ORGANIZATION_ID });
      await held;
      order.push('transaction');
    });
    const restoring = restore(t, snapshotId).then((reply) => {
      order.push('restore');
      return reply;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The read connection still sees the committed state: neither the open transaction nor a half-done restore.
    expect((await client.getWhoami()).organizationName).toBe('Snapshot organization');
    expect(order).toEqual([]);
    releaseTransaction();
    await transaction;
    expect((await restoring).status).toBe(200);
    expect(order).toEqual(['transaction', 'restore']);
    expect((await client.getWhoami()).organizationName).toBe('Snapshot organization');
  });

  it.each([
    ['an id it never gave', (t: TestService) => restore(t, '00000000-0000-4000-8000-000000000000'), [404, 'NOT_FOUND']],
    ['no snapshot id', (t: TestService) => t.post('/sandbox/v1/restore', { organizationId: ORGANIZATION_ID }), [400, 'REQUEST_INVALID']],
    [
      'an unknown field',
      (t: TestService) => t.post('/sandbox/v1/snapshot', { organizationId: ORGANIZATION_ID, name: 'x' }),
      [400, 'REQUEST_INVALID'],
    ],
    [
      'no stamp',
      (t: TestService) => t.post('/sandbox/v1/snapshot', { organizationId: ORGANIZATION_ID }, { unstamped: true }),
      [401, 'SIGNATURE_MISSING'],
    ],
  ] as const)('refuses %s', async (_name, request, expected) => {
    const { t } = await seeded();
    expect(refusal(await request(t))).toEqual(expected);
  });

  it('refuses a root user of a sub-organization, and more than it keeps', async () => {
    const { t, erin } = await seeded();
    const byErin = await t.post('/sandbox/v1/snapshot', { organizationId: SUB_ORGANIZATION_ID }, { key: erin });
    expect(refusal(byErin)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    for (let index = 0; index < MAX_SNAPSHOTS; index += 1) expect((await snapshot(t)).status).toBe(200);
    const beyond = await snapshot(t);
    expect(refusal(beyond)).toEqual([429, 'LIMIT_EXCEEDED']);
    expect(beyond.body.message).toContain(`${MAX_SNAPSHOTS} snapshots`);
  });
});
