/**
 * The Sandbox's snapshots (docs/sandbox.md#snapshots): POST /sandbox/v1/snapshot takes the state, POST
 * /sandbox/v1/restore puts it back; a restored Sandbox answers Turnkey's client exactly as before (ids, keys,
 * policies, activities), signs with the same keys, and its clock is back where it was. Protected as the clock is.
 * And state files (docs/sandbox.md#state-files): `dumpState` on stop, `loadState` into a new Sandbox.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Turnkey } from '@turnkey/sdk-server';
import { recoverAddress, serializeSignature } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { startService, type RunningService, type ServiceOptions } from '../../src/service';
import { MAX_SNAPSHOTS } from '../../src/service/snapshots';
import { copySeedFixture, type SeedCopy } from '../support/seed';
import { postJson, refusal, stampedHeaders, startTestService, type TestKey, type TestService } from '../support/service';

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

function clientOf(baseUrl: string, dana: TestKey) {
  return new Turnkey({
    apiBaseUrl: baseUrl,
    apiPublicKey: dana.publicKey,
    apiPrivateKey: dana.privateKey,
    defaultOrganizationId: ORGANIZATION_ID,
    activityPoller: { intervalMs: 20, numRetries: 1 },
  }).apiClient();
}

async function seeded(options: { clockControl?: boolean } = {}) {
  const copy = copySeedFixture('one-root.yaml');
  copies.push(copy);
  const t = await startTestService({ seed: { file: copy, rootKeyFile: 'dana.key.json' }, ...options });
  services.push(t);
  return { t, client: clientOf(t.info.baseUrl, copy.key('dana.key.json')), erin: copy.key('erin.key.json') };
}

const snapshot = (t: TestService, key?: TestKey) =>
  t.post('/sandbox/v1/snapshot', { organizationId: ORGANIZATION_ID }, key === undefined ? {} : { key });
const restore = (t: TestService, snapshotId: string) => t.post('/sandbox/v1/restore', { organizationId: ORGANIZATION_ID, snapshotId });

type Client = ReturnType<typeof clientOf>;

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

describe('state files', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  function folder(): string {
    const made = mkdtempSync(join(tmpdir(), 'quorumkey-state-'));
    folders.push(made);
    return made;
  }
  async function clockOf(baseUrl: string, key: TestKey, change: Record<string, string>): Promise<{ nowMs: string; aheadMs: string }> {
    const body = JSON.stringify({ organizationId: ORGANIZATION_ID, ...change });
    const reply = await postJson(`${baseUrl}/sandbox/v1/clock`, body, await stampedHeaders(body, key));
    expect(reply.status).toBe(200);
    return reply.body as { nowMs: string; aheadMs: string };
  }
  const start = (copy: SeedCopy, options: Partial<ServiceOptions>): Promise<RunningService> =>
    startService({ db: ':memory:', seed: copy.file, log: () => {}, signingWorkers: 1, ...options });

  it('a Sandbox loaded from the state another dumped as it stopped answers as that one did, on its clock', async () => {
    const copy = copySeedFixture('one-root.yaml');
    copies.push(copy);
    const stateFile = join(folder(), 'ci.state');
    const first = await start(copy, { dumpState: stateFile, clockControl: true });
    // The seed's key files exist once a Sandbox has started from it.
    const dana = copy.key('dana.key.json');
    const client = clientOf(first.info.baseUrl, dana);
    await client.createWallet({ walletName: 'Made before the dump', accounts: [] });
    const signed = await signWithTreasury(client);
    const advanced = await clockOf(first.info.baseUrl, dana, { advanceMs: String(DAY_MS) });
    expect(advanced.aheadMs).toBe(String(DAY_MS));
    const before = await stateOf(client);
    await first.close();
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);

    const second = await start(copy, { loadState: stateFile });
    try {
      const { baseUrl: _first, authProxyUrl: _proxy, ...identity } = first.info;
      const { baseUrl: _second, authProxyUrl: _secondProxy, ...loaded } = second.info;
      expect(loaded).toEqual(identity);
      const loadedClient = clientOf(second.info.baseUrl, dana);
      expect(await stateOf(loadedClient)).toEqual(before);
      expect(await signWithTreasury(loadedClient)).toEqual(signed);
      // Its time does not go back behind the dumped Sandbox's: a day ahead of the wall clock still.
      expect(Number((await clockOf(second.info.baseUrl, dana, {})).nowMs)).toBeGreaterThanOrEqual(Number(advanced.nowMs));
    } finally {
      await second.close();
    }
  });

  it.each([
    ['a file that is no state file', (_dir: string, seed: string) => ({ loadState: seed }), /not a Sandbox state file/],
    ['a file that is not there', (dir: string) => ({ loadState: join(dir, 'missing.state') }), /no such file/],
    [
      'a database that already holds one',
      (dir: string) => ({ loadState: join(dir, 'ci.state'), db: join(dir, 'kept.db') }),
      /already holds a database/,
    ],
    [
      'a dump into a folder that is not there',
      (dir: string) => ({ dumpState: join(dir, 'no-folder', 'ci.state') }),
      /--dump-state .*its folder cannot be written/,
    ],
  ] as const)('refuses %s, before it serves', async (_name, options, message) => {
    const copy = copySeedFixture('one-root.yaml');
    copies.push(copy);
    const dir = folder();
    // A state file, and a database holding a Sandbox, for the cases that need them.
    const dumped = await start(copy, { dumpState: join(dir, 'ci.state'), db: join(dir, 'kept.db') });
    await dumped.close();
    expect(existsSync(join(dir, 'ci.state'))).toBe(true);
    await expect(start(copy, options(dir, copy.file))).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringMatching(message) });
  });
});
