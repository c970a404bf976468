/**
 * Walks EVERY channel with malformed inputs against the real services (real OS keychain via the secret-service
 * wrapper) and asserts typed errors, no throw, no handler reached, and a data directory left byte-for-byte as it was.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channels, ipcContract, type Channel, type ChannelInput } from '../../src/shared/ipc/contract';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import { createDispatch, type Dispatch } from '../../src/main/ipc/register';
import { createRendererUrlCheck } from '../../src/main/ipc/sender';
import { MemoryClipboard } from '../support/memory-clipboard';

const RENDERER_INDEX = '/opt/QuorumKey/out/renderer/index.html';
const RENDERER_URL = `file://${RENDERER_INDEX}`;
const PROFILE_ID = '4b1e3f0c-5a0e-4c55-9d33-1f2a7e9c0b11';
const ACTIVITY_ID = '7c0e2a9d-1b3f-4e5a-8c6d-2f1e0a9b8c7d';
const FINGERPRINT = `sha256:${'0f'.repeat(32)}`;
const ETHEREUM_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
  name: 'first',
} as const;

const SIGNER = '0x' + '12'.repeat(20);
const SIGN_TRANSACTION = { operation: 'sign_transaction', signWith: SIGNER, unsignedTransaction: '02c0', type: 'TRANSACTION_TYPE_ETHEREUM' } as const;

/** One valid input per channel, the base every malformed variant is derived from. */
const validInputs: { [C in Channel]: ChannelInput<C> } = {
  'app.info': {},
  'app.lock': {},
  'app.unlock': { passphrase: 'correct horse battery' },
  'app.reauthenticate': { touchId: true },
  'app.setUnlockPassphrase': { passphrase: 'correct horse battery', currentPassphrase: 'old passphrase' },
  'app.getSettings': {},
  'app.setSettings': { idleLockMinutes: 5, theme: 'dark' },
  'app.setSecretOnScreen': { onScreen: true },
  'clipboard.copySecret': { text: 'abandon abandon about' },
  'clipboard.clearPasted': { text: 'abandon abandon about' },
  'keys.generateApiKey': { name: 'fresh', curve: 'secp256k1' },
  'keys.importApiKey': { name: 'imported', curve: 'p256', privateKey: '11'.repeat(32) },
  'keys.importTkcliApiKey': { name: 'tk', privateKeyFile: '/tmp/none.private', publicKeyFile: '/tmp/none.public' },
  'keys.listApiKeys': {},
  'keys.renameApiKey': { name: 'ops', newName: 'ops2' },
  'keys.deleteApiKey': { name: 'ops' },
  'keys.generateEncryptionKey': { name: 'target2' },
  'keys.importEncryptionKey': { name: 'target3', privateKey: '22'.repeat(32) },
  'keys.listEncryptionKeys': {},
  'keys.deleteEncryptionKey': { name: 'target' },
  'profiles.list': {},
  'profiles.get': { id: PROFILE_ID },
  'profiles.getActive': {},
  'profiles.add': {
    name: 'Hosted',
    kind: 'hosted',
    baseUrl: 'https://api.turnkey.com',
    organizationId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    apiKeyName: 'ops',
  },
  'profiles.update': { id: PROFILE_ID, changes: { name: 'Renamed' } },
  'profiles.remove': { id: PROFILE_ID },
  'profiles.setActive': { id: PROFILE_ID },
  'requests.pending': {},
  'requests.cancel': { id: 'r1' },
  'sandbox.status': {},
  'sandbox.start': {},
  'sandbox.stop': {},
  'sandbox.reset': { confirmation: 'reset the Sandbox' },
  'sandbox.restoreProfile': {},
  'activities.list': { status: ['ACTIVITY_STATUS_COMPLETED'], type: ['ACTIVITY_TYPE_CREATE_WALLET'], limit: 10 },
  'activities.get': { activityId: ACTIVITY_ID },
  'approvals.whoami': {},
  'approvals.pending': {},
  'approvals.approve': { fingerprint: FINGERPRINT },
  'approvals.reject': { fingerprint: FINGERPRINT },
  'approvals.stampToFile': { fingerprint: FINGERPRINT, file: 'approval.json' },
  'approvals.postStampedFile': { file: 'approval.json' },
  'organization.lookup': {},
  'exports.saveBundle': { activityId: ACTIVITY_ID, file: 'treasury.json' },
  'organization.updateRootQuorum': { userIds: [ACTIVITY_ID], threshold: 1 },
  'users.create': { userName: 'Ann', tagIds: [ACTIVITY_ID], apiKey: { kind: 'public-key', apiKeyName: 'ann', publicKey: '02' + 'ab'.repeat(32), curve: 'p256' } },
  'users.delete': { userIds: [ACTIVITY_ID] },
  'users.setTags': { userId: ACTIVITY_ID, tagIds: [] },
  'users.createTag': { tagName: 'ops', userIds: [ACTIVITY_ID] },
  'users.addApiKey': { userId: ACTIVITY_ID, apiKey: { kind: 'keychain', keyName: 'ann' } },
  'users.removeApiKeys': { userId: ACTIVITY_ID, apiKeyIds: [ACTIVITY_ID] },
  'policies.list': {},
  'policies.get': { policyId: ACTIVITY_ID },
  'policies.create': { name: 'allow ops', effect: 'EFFECT_ALLOW', condition: 'true', consensus: 'true', notes: 'n' },
  'policies.update': { policyId: ACTIVITY_ID, changes: { name: 'renamed' } },
  'policies.delete': { policyId: ACTIVITY_ID },
  'wallets.list': {},
  'wallets.accounts': { walletId: ACTIVITY_ID },
  'policies.rehearse': { draft: [{ policyId: ACTIVITY_ID, deleted: true }], last: 10 },
  'policies.dryRun': { request: SIGN_TRANSACTION },
  'signing.describe': { activityId: ACTIVITY_ID },
  'signing.preview': { request: SIGN_TRANSACTION },
  'signing.submit': { request: { operation: 'sign_raw_payload', signWith: SIGNER, payload: 'hello', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' } },
  'signing.result': { activityId: ACTIVITY_ID },
  'signing.stampToFile': { request: SIGN_TRANSACTION, file: 'sign-1.json' },
  'contracts.list': {},
  'contracts.check': { type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', address: SIGNER, definition: '[]' },
  'contracts.create': { type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', address: SIGNER, label: 'USDC', notes: 'n', definition: '[]' },
  'contracts.delete': { smartContractInterfaceId: ACTIVITY_ID },
  'tokens.list': {},
  'tokens.declare': { token: { family: 'ethereum', chainId: 1, address: SIGNER, symbol: 'ACME', decimals: 2 } },
  'tokens.remove': { token: { family: 'ethereum', chainId: 1, address: SIGNER } },
  'wallets.create': { name: 'Treasury', mnemonicLength: 12, accounts: [ETHEREUM_ACCOUNT] },
  'wallets.createAccounts': { walletId: ACTIVITY_ID, accounts: [ETHEREUM_ACCOUNT] },
  'privateKeys.list': {},
  'privateKeys.create': { name: 'hot', curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] },
  'exports.reveal': { subject: { kind: 'wallet', walletId: ACTIVITY_ID }, target: { kind: 'ephemeral' }, keyFormat: 'hexadecimal' },
  'exports.decryptBundle': {
    bundle: '{"version":"v1.0.0","data":"00","dataSignature":"00","enclaveQuorumPublic":"04"}',
    encryptionKeyName: 'target',
    organizationId: PROFILE_ID,
    signerPublicKey: '04' + 'ab'.repeat(64),
    keyFormat: 'solana',
  },
  'imports.wallet': { name: 'Imported', mnemonic: 'abandon '.repeat(11) + 'about', passphrase: 'p', accounts: [ETHEREUM_ACCOUNT] },
  'imports.privateKey': {
    name: 'imported',
    privateKey: '33'.repeat(32),
    format: 'hexadecimal',
    curve: 'CURVE_SECP256K1',
    addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
  },
};

const HUGE = 'x'.repeat(1_000_000);

/** Malformed variants of `valid`: non-objects, pollution keys, extra fields, and per field: wrong type, huge, absent. */
function malformedVariants(valid: Record<string, unknown>): unknown[] {
  const variants: unknown[] = [
    null,
    'keys',
    42,
    [],
    [valid],
    JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(valid).slice(1, -1) || '"x": 1'}}`),
    { ...valid, constructor: { prototype: { polluted: true } } },
    { ...valid, privateKey: 'ff'.repeat(32), extra: true },
    { ...valid, [HUGE]: 1 },
  ];
  for (const [field, value] of Object.entries(valid)) {
    variants.push({ ...valid, [field]: typeof value === 'number' ? 'five' : 17 });
    variants.push({ ...valid, [field]: HUGE });
    variants.push({ ...valid, [field]: { toString: 'x' } });
    const { [field]: _removed, ...without } = valid;
    variants.push(without);
  }
  return variants;
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files[path] = await readFile(path, 'utf8');
    }
  }
  return files;
}

let dataDir: string;
let services: MainServices;
let dispatch: Dispatch;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-ipc-'));
  services = createMainServices({ dataDir, keychainServiceName: `QuorumKey-test-${randomUUID()}`, clipboard: new MemoryClipboard() });
  const handlers = createMainHandlers(services, {
    app: { version: '0.0.0-test', platform: process.platform, packaged: false },
    // Nothing here redirects a profile; declining makes any change that needed the user's consent fail loudly.
    confirm: async () => false,
  });
  dispatch = createDispatch({ handlers, isTrustedSender: createRendererUrlCheck({ rendererIndexPath: RENDERER_INDEX }) });
  // Some real state, so that a malformed rename or delete that slipped through would show.
  for (const [name, input] of [
    ['keys.generateApiKey', { name: 'ops' }],
    ['keys.generateEncryptionKey', { name: 'target' }],
    ['app.setSettings', { idleLockMinutes: 3 }],
  ] as const) {
    expect(await dispatch(name, input, RENDERER_URL), name).toMatchObject({ ok: true });
  }
});

afterAll(async () => {
  for (const key of await services.keychain.listApiKeys()) await services.keychain.deleteApiKey(key.name);
  for (const key of await services.keychain.listEncryptionKeys()) await services.keychain.deleteEncryptionKey(key.name);
  await rm(dataDir, { recursive: true, force: true });
});

describe('every channel with malformed input', () => {
  it('answers REQUEST_INVALID, never throws, and writes nothing', async () => {
    const before = await snapshot(dataDir);
    expect(Object.keys(before).length).toBeGreaterThan(0);
    let walked = 0;
    for (const name of channels) {
      for (const input of malformedVariants(validInputs[name])) {
        // Only variants the contract itself refuses: a variant that happens to be valid would legitimately run.
        if (ipcContract[name].input.safeParse(input).success) continue;
        const result = await dispatch(name, input, RENDERER_URL);
        expect(result, `${name} ${JSON.stringify(input)?.slice(0, 120)}`).toMatchObject({
          ok: false,
          error: { code: 'REQUEST_INVALID' },
        });
        expect(JSON.stringify(result).length).toBeLessThan(5_000);
        walked += 1;
      }
    }
    expect(walked).toBeGreaterThan(channels.length * 8);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await snapshot(dataDir)).toEqual(before);
    expect((await services.keychain.listApiKeys()).map((key) => key.name)).toEqual(['ops']);
  });

  it('the valid inputs themselves pass the contract, so the variants test the field they change', () => {
    for (const name of channels) expect(ipcContract[name].input.safeParse(validInputs[name]).success, name).toBe(true);
  });

  it('serves a real keychain call end to end, with no private key in the answer', async () => {
    const result = await dispatch('keys.listApiKeys', {}, RENDERER_URL);
    expect(result).toMatchObject({ ok: true, value: [{ name: 'ops', curve: 'p256', missing: false }] });
    expect(JSON.stringify(result)).not.toMatch(/private/i);
  });
});
