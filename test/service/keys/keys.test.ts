/**
 * Wallets, private keys, export/import and app proofs over HTTP: sealing at rest, the deleteWithoutExport rule,
 * every import refusal (reused, expired, another user's, bad checksum, curve/format mismatch) leaving nothing
 * stored, account pagination, and app proofs checked with @turnkey/crypto.
 */
import { readFileSync } from 'node:fs';
import { generateP256KeyPair, verifyAppProofSignature } from '@turnkey/crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IMPORT_TARGET_TTL_MS } from '../../../src/service/families/export-import';
import { decryptExportBundle, decodeWalletPlaintext, encryptToImportBundle } from '../../../src/shared/crypto/bundles';
import { bytesToHex, utf8Decode, utf8Encode } from '../../../src/shared/crypto/encoding';
import { type Reply, startTestService, type TestKey, type TestService } from '../../support/service';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' };
const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
/** MNEMONIC with its last word changed: every word valid, checksum wrong. */
const BAD_CHECKSUM = 'legal winner thank year wave sausage worth useful legal winner thank thank';

let service: TestService;

beforeEach(async () => {
  service = await startTestService();
});
afterEach(async () => {
  await service.close();
});

/** Submits with a fresh timestamp each time (identical bodies are one idempotent activity). */
function submit(name: string, type: string, parameters: unknown, options: { key?: TestKey; generateAppProofs?: boolean } = {}): Promise<Reply> {
  service.clock.advance(1);
  return service.post(
    `/public/v1/submit/${name}`,
    {
      type,
      timestampMs: String(service.clock.now()),
      organizationId: service.info.organizationId,
      parameters,
      ...(options.generateAppProofs === undefined ? {} : { generateAppProofs: options.generateAppProofs }),
    },
    options.key === undefined ? {} : { key: options.key },
  );
}

function resultOf(reply: Reply, member: string) {
  expect(reply.status).toBe(200);
  expect(reply.body.activity.failure).toBeUndefined();
  expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return reply.body.activity.result[member];
}

/** The turnkeyErrorCode of a refusal, whether an HTTP error or a FAILED activity. */
function refusal(reply: Reply): string {
  if (reply.status !== 200) return reply.body.details[0].turnkeyErrorCode;
  expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_FAILED');
  return reply.body.activity.failure.details[0].turnkeyErrorCode;
}

async function createWallet(name: string, accounts: unknown[] = [ETHEREUM]) {
  return resultOf(await submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: name, accounts }), 'createWalletResult') as {
    walletId: string;
    addresses: string[];
  };
}

async function createKey(name: string) {
  const result = resultOf(
    await submit('create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [{ privateKeyName: name, curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }],
    }),
    'createPrivateKeysResultV2',
  );
  return result.privateKeys[0] as { privateKeyId: string; addresses: { format: string; address: string }[] };
}

async function exportPlaintext(name: string, type: string, parameters: Record<string, unknown>, member: string): Promise<Uint8Array> {
  const target = generateP256KeyPair();
  const result = resultOf(await submit(name, type, { ...parameters, targetPublicKey: target.publicKeyUncompressed }), member);
  return decryptExportBundle(result.exportBundle, {
    signerPublicKey: service.info.enclaveSignerPublicKey,
    organizationId: service.info.organizationId,
    targetPrivateKey: target.privateKey,
  });
}

async function initImport(kind: 'wallet' | 'private_key', userId = service.info.rootUserId, key?: TestKey): Promise<string> {
  const name = kind === 'wallet' ? 'init_import_wallet' : 'init_import_private_key';
  const type = kind === 'wallet' ? 'ACTIVITY_TYPE_INIT_IMPORT_WALLET' : 'ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY';
  const member = kind === 'wallet' ? 'initImportWalletResult' : 'initImportPrivateKeyResult';
  return resultOf(await submit(name, type, { userId }, key === undefined ? {} : { key }), member).importBundle;
}

function encryptTo(importBundle: string, plaintext: Uint8Array, userId = service.info.rootUserId): Promise<string> {
  return encryptToImportBundle({
    importBundle,
    plaintext,
    signerPublicKey: service.info.enclaveSignerPublicKey,
    organizationId: service.info.organizationId,
    userId,
  });
}

function importWallet(encryptedBundle: string, walletName = 'imported', options: { key?: TestKey; userId?: string } = {}) {
  return submit(
    'import_wallet',
    'ACTIVITY_TYPE_IMPORT_WALLET',
    { userId: options.userId ?? service.info.rootUserId, walletName, encryptedBundle, accounts: [ETHEREUM] },
    options.key === undefined ? {} : { key: options.key },
  );
}

async function walletCount(): Promise<number> {
  return (await service.query('list_wallets', {})).body.wallets.length;
}

describe('sealing at rest', () => {
  it('the database files hold neither the mnemonic nor the private key', async () => {
    const { walletId } = await createWallet('sealed');
    const mnemonic = decodeWalletPlaintext(
      await exportPlaintext('export_wallet', 'ACTIVITY_TYPE_EXPORT_WALLET', { walletId }, 'exportWalletResult'),
    ).mnemonic;
    const { privateKeyId } = await createKey('sealed key');
    const keyBytes = await exportPlaintext('export_private_key', 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY', { privateKeyId }, 'exportPrivateKeyResult');
    expect(mnemonic.split(' ')).toHaveLength(12);
    expect(keyBytes).toHaveLength(32);

    const path = service.store.path;
    const files = [path, `${path}-wal`].map((file) => {
      try {
        return readFileSync(file);
      } catch {
        return Buffer.alloc(0);
      }
    });
    const everything = Buffer.concat(files);
    expect(everything.length).toBeGreaterThan(0);
    // Both the key-material tables and the export activities live in these files: none may carry the secrets.
    for (const needle of [mnemonic, mnemonic.split(' ').slice(0, 3).join(' '), bytesToHex(keyBytes)]) {
      expect(everything.includes(Buffer.from(needle))).toBe(false);
    }
    expect(everything.includes(Buffer.from(keyBytes))).toBe(false);
    expect(everything.includes(Buffer.from(walletId))).toBe(true);
  });
});

describe('create, list, get', () => {
  it('create_wallet honours mnemonicLength, refuses other lengths, and lists accounts with pagination', async () => {
    const { walletId } = await createWallet('paged', []);
    const twentyFour = resultOf(
      await submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'long', accounts: [], mnemonicLength: 24 }),
      'createWalletResult',
    );
    const words = decodeWalletPlaintext(
      await exportPlaintext('export_wallet', 'ACTIVITY_TYPE_EXPORT_WALLET', { walletId: twentyFour.walletId }, 'exportWalletResult'),
    ).mnemonic;
    expect(words.split(' ')).toHaveLength(24);
    expect(refusal(await submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'bad', accounts: [], mnemonicLength: 13 }))).toBe(
      'MNEMONIC_INVALID',
    );

    const accounts = Array.from({ length: 5 }, (_, index) => ({ ...ETHEREUM, path: `m/44'/60'/0'/0/${index}` }));
    const derived = resultOf(
      await submit('create_wallet_accounts', 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', { walletId, accounts }),
      'createWalletAccountsResult',
    ).addresses as string[];
    const page = async (options: Record<string, string>) =>
      (await service.query('list_wallet_accounts', { walletId, paginationOptions: options })).body.accounts as {
        walletAccountId: string;
        address: string;
      }[];
    const first = await page({ limit: '2' });
    expect(first.map((a) => a.address)).toEqual(derived.slice(0, 2));
    const second = await page({ limit: '2', after: first[1]!.walletAccountId });
    expect(second.map((a) => a.address)).toEqual(derived.slice(2, 4));
    const before = await page({ limit: '2', before: second[1]!.walletAccountId });
    expect(before.map((a) => a.address)).toEqual(derived.slice(1, 3));

    const byPath = await service.query('get_wallet_account', { walletId, path: "m/44'/60'/0'/0/3" });
    expect(byPath.body.account.address).toBe(derived[3]);
    const duplicate = await submit('create_wallet_accounts', 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', { walletId, accounts: [accounts[0]] });
    expect(refusal(duplicate)).toBe('ALREADY_EXISTS');
  });

  it('refuses a curve/format mismatch for created keys and wallet accounts', async () => {
    const key = await submit('create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [{ privateKeyName: 'mismatch', curve: 'CURVE_ED25519', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }],
    });
    expect(refusal(key)).toBe('ADDRESS_FORMAT_INVALID');
    const wallet = await submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'mismatch',
      accounts: [{ ...ETHEREUM, curve: 'CURVE_ED25519', path: "m/44'/60'/0'/0'/0'" }],
    });
    expect(refusal(wallet)).toBe('ADDRESS_FORMAT_INVALID');
    expect((await service.query('list_private_keys', {})).body.privateKeys).toEqual([]);
    expect(await walletCount()).toBe(0);
  });
});

describe('deleteWithoutExport', () => {
  it('keeps a never-exported key unless the flag is set, and removes an exported one', async () => {
    const kept = await createKey('never exported');
    const refused = await submit('delete_private_keys', 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', { privateKeyIds: [kept.privateKeyId] });
    expect(refusal(refused)).toBe('NOT_EXPORTED');
    expect((await service.query('get_private_key', { privateKeyId: kept.privateKeyId })).status).toBe(200);

    const exported = await createKey('exported');
    await exportPlaintext(
      'export_private_key',
      'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY',
      { privateKeyId: exported.privateKeyId },
      'exportPrivateKeyResult',
    );
    expect((await service.query('get_private_key', { privateKeyId: exported.privateKeyId })).body.privateKey.exported).toBe(true);
    resultOf(
      await submit('delete_private_keys', 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', { privateKeyIds: [exported.privateKeyId] }),
      'deletePrivateKeysResult',
    );
    resultOf(
      await submit('delete_private_keys', 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', { privateKeyIds: [kept.privateKeyId], deleteWithoutExport: true }),
      'deletePrivateKeysResult',
    );
    expect((await service.query('list_private_keys', {})).body.privateKeys).toEqual([]);

    const { walletId } = await createWallet('never exported wallet');
    expect(refusal(await submit('delete_wallets', 'ACTIVITY_TYPE_DELETE_WALLETS', { walletIds: [walletId] }))).toBe('NOT_EXPORTED');
    resultOf(
      await submit('delete_wallets', 'ACTIVITY_TYPE_DELETE_WALLETS', { walletIds: [walletId], deleteWithoutExport: true }),
      'deleteWalletsResult',
    );
    expect(await walletCount()).toBe(0);
  });
});

describe('import refusals leave nothing stored', () => {
  it('a reused import target', async () => {
    const bundle = await encryptTo(await initImport('wallet'), utf8Encode(MNEMONIC));
    resultOf(await importWallet(bundle, 'first'), 'importWalletResult');
    expect(refusal(await importWallet(bundle, 'second'))).toBe('BUNDLE_ALREADY_USED');
    expect(await walletCount()).toBe(1);
  });

  it('an expired import target', async () => {
    const bundle = await encryptTo(await initImport('wallet'), utf8Encode(MNEMONIC));
    service.clock.advance(IMPORT_TARGET_TTL_MS);
    expect(refusal(await importWallet(bundle))).toBe('BUNDLE_EXPIRED');
    expect(await walletCount()).toBe(0);
  });

  it('a bundle made for another user, and an import on another user’s behalf', async () => {
    const other = await service.addUser();
    await service.setRootQuorum(1, [service.info.rootUserId, other.userId]);
    const rootBundle = await encryptTo(await initImport('wallet'), utf8Encode(MNEMONIC));
    await initImport('wallet', other.userId, other.key);
    expect(refusal(await importWallet(rootBundle, 'stolen', { key: other.key, userId: other.userId }))).toBe('DECRYPTION_FAILED');
    expect(refusal(await importWallet(rootBundle, 'on behalf', { key: other.key }))).toBe('BUNDLE_USER_MISMATCH');
    expect(refusal(await submit('init_import_wallet', 'ACTIVITY_TYPE_INIT_IMPORT_WALLET', { userId: other.userId }))).toBe('BUNDLE_USER_MISMATCH');
    expect(await walletCount()).toBe(0);
    // The refusals did not consume the root user's target.
    resultOf(await importWallet(rootBundle), 'importWalletResult');
  });

  it('a mnemonic with a bad checksum', async () => {
    const bundle = await encryptTo(await initImport('wallet'), utf8Encode(BAD_CHECKSUM));
    expect(refusal(await importWallet(bundle))).toBe('MNEMONIC_INVALID');
    expect(await walletCount()).toBe(0);
  });

  it('a private key whose curve does not fit the address format, or that is not 32 bytes', async () => {
    const importKey = async (plaintext: Uint8Array, curve: string, addressFormats: string[]) =>
      submit('import_private_key', 'ACTIVITY_TYPE_IMPORT_PRIVATE_KEY', {
        userId: service.info.rootUserId,
        privateKeyName: 'imported',
        encryptedBundle: await encryptTo(await initImport('private_key'), plaintext),
        curve,
        addressFormats,
      });
    const scalar = sha256(utf8Encode('a test scalar'));
    expect(refusal(await importKey(scalar, 'CURVE_ED25519', ['ADDRESS_FORMAT_ETHEREUM']))).toBe('ADDRESS_FORMAT_INVALID');
    expect(refusal(await importKey(new Uint8Array(31).fill(7), 'CURVE_SECP256K1', ['ADDRESS_FORMAT_ETHEREUM']))).toBe('KEY_INVALID');
    expect((await service.query('list_private_keys', {})).body.privateKeys).toEqual([]);
  });
});

describe('wallet export details', () => {
  it('appends an imported passphrase after "\\n" and converts the mnemonic to the requested language', async () => {
    const plaintext = utf8Encode(`${MNEMONIC}\n--PASS--\ncorrect horse`);
    const { walletId } = resultOf(await importWallet(await encryptTo(await initImport('wallet'), plaintext)), 'importWalletResult');
    const english = utf8Decode(await exportPlaintext('export_wallet', 'ACTIVITY_TYPE_EXPORT_WALLET', { walletId }, 'exportWalletResult'));
    expect(english).toBe(`${MNEMONIC}\ncorrect horse`);
    const japanese = decodeWalletPlaintext(
      await exportPlaintext(
        'export_wallet',
        'ACTIVITY_TYPE_EXPORT_WALLET',
        { walletId, language: 'MNEMONIC_LANGUAGE_JAPANESE' },
        'exportWalletResult',
      ),
    );
    expect(japanese.mnemonic.split('\u3000')).toHaveLength(12);
    expect(japanese.passphrase).toBe('correct horse');
  });
});

describe('app proofs', () => {
  it('binds each derived address to the activity id, type and result digest, verifiable with @turnkey/crypto', async () => {
    const reply = await submit(
      'create_wallet',
      'ACTIVITY_TYPE_CREATE_WALLET',
      { walletName: 'proven', accounts: [ETHEREUM] },
      { generateAppProofs: true },
    );
    const result = resultOf(reply, 'createWalletResult');
    const activity = reply.body.activity;
    // The policy-outcome proof every proven activity carries, then one proof per derived address.
    expect(activity.appProofs).toHaveLength(2);
    const [, proof] = activity.appProofs;
    expect(() => verifyAppProofSignature(proof)).not.toThrow();
    expect(JSON.parse(proof.proofPayload)).toMatchObject({
      type: 'APP_PROOF_TYPE_ADDRESS_DERIVATION',
      activityId: activity.id,
      activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
      resultDigest: bytesToHex(sha256(utf8Encode(JSON.stringify(result)))),
      addressDerivationProof: { organizationId: service.info.organizationId, walletId: result.walletId, address: result.addresses[0] },
    });
    const tampered = { ...proof, proofPayload: proof.proofPayload.replace(result.addresses[0], ETHEREUM.path) };
    expect(() => verifyAppProofSignature(tampered)).toThrow();

    const listed = await service.query('list_app_proofs', { activityId: activity.id });
    expect(listed.body.appProofs).toEqual(activity.appProofs);
    const boot = await service.query('get_boot_proof', { ephemeralKey: proof.publicKey });
    expect(boot.body.bootProof.ephemeralPublicKeyHex).toBe(proof.publicKey);
    expect((await service.query('get_boot_proof', { ephemeralKey: `04${'ab'.repeat(129)}` })).body.details[0].turnkeyErrorCode).toBe('NOT_FOUND');

    const plain = await submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'unproven', accounts: [ETHEREUM] });
    expect(plain.body.activity.appProofs).toBeUndefined();
  });
});
