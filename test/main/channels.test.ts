/**
 * Every channel family end to end through `dispatch`: the real composition root, the real OS keychain (run under
 * test/support/with-secret-service.sh) and the embedded sandbox service it starts.
 */
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import type { ErrorCode } from '../../src/shared/errors';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { STAMPED_REQUESTS_DIR } from '../../src/main/services';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { MemoryClipboard } from '../support/memory-clipboard';

const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const ETHEREUM_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

let bed: DispatchBed;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

async function refusal<C extends Channel>(name: C, input: ChannelInput<C>): Promise<{ code: ErrorCode; message: string }> {
  const result = await bed.dispatch(name, input);
  if (result.ok) throw new Error(`${name} succeeded, expected an error`);
  return result.error;
}

/** The EIP-55-less Ethereum address of `path` under `mnemonic`, derived here, independently of the service. */
function ethereumAddress(mnemonic: string, path: string): string {
  const node = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(path);
  const uncompressed = secp256k1.getPublicKey(node.privateKey!, false);
  return `0x${bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(-20))}`;
}

function completedResult<R>(outcome: { state: string; result?: R }): R {
  expect(outcome.state).toBe('completed');
  return outcome.result!;
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-channels-', clipboard: new MemoryClipboard() });
});

afterAll(() => bed.close());

describe('sandbox', () => {
  it('is stopped at first, refuses service channels until started, then runs as the active profile', async () => {
    expect(await call('sandbox.status', {})).toEqual({
      running: false,
      state: 'stopped',
      error: null,
      restarts: 0,
      notice: null,
      profileId: null,
      organizationId: null,
      rootUserId: null,
      baseUrl: null,
      enclaveSignerPublicKey: null,
    });
    expect((await refusal('wallets.list', {})).code).toBe('FAILED_PRECONDITION');

    const started = await call('sandbox.start', {});
    expect(started).toMatchObject({ running: true, state: 'running', baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(await call('sandbox.start', {})).toEqual(started);
    const active = await call('profiles.getActive', {});
    expect(active).toMatchObject({ id: started.profileId, kind: 'sandbox', organizationId: started.organizationId, baseUrl: started.baseUrl });
    expect(active?.enclaveSignerPublicKey).toBe(started.enclaveSignerPublicKey);
    expect(await call('approvals.whoami', {})).toMatchObject({ organizationId: started.organizationId, userId: started.rootUserId });
  });
});

describe('policies and activities', () => {
  it('creates, reads, updates and deletes a policy, each recorded as a completed activity', async () => {
    const condition = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'";
    const created = await call('policies.create', { name: 'wallets only', effect: 'EFFECT_ALLOW', condition, notes: 'ops' });
    const { policyId } = completedResult(created);
    expect(created.activity).toMatchObject({ type: 'ACTIVITY_TYPE_CREATE_POLICY_V3', status: 'ACTIVITY_STATUS_COMPLETED' });
    expect(await call('policies.get', { policyId })).toMatchObject({
      policyId,
      policyName: 'wallets only',
      effect: 'EFFECT_ALLOW',
      condition,
      notes: 'ops',
    });

    completedResult(await call('policies.update', { policyId, changes: { name: 'wallets, renamed', effect: 'EFFECT_DENY' } }));
    expect(await call('policies.list', {})).toEqual([
      expect.objectContaining({ policyId, policyName: 'wallets, renamed', effect: 'EFFECT_DENY', condition }),
    ]);

    completedResult(await call('policies.delete', { policyId }));
    expect(await call('policies.list', {})).toEqual([]);

    const activity = await call('activities.get', { activityId: created.activity.id });
    expect(activity).toEqual(created.activity);
    const recent = await call('activities.list', { status: ['ACTIVITY_STATUS_COMPLETED'], type: ['ACTIVITY_TYPE_CREATE_POLICY_V3'], limit: 10 });
    expect(recent.map((entry) => entry.id)).toEqual([created.activity.id]);
    // Each entry carries main's reading of it, the words the list row shows.
    expect(recent[0]!.reading).toMatchObject({ kind: 'activity', title: 'Create a policy', recognised: true });
  });

  it('pages back through the history: `before` answers the activities older than that one, newest first', async () => {
    const all = await call('activities.list', {});
    expect(all.length).toBeGreaterThanOrEqual(3);
    const firstPage = await call('activities.list', { limit: 2 });
    const nextPage = await call('activities.list', { limit: 2, before: firstPage.at(-1)!.id });
    expect([...firstPage, ...nextPage].map((entry) => entry.id)).toEqual(all.slice(0, 4).map((entry) => entry.id));
    expect(await call('activities.list', { before: all.at(-1)!.id })).toEqual([]);
    expect((await refusal('activities.list', { before: 'no-such-activity' })).code).toBe('REQUEST_INVALID');
  });

  it('refuses a malformed expression before anything is signed, with its code', async () => {
    const before = (await call('activities.list', {})).length;
    const error = await refusal('policies.create', { name: 'broken', effect: 'EFFECT_ALLOW', condition: "activity.type == 'x" });
    expect(error.code).toBe('POLICY_PARSE_ERROR');
    expect((await call('activities.list', {})).length).toBe(before);
  });
});

describe('approvals', () => {
  it('has nothing pending under a 1-of-1 root quorum; a vote on a finished activity is ACTIVITY_NOT_PENDING', async () => {
    expect(await call('approvals.pending', {})).toEqual([]);
    const [finished] = await call('activities.list', { limit: 1 });
    const error = await refusal('approvals.approve', { fingerprint: finished!.fingerprint });
    expect(error.code).toBe('ACTIVITY_NOT_PENDING');
  });

  it('stamps only votes: a rejection by fingerprint goes to a new 0600 file, and no request the renderer chooses is signed', async () => {
    const fingerprint = `sha256:${'cd'.repeat(32)}`;
    const stamped = await call('approvals.stampToFile', { fingerprint, vote: 'reject', file: 'rejection-1.json' });
    expect(stamped).toMatchObject({
      file: join(bed.dataDir, STAMPED_REQUESTS_DIR, 'rejection-1.json'),
      stampedRequestsDir: join(bed.dataDir, STAMPED_REQUESTS_DIR),
      path: '/public/v1/submit/reject_activity',
    });
    expect(JSON.parse(stamped.body)).toMatchObject({ type: 'ACTIVITY_TYPE_REJECT_ACTIVITY', parameters: { fingerprint } });
    expect(JSON.parse(await readFile(stamped.file, 'utf8'))).toMatchObject({ version: 1, body: stamped.body, stamp: { headerName: 'X-Stamp' } });
    expect((await stat(stamped.file)).mode & 0o777).toBe(0o600);

    expect((await refusal('approvals.stampToFile', { fingerprint, file: 'rejection-1.json' })).code).toBe('ALREADY_EXISTS');
    expect((await refusal('approvals.stampToFile', { fingerprint, file: '../escape.json' })).code).toBe('REQUEST_INVALID');
    const body = JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_API_KEYS_V2', timestampMs: String(Date.now()), organizationId: 'x', parameters: {} });
    // What a compromised renderer would send to get main to sign a request of its choosing.
    const arbitraryRequest = { path: '/public/v1/submit/create_api_keys', body, file: 'keys.json' } as never;
    expect((await refusal('approvals.stampToFile', arbitraryRequest)).code).toBe('REQUEST_INVALID');
  });

  it('stamps an approval by fingerprint as an approve_activity envelope of the active organization', async () => {
    const fingerprint = `sha256:${'ab'.repeat(32)}`;
    const stamped = await call('approvals.stampToFile', { fingerprint, file: 'approval-1.json' });
    expect(stamped.path).toBe('/public/v1/submit/approve_activity');
    expect(JSON.parse(stamped.body)).toMatchObject({
      type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      organizationId: (await call('profiles.getActive', {}))!.organizationId,
      parameters: { fingerprint },
    });
    // Posted byte for byte: the service saw our stamp and looked the fingerprint up.
    expect((await refusal('approvals.postStampedFile', { file: 'approval-1.json' })).code).toBe('ACTIVITY_NOT_FOUND');
    expect((await refusal('approvals.postStampedFile', { file: 'missing.json' })).code).toBe('FILE_ERROR');
  });
});

describe('wallets, private keys, exports and imports', () => {
  it('creates a wallet and accounts, lists them, and reveals the mnemonic to a one-time key and to a stored key', async () => {
    const created = completedResult(await call('wallets.create', { name: 'Treasury', mnemonicLength: 12, accounts: [ETHEREUM_ACCOUNT] }));
    expect(await call('wallets.list', {})).toEqual([
      expect.objectContaining({ walletId: created.walletId, walletName: 'Treasury', imported: false }),
    ]);
    const more = completedResult(
      await call('wallets.createAccounts', { walletId: created.walletId, accounts: [{ ...ETHEREUM_ACCOUNT, path: "m/44'/60'/0'/0/1" }] }),
    );
    const accounts = await call('wallets.accounts', { walletId: created.walletId });
    expect(accounts.map((account) => account.address).sort()).toEqual([...created.addresses, ...more.addresses].sort());

    const revealed = await call('exports.reveal', { subject: { kind: 'wallet', walletId: created.walletId }, target: { kind: 'ephemeral' } });
    if (revealed.state !== 'revealed' || revealed.secret.kind !== 'mnemonic') throw new Error(`unexpected ${JSON.stringify(revealed)}`);
    expect(revealed.secret.mnemonic.split(' ')).toHaveLength(12);
    // The mnemonic the service sealed is the one behind the addresses it reported.
    expect(ethereumAddress(revealed.secret.mnemonic, "m/44'/60'/0'/0/0").toLowerCase()).toBe(created.addresses[0]!.toLowerCase());

    await call('keys.generateEncryptionKey', { name: 'vault' });
    const toStored = await call('exports.reveal', {
      subject: { kind: 'wallet', walletId: created.walletId },
      target: { kind: 'encryption-key', name: 'vault' },
    });
    expect(toStored).toMatchObject({ state: 'revealed', secret: { mnemonic: revealed.secret.mnemonic } });
  });

  it('decrypts a bundle offline with a stored key, and opens a completed export by its activity', async () => {
    const [wallet] = await call('wallets.list', {});
    const profile = (await call('profiles.getActive', {}))!;
    const [vault] = await call('keys.listEncryptionKeys', {});
    // An export made outside the IPC (as another machine or the CLI would), sealed to the stored key.
    const client = new ApiClient({ profile, stamper: new Stamper(bed.services.keychain) });
    const exported = await client.submit('export_wallet', { walletId: wallet!.walletId, targetPublicKey: vault!.publicKey });
    if (exported.state !== 'completed') throw new Error(exported.state);

    const opened = await call('exports.decryptBundle', {
      bundle: exported.result.exportBundle,
      encryptionKeyName: 'vault',
      organizationId: profile.organizationId,
    });
    expect(opened).toMatchObject({ kind: 'mnemonic', language: 'MNEMONIC_LANGUAGE_ENGLISH' });
    const byActivity = await call('exports.reveal', {
      subject: { kind: 'completed-export', activityId: exported.activity.id },
      target: { kind: 'encryption-key', name: 'vault' },
    });
    expect(byActivity).toEqual({ state: 'revealed', secret: opened, activityId: exported.activity.id });

    const wrongOrg = await refusal('exports.decryptBundle', {
      bundle: exported.result.exportBundle,
      encryptionKeyName: 'vault',
      organizationId: randomUUID(),
    });
    expect(wrongOrg.code).toBe('BUNDLE_ORGANIZATION_MISMATCH');
    expect(JSON.stringify(wrongOrg)).not.toContain((opened as { mnemonic: string }).mnemonic);
    // Sealed to a stored key, so this desktop holds no one-time key for it.
    const noOneTimeKey = await refusal('exports.reveal', {
      subject: { kind: 'completed-export', activityId: exported.activity.id },
      target: { kind: 'ephemeral' },
    });
    expect(noOneTimeKey.code).toBe('KEY_NOT_FOUND');
    expect(noOneTimeKey.message).toContain('no longer holds the one-time key');
  });

  it('creates a private key and exports it in a chosen format', async () => {
    const created = completedResult(
      await call('privateKeys.create', { name: 'hot', curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }),
    );
    expect(created.addresses).toEqual([{ format: 'ADDRESS_FORMAT_ETHEREUM', address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) }]);
    const [listed] = await call('privateKeys.list', {});
    expect(listed).toMatchObject({
      privateKeyId: created.privateKeyId,
      privateKeyName: 'hot',
      curve: 'CURVE_SECP256K1',
      addresses: created.addresses,
    });

    const revealed = await call('exports.reveal', {
      subject: { kind: 'private-key', privateKeyId: created.privateKeyId },
      target: { kind: 'ephemeral' },
    });
    if (revealed.state !== 'revealed' || revealed.secret.kind !== 'private-key') throw new Error(`unexpected ${JSON.stringify(revealed)}`);
    expect(revealed.secret.format).toBe('hexadecimal');
    expect(bytesToHex(secp256k1.getPublicKey(Buffer.from(revealed.secret.privateKey, 'hex'), true))).toBe(listed!.publicKey.toLowerCase());
  });

  it('imports a wallet and a private key; the addresses are the ones derived here', async () => {
    const wallet = await call('imports.wallet', { name: 'Imported', mnemonic: MNEMONIC, accounts: [ETHEREUM_ACCOUNT] });
    if (wallet.state !== 'imported') throw new Error(wallet.state);
    expect(wallet.result.addresses.map((address) => address.toLowerCase())).toEqual([ethereumAddress(MNEMONIC, ETHEREUM_ACCOUNT.path)]);
    expect(wallet.activity.type).toBe('ACTIVITY_TYPE_IMPORT_WALLET');
    expect(JSON.stringify(wallet)).not.toContain('legal winner');

    const secret = '0c'.repeat(32);
    const key = await call('imports.privateKey', {
      name: 'imported key',
      privateKey: secret,
      format: 'hexadecimal',
      curve: 'CURVE_SECP256K1',
      addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
    });
    if (key.state !== 'imported') throw new Error(key.state);
    const expected = `0x${bytesToHex(keccak_256(secp256k1.getPublicKey(Buffer.from(secret, 'hex'), false).subarray(1)).subarray(-20))}`;
    expect(key.result.addresses.map(({ address }) => address.toLowerCase())).toEqual([expected]);

    expect((await refusal('imports.wallet', { name: 'typo', mnemonic: 'legal winner thank year', accounts: [ETHEREUM_ACCOUNT] })).code).toBe(
      'MNEMONIC_INVALID',
    );
  });
});

describe('lock and active profile', () => {
  it('answers APP_LOCKED on the service channels while locked, and FAILED_PRECONDITION with no active profile', async () => {
    await call('app.lock', {});
    expect((await refusal('wallets.list', {})).code).toBe('APP_LOCKED');
    expect((await refusal('exports.decryptBundle', { bundle: '{}', encryptionKeyName: 'vault', organizationId: 'o' })).code).toBe('APP_LOCKED');
    await call('app.unlock', {});

    const active = (await call('profiles.getActive', {}))!;
    await call('profiles.setActive', { id: null });
    expect((await refusal('policies.list', {})).code).toBe('FAILED_PRECONDITION');
    await call('profiles.setActive', { id: active.id });
    expect(await call('wallets.list', {})).toHaveLength(2);
  });
});
