/**
 * A wallet account's key is derived from its wallet's seed and checked once, then kept for the signatures that follow
 * (Enclave.withSigningKey): these hold a kept key to sign byte for byte as a key derived for the one signature does,
 * and to be zeroed when its account or wallet is deleted, a snapshot is restored, or the service stops.
 *
 * What the enclave keeps is seen where it hands a key to the signing workers (SigningPool.run): a kept key is the same
 * buffer signature after signature, and a zeroed one reads all zeros.
 */
import { encryptWalletToBundle } from '@turnkey/crypto';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex } from 'viem';
import { sign } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { SigningPool } from '../../../src/service/enclave/signing-pool';
import type { SigningKey } from '../../../src/service/enclave/signing';
import { startTestService, type Reply, type TestService } from '../../support/service';

const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const PATHS = ["m/44'/60'/0'/0/0", "m/44'/60'/0'/0/1"] as const;
const DIGEST = `0x${'cd'.repeat(32)}` as const;

let t: TestService | undefined;
let walletId: string;
let addresses: string[];
/** Watches the keys handed to the signing workers (it still runs them). */
let handing: MockInstance<SigningPool['run']>;
/** The keys handed to the signing workers, one per signature, in order. */
const handedKeys = (): SigningKey[] => handing.mock.calls.map(([key]) => key);

async function submit(name: string, type: string, parameters: unknown): Promise<Reply> {
  t!.clock.advance(1);
  const reply = await t!.submit(name, type, parameters);
  expect([reply.status, reply.body.activity?.status], JSON.stringify(reply.body)).toEqual([200, 'ACTIVITY_STATUS_COMPLETED']);
  return reply;
}

async function signWith(address: string): Promise<{ r: string; s: string; v: string }> {
  const reply = await submit('sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
    signWith: address,
    payload: DIGEST,
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_NO_OP',
  });
  return reply.body.activity.result.signRawPayloadResult;
}

/** The signature of DIGEST by the key at `path`, derived by @scure/bip32 and signed by viem (RFC 6979, as the workers). */
async function expectedSignature(path: string): Promise<{ r: string; s: string; v: string }> {
  const privateKey = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive(path).privateKey!;
  const { r, s, yParity } = await sign({ hash: DIGEST, privateKey: bytesToHex(privateKey) });
  return { r: r.slice(2), s: s.slice(2), v: `0${yParity}` };
}

const isZeroed = (key: SigningKey) => key.secret.every((byte) => byte === 0);

beforeEach(async () => {
  handing = vi.spyOn(SigningPool.prototype, 'run');
  t = await startTestService();
  const init = await submit('init_import_wallet', 'ACTIVITY_TYPE_INIT_IMPORT_WALLET', { userId: t.info.rootUserId });
  const encryptedBundle = await encryptWalletToBundle({
    mnemonic: MNEMONIC,
    importBundle: init.body.activity.result.initImportWalletResult.importBundle,
    userId: t.info.rootUserId,
    organizationId: t.info.organizationId,
    dangerouslyOverrideSignerPublicKey: t.info.enclaveSignerPublicKey,
  });
  const imported = await submit('import_wallet', 'ACTIVITY_TYPE_IMPORT_WALLET', {
    userId: t.info.rootUserId,
    walletName: 'imported',
    encryptedBundle,
    accounts: PATHS.map((path) => ({ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path, addressFormat: 'ADDRESS_FORMAT_ETHEREUM' })),
  });
  ({ walletId, addresses } = imported.body.activity.result.importWalletResult);
});

afterEach(async () => {
  await t?.close();
  t = undefined;
  vi.restoreAllMocks();
});

describe('wallet-account keys kept derived for signing', () => {
  it('sign byte for byte as a key derived for the one signature, the second time with the kept key', async () => {
    const expected = await expectedSignature(PATHS[0]);
    expect(await signWith(addresses[0]!)).toEqual(expected);
    expect(await signWith(addresses[0]!)).toEqual(expected);
    const [first, second] = handedKeys();
    expect(handedKeys()).toHaveLength(2);
    expect(second!.secret).toBe(first!.secret);
    expect(isZeroed(first!)).toBe(false);

    // Another account of the same wallet has a key of its own.
    expect(await signWith(addresses[1]!)).toEqual(await expectedSignature(PATHS[1]));
    expect(handedKeys()[2]!.secret).not.toBe(first!.secret);
  });

  it("are zeroed when their account is deleted, and every account's when their wallet is", async () => {
    await signWith(addresses[0]!);
    await signWith(addresses[1]!);
    const [first, second] = handedKeys();
    const listed = await t!.query('list_wallet_accounts', { walletId });
    const secondAccountId = listed.body.accounts.find((account: { path: string }) => account.path === PATHS[1]).walletAccountId;

    await submit('delete_wallet_accounts', 'ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS', {
      walletAccountIds: [secondAccountId],
      deleteWithoutExport: true,
    });
    expect([isZeroed(first!), isZeroed(second!)]).toEqual([false, true]);

    await submit('delete_wallets', 'ACTIVITY_TYPE_DELETE_WALLETS', { walletIds: [walletId], deleteWithoutExport: true });
    expect(isZeroed(first!)).toBe(true);
  });

  it('are zeroed when a snapshot is restored, derived again after it, and zeroed when the service stops', async () => {
    const taken = await t!.post('/sandbox/v1/snapshot', { organizationId: t!.info.organizationId });
    expect(taken.status).toBe(200);
    const expected = await signWith(addresses[0]!);
    const beforeRestore = handedKeys()[0]!;

    const restored = await t!.post('/sandbox/v1/restore', { organizationId: t!.info.organizationId, snapshotId: taken.body.snapshotId });
    expect(restored.status).toBe(200);
    expect(isZeroed(beforeRestore)).toBe(true);

    expect(await signWith(addresses[0]!)).toEqual(expected);
    const afterRestore = handedKeys()[1]!;
    expect(afterRestore.secret).not.toBe(beforeRestore.secret);
    expect(isZeroed(afterRestore)).toBe(false);

    await t!.close();
    t = undefined;
    expect(isZeroed(afterRestore)).toBe(true);
  });
});
