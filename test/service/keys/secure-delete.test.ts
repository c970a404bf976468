/**
 * Issue 15, finding 3 (service side): deleted wallets and keys come back. After delete_wallets /
 * delete_private_keys / delete_sub_organization, the sealed secret must be gone from the database file, its WAL
 * and its shared-memory index, not merely unlinked from the tables.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encryptToImportBundle } from '../../../src/shared/crypto/bundles';
import { utf8Encode } from '../../../src/shared/crypto/encoding';
import { eraseExpiredImportTargets, IMPORT_TARGET_TTL_MS } from '../../../src/service/families/export-import';
import { startTestService, type Reply, type TestService } from '../../support/service';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' };

let service: TestService;
beforeEach(async () => {
  service = await startTestService();
});
afterEach(async () => {
  await service.close();
});

function submit(name: string, type: string, parameters: unknown, organizationId = service.info.organizationId): Promise<Reply> {
  service.clock.advance(1);
  return service.submit(name, type, parameters, { organizationId });
}

function completed(reply: Reply): Record<string, unknown> {
  expect(reply.body.activity?.status, JSON.stringify(reply.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  return reply.body.activity.result;
}

/** The bytes of the database, its WAL and its shared-memory file, each as it is on disk now (absent: empty). */
function databaseFiles(): Buffer[] {
  const path = service.store.path;
  return [path, `${path}-wal`, `${path}-shm`].map((file) => {
    try {
      return readFileSync(file);
    } catch {
      return Buffer.alloc(0);
    }
  });
}

function filesHold(secret: Uint8Array): boolean {
  expect(secret.length).toBeGreaterThanOrEqual(32);
  return databaseFiles().some((bytes) => bytes.includes(Buffer.from(secret)));
}

async function createWallet(name: string, organizationId = service.info.organizationId): Promise<string> {
  const result = completed(await submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: name, accounts: [ETHEREUM] }, organizationId));
  return (result.createWalletResult as { walletId: string }).walletId;
}

/** A mnemonic encrypted to the import target an init_import_wallet result names, for the root user. */
function mnemonicSealedTo(init: Record<string, unknown>): Promise<string> {
  return encryptToImportBundle({
    importBundle: (init.initImportWalletResult as { importBundle: string }).importBundle,
    plaintext: utf8Encode('legal winner thank year wave sausage worth useful legal winner thank yellow'),
    signerPublicKey: service.info.enclaveSignerPublicKey,
    organizationId: service.info.organizationId,
    userId: service.info.rootUserId,
  });
}

describe('finding 3: deleted wallets and keys are unrecoverable from the database files', () => {
  it('delete_wallets leaves the sealed mnemonic in neither the database, its WAL nor its -shm', async () => {
    const walletId = await createWallet('doomed');
    const sealed = service.store.read.wallets.get(service.info.organizationId, walletId)!.sealedSecret;
    expect(filesHold(sealed)).toBe(true);

    completed(await submit('delete_wallets', 'ACTIVITY_TYPE_DELETE_WALLETS', { walletIds: [walletId], deleteWithoutExport: true }));
    expect(service.store.read.wallets.get(service.info.organizationId, walletId)).toBeUndefined();
    expect(filesHold(sealed)).toBe(false);
  });

  it('delete_private_keys leaves the sealed private key in none of the files', async () => {
    const created = completed(
      await submit('create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
        privateKeys: [{ privateKeyName: 'doomed key', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }],
      }),
    );
    const { privateKeyId } = (created.createPrivateKeysResultV2 as { privateKeys: { privateKeyId: string }[] }).privateKeys[0]!;
    const sealed = service.store.read.privateKeys.get(service.info.organizationId, privateKeyId)!.sealedSecret;
    expect(filesHold(sealed)).toBe(true);

    completed(await submit('delete_private_keys', 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', { privateKeyIds: [privateKeyId], deleteWithoutExport: true }));
    expect(filesHold(sealed)).toBe(false);
  });

  it('delete_sub_organization erases the sub-organization’s sealed wallets from the files', async () => {
    const subOrganizationId = completed(
      await submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
        subOrganizationName: `sub ${randomUUID()}`,
        rootUsers: [
          {
            userName: 'sub root',
            apiKeys: [{ apiKeyName: 'k', publicKey: service.rootKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
            authenticators: [],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
        wallet: { walletName: 'sub wallet', accounts: [ETHEREUM] },
      }),
    ).createSubOrganizationResultV8 as { subOrganizationId: string; wallet: { walletId: string } };
    const sealed = service.store.read.wallets.get(subOrganizationId.subOrganizationId, subOrganizationId.wallet.walletId)!.sealedSecret;
    expect(filesHold(sealed)).toBe(true);

    completed(
      await submit(
        'delete_sub_organization',
        'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION',
        { deleteWithoutExport: true },
        subOrganizationId.subOrganizationId,
      ),
    );
    expect(filesHold(sealed)).toBe(false);
  });

  it('an imported wallet: the import target’s key is erased on use, so the bundle in the activity log opens with nothing left', async () => {
    const { rootUserId, organizationId } = service.info;
    const init = completed(await submit('init_import_wallet', 'ACTIVITY_TYPE_INIT_IMPORT_WALLET', { userId: rootUserId }));
    const [target] = service.store.read.importTargets.recentForUser(organizationId, rootUserId, 'wallet', 1);
    const targetKey = target!.sealedSecret;
    expect(filesHold(targetKey)).toBe(true);
    const encryptedBundle = await mnemonicSealedTo(init);
    const imported = completed(
      await submit('import_wallet', 'ACTIVITY_TYPE_IMPORT_WALLET', {
        userId: rootUserId,
        walletName: 'imported',
        encryptedBundle,
        accounts: [ETHEREUM],
      }),
    );
    const { walletId } = imported.importWalletResult as { walletId: string };
    completed(await submit('delete_wallets', 'ACTIVITY_TYPE_DELETE_WALLETS', { walletIds: [walletId], deleteWithoutExport: true }));

    expect(service.store.read.importTargets.recentForUser(organizationId, rootUserId, 'wallet', 1)[0]!.sealedSecret).toHaveLength(0);
    expect(filesHold(targetKey)).toBe(false);
    const replay = await submit('import_wallet', 'ACTIVITY_TYPE_IMPORT_WALLET', {
      userId: rootUserId,
      walletName: 'again',
      encryptedBundle,
      accounts: [ETHEREUM],
    });
    expect(replay.body.activity?.failure?.details[0].turnkeyErrorCode ?? replay.body.details[0].turnkeyErrorCode).toBe('BUNDLE_ALREADY_USED');
  });

  it('an import target that expired unused: the sweep erases its key from the files; its bundle is refused, expiry named', async () => {
    const { rootUserId, organizationId } = service.info;
    const init = completed(await submit('init_import_wallet', 'ACTIVITY_TYPE_INIT_IMPORT_WALLET', { userId: rootUserId }));
    const targetKey = service.store.read.importTargets.recentForUser(organizationId, rootUserId, 'wallet', 1)[0]!.sealedSecret;
    const encryptedBundle = await mnemonicSealedTo(init);
    completed(await submit('init_import_wallet', 'ACTIVITY_TYPE_INIT_IMPORT_WALLET', { userId: rootUserId }));
    const fresh = service.store.read.importTargets.recentForUser(organizationId, rootUserId, 'wallet', 1)[0]!;

    // Before expiry the sweep keeps both keys.
    expect(await eraseExpiredImportTargets(service.store, service.clock.now())).toBe(0);
    expect(filesHold(targetKey)).toBe(true);

    service.clock.advance(IMPORT_TARGET_TTL_MS - 1);
    expect(await eraseExpiredImportTargets(service.store, service.clock.now())).toBe(1);
    expect(filesHold(targetKey)).toBe(false);
    expect(
      service.store.read.importTargets.recentForUser(organizationId, rootUserId, 'wallet', 2).map((target) => target.sealedSecret.length),
    ).toEqual([fresh.sealedSecret.length, 0]);

    const refused = await submit('import_wallet', 'ACTIVITY_TYPE_IMPORT_WALLET', {
      userId: rootUserId,
      walletName: 'late',
      encryptedBundle,
      accounts: [ETHEREUM],
    });
    const failure = refused.body.activity?.failure?.details[0] ?? refused.body.details[0];
    expect(failure.turnkeyErrorCode).toBe('DECRYPTION_FAILED');
    expect(refused.body.activity?.failure?.message ?? refused.body.message).toContain('expired: a target lasts 24 hours');
    expect(service.store.read.wallets.findByName(organizationId, 'late')).toBeUndefined();
  });
});
