/**
 * Export/import round trips between the local service and Turnkey's official packages: `@turnkey/http` drives the
 * operations, `@turnkey/crypto` decrypts exports (pinned to the service's signer key) and encrypts imports.
 */
import { decryptExportBundle, encryptPrivateKeyToBundle, encryptWalletToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressFor } from '../../src/service/enclave/addresses';
import { deriveKey, publicKeyFromPrivate } from '../../src/service/enclave/derivation';
import { mnemonicToSeed } from '../../src/service/enclave/mnemonic';
import { hexToBytes } from '../../src/shared/crypto/encoding';
import { startTestService, type TestService } from '../support/service';

const ETHEREUM = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

/** @turnkey/crypto's decryptExportBundle pinned to this service's enclave signer and organization. */
function decryptFromService(exportBundle: string, target: { privateKey: string }, returnMnemonic: boolean): Promise<string> {
  return decryptExportBundle({
    exportBundle,
    embeddedKey: target.privateKey,
    organizationId: service.info.organizationId,
    dangerouslyOverrideSignerPublicKey: service.info.enclaveSignerPublicKey,
    returnMnemonic,
  });
}

async function addressesOf(mnemonic: string, accounts: readonly (typeof ETHEREUM | typeof SOLANA)[]): Promise<string[]> {
  const seed = await mnemonicToSeed(mnemonic);
  return accounts.map((account) => {
    const key = deriveKey({ seed, curve: account.curve, path: account.path });
    return addressFor({ curve: account.curve, publicKey: key.publicKey, format: account.addressFormat });
  });
}

describe('export with @turnkey/crypto', () => {
  it('a created wallet decrypts to a mnemonic whose addresses equal the service’s, and is then flagged exported', async () => {
    const client = service.client();
    const created = await client.createWallet({
      ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'),
      parameters: { walletName: 'export me', accounts: [ETHEREUM, SOLANA], mnemonicLength: 24 },
    });
    const { walletId, addresses } = created.activity.result.createWalletResult!;
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    const target = generateP256KeyPair();
    const exported = await client.exportWallet({
      ...service.nextEnvelope('ACTIVITY_TYPE_EXPORT_WALLET'),
      parameters: { walletId, targetPublicKey: target.publicKeyUncompressed },
    });
    const mnemonic = await decryptFromService(exported.activity.result.exportWalletResult!.exportBundle, target, true);
    expect(mnemonic.split(' ')).toHaveLength(24);
    expect(await addressesOf(mnemonic, [ETHEREUM, SOLANA])).toEqual(addresses);

    const { wallet } = await client.getWallet({ organizationId: service.info.organizationId, walletId });
    expect(wallet).toMatchObject({ walletId, exported: true, imported: false });
  });

  it('a private key and a wallet account export to the keys behind their addresses', async () => {
    const client = service.client();
    const created = await client.createPrivateKeys({
      ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'),
      parameters: { privateKeys: [{ privateKeyName: 'k1', curve: 'CURVE_ED25519', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_SOLANA'] }] },
    });
    const [key] = created.activity.result.createPrivateKeysResultV2!.privateKeys;
    const privateKeyId = key?.privateKeyId;
    const solanaAddress = key?.addresses?.[0]?.address;
    if (privateKeyId === undefined || solanaAddress === undefined) throw new Error('create_private_keys returned no key or address');
    const target = generateP256KeyPair();
    const exported = await client.exportPrivateKey({
      ...service.nextEnvelope('ACTIVITY_TYPE_EXPORT_PRIVATE_KEY'),
      parameters: { privateKeyId, targetPublicKey: target.publicKeyUncompressed },
    });
    const secretHex = await decryptFromService(exported.activity.result.exportPrivateKeyResult!.exportBundle, target, false);
    const publicKey = publicKeyFromPrivate('CURVE_ED25519', hexToBytes(secretHex, 'exported key'));
    expect(addressFor({ curve: 'CURVE_ED25519', publicKey, format: 'ADDRESS_FORMAT_SOLANA' })).toBe(solanaAddress);

    const wallet = await client.createWallet({
      ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'),
      parameters: { walletName: 'account export', accounts: [ETHEREUM] },
    });
    const address = wallet.activity.result.createWalletResult!.addresses[0]!;
    const accountTarget = generateP256KeyPair();
    const accountExport = await client.exportWalletAccount({
      ...service.nextEnvelope('ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT'),
      parameters: { address, targetPublicKey: accountTarget.publicKeyUncompressed },
    });
    const accountKey = await decryptFromService(accountExport.activity.result.exportWalletAccountResult!.exportBundle, accountTarget, false);
    const accountPublic = publicKeyFromPrivate('CURVE_SECP256K1', hexToBytes(accountKey, 'exported account key'));
    expect(addressFor({ curve: 'CURVE_SECP256K1', publicKey: accountPublic, format: 'ADDRESS_FORMAT_ETHEREUM' })).toBe(address);
  });
});

describe('import with @turnkey/crypto', () => {
  it('encryptWalletToBundle output imports and yields the expected addresses, flagged imported', async () => {
    const client = service.client();
    const init = await client.initImportWallet({
      ...service.nextEnvelope('ACTIVITY_TYPE_INIT_IMPORT_WALLET'),
      parameters: { userId: service.info.rootUserId },
    });
    const encryptedBundle = await encryptWalletToBundle({
      mnemonic: MNEMONIC,
      importBundle: init.activity.result.initImportWalletResult!.importBundle,
      userId: service.info.rootUserId,
      organizationId: service.info.organizationId,
      dangerouslyOverrideSignerPublicKey: service.info.enclaveSignerPublicKey,
    });
    const imported = await client.importWallet({
      ...service.nextEnvelope('ACTIVITY_TYPE_IMPORT_WALLET'),
      parameters: { userId: service.info.rootUserId, walletName: 'imported', encryptedBundle, accounts: [ETHEREUM, SOLANA] },
    });
    expect(imported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const result = imported.activity.result.importWalletResult!;
    expect(result.addresses).toEqual(await addressesOf(MNEMONIC, [ETHEREUM, SOLANA]));
    const { wallet } = await client.getWallet({ organizationId: service.info.organizationId, walletId: result.walletId });
    expect(wallet).toMatchObject({ imported: true, exported: false });
  });

  it.each([
    ['HEXADECIMAL', 'CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM'],
    ['SOLANA', 'CURVE_ED25519', 'ADDRESS_FORMAT_SOLANA'],
  ] as const)('encryptPrivateKeyToBundle (%s) output imports and yields the expected address', async (keyFormat, curve, addressFormat) => {
    const client = service.client();
    const secret = deriveKey({ seed: await mnemonicToSeed(MNEMONIC), curve, path: curve === 'CURVE_ED25519' ? SOLANA.path : ETHEREUM.path });
    const expected = addressFor({ curve, publicKey: secret.publicKey, format: addressFormat });
    const hex = Buffer.from(secret.privateKey).toString('hex');
    const privateKey =
      keyFormat === 'HEXADECIMAL' ? hex : (await import('../../src/shared/crypto/key-formats')).formatPrivateKey(secret.privateKey, 'solana');
    const init = await client.initImportPrivateKey({
      ...service.nextEnvelope('ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY'),
      parameters: { userId: service.info.rootUserId },
    });
    const encryptedBundle = await encryptPrivateKeyToBundle({
      privateKey,
      keyFormat,
      importBundle: init.activity.result.initImportPrivateKeyResult!.importBundle,
      userId: service.info.rootUserId,
      organizationId: service.info.organizationId,
      dangerouslyOverrideSignerPublicKey: service.info.enclaveSignerPublicKey,
    });
    const imported = await client.importPrivateKey({
      ...service.nextEnvelope('ACTIVITY_TYPE_IMPORT_PRIVATE_KEY'),
      parameters: {
        userId: service.info.rootUserId,
        privateKeyName: `imported ${keyFormat}`,
        encryptedBundle,
        curve,
        addressFormats: [addressFormat],
      },
    });
    expect(imported.activity.failure).toBeUndefined();
    expect(imported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(imported.activity.result.importPrivateKeyResult!.addresses).toEqual([{ format: addressFormat, address: expected }]);
    const { privateKey: stored } = await client.getPrivateKey({
      organizationId: service.info.organizationId,
      privateKeyId: imported.activity.result.importPrivateKeyResult!.privateKeyId,
    });
    expect(stored).toMatchObject({ imported: true, exported: false, curve });
  });
});
