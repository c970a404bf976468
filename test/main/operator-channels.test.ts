/**
 * The operator channels end to end through `dispatch`, over the real composition root, the real OS keychain (run
 * under test/support/with-secret-service.sh) and the Sandbox: the organization lookup (with which policies are active
 * now), users and tags, the root
 * quorum, and saving an approved export for the offline desktop.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { parseExportFile } from '../../src/shared/offline/export-file';
import { EXPORTS_DIR, SIGNATURES_DIR } from '../../src/main/services';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';

let bed: DispatchBed;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-operator-' });
  await call('sandbox.start', {});
});

afterAll(() => bed.close());

describe('the organization lookup', () => {
  it("says which policies' time windows hold now, by main's clock", async () => {
    // Neither policy matches any activity: the later tests' activities are decided as before.
    const lapsed = await call('policies.create', {
      name: 'lapsed window',
      effect: 'EFFECT_ALLOW',
      condition: 'false',
      time: "time.now < Timestamp('2020-01-01T00:00:00Z')",
    });
    const always = await call('policies.create', { name: 'no window', effect: 'EFFECT_ALLOW', condition: 'false' });
    expect([lapsed.state, always.state]).toEqual(['completed', 'completed']);
    const { policies } = await call('organization.lookup', {});
    expect(Object.fromEntries(policies.map((policy) => [policy.policyName, policy.activeNow]))).toEqual({
      'lapsed window': false,
      'no window': true,
    });
  });
});

describe('users, tags and the root quorum', () => {
  it('creates a user with a keychain key and one with a pasted key, tags them, and reads it all back by name', async () => {
    // The renderer makes the keychain key first; a key the keychain does not have is refused.
    expect(await bed.dispatch('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } })).toMatchObject({
      ok: false,
      error: { code: 'KEY_NOT_FOUND' },
    });
    await call('keys.generateApiKey', { name: 'bea' });
    const made = await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
    expect(made.state).toBe('completed');
    const pasted = (await call('keys.generateApiKey', { name: 'cy laptop', curve: 'secp256k1' })).publicKey;
    const cy = await call('users.create', {
      userName: 'Cy',
      apiKey: { kind: 'public-key', apiKeyName: 'cy laptop', publicKey: pasted, curve: 'secp256k1' },
    });
    const bea = made.state === 'completed' ? made.result.userId : '';
    const cyId = cy.state === 'completed' ? cy.result.userId : '';
    const tag = await call('users.createTag', { tagName: 'operators', userIds: [bea, cyId] });
    expect(tag.state).toBe('completed');

    const organization = await call('organization.lookup', {});
    const byName = new Map(organization.users.map((user) => [user.userName, user]));
    const tagId = organization.tags.find((candidate) => candidate.tagName === 'operators')?.tagId;
    expect(byName.get('Bea')).toMatchObject({
      userTags: [tagId],
      apiKeys: [{ apiKeyName: 'bea', publicKey: (await bed.services.keychain.getApiKeyPublic('bea')).publicKey }],
    });
    // The credential type is what a consensus reading `credentials` tests.
    expect(byName.get('Cy')?.apiKeys).toEqual([
      expect.objectContaining({ apiKeyName: 'cy laptop', publicKey: pasted, credentialType: 'CREDENTIAL_TYPE_API_KEY_SECP256K1' }),
    ]);
    expect(organization.rootQuorum).toEqual({ userIds: [organization.users.find((user) => user.userName === 'Root user')?.userId], threshold: 1 });

    const second = await call('users.createTag', { tagName: 'auditors', userIds: [] });
    const auditors = second.state === 'completed' ? second.result.tagId : '';
    expect((await call('users.setTags', { userId: cyId, tagIds: [auditors] })).state).toBe('completed');
    // An empty list reads as "no change" on the wire, so it is refused rather than silently ignored.
    expect(await bed.dispatch('users.setTags', { userId: cyId, tagIds: [] })).toMatchObject({ ok: false, error: { code: 'REQUEST_INVALID' } });
    const cyKey = byName.get('Cy')!.apiKeys[0]!.apiKeyId;
    expect((await call('users.removeApiKeys', { userId: cyId, apiKeyIds: [cyKey] })).state).toBe('completed');
    const after = await call('organization.lookup', {});
    expect(after.users.find((user) => user.userId === cyId)).toMatchObject({ userTags: [auditors], apiKeys: [] });

    // Declared tokens travel with the lookup, so the approval list reads their amounts as the signing card does.
    expect(organization.declaredTokens).toEqual([]);
    const acme = { family: 'ethereum', chainId: 1, address: '0x00000000000000000000000000000000000ace01', symbol: 'ACME', decimals: 2 } as const;
    await call('tokens.declare', { token: acme });
    expect((await call('organization.lookup', {})).declaredTokens).toEqual([{ ...acme, address: getAddress(acme.address) }]);
  });

  it('a new root quorum applies at once while the root alone decides, and then waits for the second member', async () => {
    const { users } = await call('organization.lookup', {});
    const root = users.find((user) => user.userName === 'Root user')!.userId;
    const bea = users.find((user) => user.userName === 'Bea')!.userId;
    expect((await call('organization.updateRootQuorum', { userIds: [root, bea], threshold: 2 })).state).toBe('completed');
    expect((await call('organization.lookup', {})).rootQuorum).toEqual({ userIds: [root, bea], threshold: 2 });
    const cy = users.find((user) => user.userName === 'Cy')!.userId;
    const waiting = await call('users.delete', { userIds: [cy] });
    expect(waiting.state).toBe('consensus-needed');
    expect(waiting.activity.type).toBe('ACTIVITY_TYPE_DELETE_USERS');
  });
});

describe('saving an export', () => {
  it('writes the completed export with what the offline desktop preselects from, never overwriting', async () => {
    // Back to the root alone: the new quorum's second member approves it.
    const { users, organizationId } = await call('organization.lookup', {});
    const root = users.find((user) => user.userName === 'Root user')!.userId;
    const proposal = await call('organization.updateRootQuorum', { userIds: [root], threshold: 1 });
    const bea = await bed.services.profiles.add({
      name: 'Bea',
      kind: 'hosted',
      baseUrl: (await call('sandbox.status', {})).baseUrl!,
      organizationId,
      apiKeyName: 'bea',
      enclaveSignerPublicKey: (await call('sandbox.status', {})).enclaveSignerPublicKey!,
    });
    const sandboxProfile = (await bed.services.profiles.getActive())!;
    await bed.services.profiles.setActive(bea.id);
    await call('approvals.approve', { fingerprint: proposal.activity.fingerprint });
    await bed.services.profiles.setActive(sandboxProfile.id);

    const key = await call('keys.generateEncryptionKey', { name: 'offline desk' });
    const wallet = await call('wallets.create', {
      name: 'treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    });
    const walletId = wallet.state === 'completed' ? wallet.result.walletId : '';
    const revealed = await call('exports.reveal', {
      subject: { kind: 'wallet', walletId },
      target: { kind: 'encryption-key', name: 'offline desk' },
    });
    expect(revealed.state).toBe('revealed');
    const activityId = revealed.state === 'revealed' ? revealed.activityId : '';

    const saved = await call('exports.saveBundle', { activityId, file: 'treasury.json' });
    expect(saved).toEqual({ file: join(bed.dataDir, EXPORTS_DIR, 'treasury.json'), exportsDir: join(bed.dataDir, EXPORTS_DIR) });
    expect((await stat(saved.file)).mode & 0o777).toBe(0o600);
    expect(parseExportFile(await readFile(saved.file, 'utf8'))).toMatchObject({
      activityId,
      organizationId,
      exported: 'wallet',
      targetPublicKey: key.publicKey,
    });

    const again = await bed.dispatch('exports.saveBundle', { activityId, file: 'treasury.json' });
    expect(again).toMatchObject({ ok: false, error: { code: 'FILE_ERROR' } });
    const notExport = await bed.dispatch('exports.saveBundle', { activityId: proposal.activity.id, file: 'quorum.json' });
    expect(notExport).toMatchObject({ ok: false, error: { code: 'REQUEST_INVALID' } });
  });
});

describe('saving a completed signature', () => {
  it('writes the signature main read from the activity, never overwriting, and only for a signed request', async () => {
    const wallet = await call('wallets.create', {
      name: 'payouts',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    });
    if (wallet.state !== 'completed') throw new Error(`create wallet is ${wallet.state}`);
    const signed = await call('signing.submit', {
      request: {
        operation: 'sign_raw_payload',
        signWith: wallet.result.addresses[0]!,
        payload: 'hello',
        encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
        hashFunction: 'HASH_FUNCTION_KECCAK256',
      },
    });
    if (signed.state !== 'completed') throw new Error(`signing is ${signed.state}`);

    const saved = await call('signing.saveResult', { activityId: signed.activity.id, file: 'hello.json' });
    expect(saved).toEqual({ file: join(bed.dataDir, SIGNATURES_DIR, 'hello.json'), signaturesDir: join(bed.dataDir, SIGNATURES_DIR) });
    expect((await stat(saved.file)).mode & 0o777).toBe(0o600);
    const { result } = await call('signing.result', { activityId: signed.activity.id });
    expect(JSON.parse(await readFile(saved.file, 'utf8'))).toEqual({
      activityId: signed.activity.id,
      organizationId: signed.activity.organizationId,
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      fingerprint: signed.activity.fingerprint,
      ...result,
    });

    expect(await bed.dispatch('signing.saveResult', { activityId: signed.activity.id, file: 'hello.json' })).toMatchObject({
      ok: false,
      error: { code: 'ALREADY_EXISTS' },
    });
    const notSigning = await bed.dispatch('signing.saveResult', { activityId: wallet.activity.id, file: 'wallet.json' });
    expect(notSigning).toMatchObject({ ok: false, error: { code: 'REQUEST_INVALID' } });
  });
});

describe('the Sandbox is recoverable', () => {
  it('restores its removed profile, resets to a new organization only with the typed phrase, and stops', async () => {
    const before = await call('sandbox.status', {});
    await bed.services.profiles.remove(before.profileId!);
    const restored = await call('sandbox.restoreProfile', {});
    expect(restored).toMatchObject({ state: 'running', organizationId: before.organizationId });
    expect((await bed.services.profiles.list()).filter((profile) => profile.kind === 'sandbox')).toHaveLength(1);

    expect(await bed.dispatch('sandbox.reset', { confirmation: 'reset' })).toMatchObject({ ok: false, error: { code: 'REQUEST_INVALID' } });
    await bed.services.profiles.setActive(restored.profileId);
    const reset = await call('sandbox.reset', { confirmation: 'reset the Sandbox' });
    expect(reset.state).toBe('running');
    expect(reset.organizationId).not.toBe(before.organizationId);
    expect(await call('wallets.list', {})).toEqual([]);
    expect((await call('organization.lookup', {})).users.map((user) => user.userName)).toEqual(['Root user']);

    expect(await call('sandbox.stop', {})).toMatchObject({ running: false, state: 'stopped' });
  });
});
