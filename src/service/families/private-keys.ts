/** Private keys (docs/service.md#private-keys): create, list, get, delete. Export and import are in export-import.ts. */
import { QkError } from '../../shared/errors';
import type { ActivityContext, Family } from '../activities/context';
import { toTimestamp } from '../../shared/api/timestamps';
import type { SealedKey } from '../enclave';
import { assertFormatForCurve, type AddressFormat } from '../enclave/addresses';
import type { Curve } from '../enclave/derivation';
import type { Repositories } from '../store';
import type { PrivateKeyRecord } from '../store/private-keys';
import { refuseUnexportedDeletion } from './unexported';

/** Per-organization private key limit (docs/service.md#limits). */
export const MAX_PRIVATE_KEYS_PER_ORGANIZATION = 1000;

export function privateKeyView(key: PrivateKeyRecord) {
  return {
    privateKeyId: key.id,
    publicKey: key.publicKey,
    privateKeyName: key.name,
    curve: key.curve as Curve,
    addresses: key.addresses.map((entry) => ({ format: entry.format as AddressFormat, address: entry.address })),
    privateKeyTags: key.tags,
    createdAt: toTimestamp(key.createdAt),
    updatedAt: toTimestamp(key.updatedAt),
    exported: key.exported,
    imported: key.imported,
  };
}

export function requirePrivateKey(store: Repositories, organizationId: string, privateKeyId: string): PrivateKeyRecord {
  const key = store.privateKeys.get(organizationId, privateKeyId);
  if (key === undefined) {
    throw new QkError('NOT_FOUND', `no private key ${privateKeyId} in organization ${organizationId}`, { privateKeyId });
  }
  return key;
}

export function privateKeyPolicyResource(key: PrivateKeyRecord) {
  return { id: key.id, tags: key.tags, imported: key.imported, exported: key.exported, label: key.name };
}

/** The new keys' names are unique (in the request and the organization) and within the limit; formats fit curves. */
export function checkNewKeys(
  store: Repositories,
  organizationId: string,
  keys: readonly { privateKeyName: string; curve: Curve; addressFormats: readonly AddressFormat[] }[],
  fieldOf: (index: number) => string,
): void {
  const names = new Set<string>();
  keys.forEach((key, index) => {
    const field = fieldOf(index);
    for (const format of key.addressFormats) {
      try {
        assertFormatForCurve(key.curve, format);
      } catch (error) {
        if (error instanceof QkError) throw new QkError(error.code, `${field}addressFormats: ${error.message}`, error.details);
        throw error;
      }
    }
    const existing = store.privateKeys.findByName(organizationId, key.privateKeyName);
    if (names.has(key.privateKeyName) || existing !== undefined) {
      throw new QkError('ALREADY_EXISTS', `${field}privateKeyName: private key label must be unique; "${key.privateKeyName}" is taken`, {
        ...(existing === undefined ? {} : { privateKeyId: existing.id }),
      });
    }
    names.add(key.privateKeyName);
  });
  if (store.privateKeys.countByOrganization(organizationId) + keys.length > MAX_PRIVATE_KEYS_PER_ORGANIZATION) {
    throw new QkError('LIMIT_EXCEEDED', `an organization holds at most ${MAX_PRIVATE_KEYS_PER_ORGANIZATION} private keys; delete some first`);
  }
}

export function insertPrivateKey(
  ctx: Pick<ActivityContext, 'store' | 'organizationId' | 'now'>,
  key: { id: string; name: string; curve: Curve; tags: readonly string[]; imported: boolean },
  sealed: SealedKey,
): void {
  ctx.store.privateKeys.insert({
    id: key.id,
    organizationId: ctx.organizationId,
    name: key.name,
    curve: key.curve,
    publicKey: sealed.publicKey,
    sealedSecret: sealed.sealedSecret,
    tags: [...key.tags],
    addresses: sealed.addresses,
    imported: key.imported,
    now: ctx.now,
  });
}

function checkDeletions(store: Repositories, organizationId: string, privateKeyIds: readonly string[], deleteWithoutExport: boolean) {
  return privateKeyIds.map((privateKeyId) => {
    const key = requirePrivateKey(store, organizationId, privateKeyId);
    refuseUnexportedDeletion(
      key.exported ? [] : [`private key ${privateKeyId}`],
      deleteWithoutExport,
      (names) => `${names} has never been exported`,
      {
        privateKeyId,
      },
    );
    return key;
  });
}

const createFieldOf = (index: number) => `parameters.privateKeys[${index}].`;

export const privateKeysFamily: Family = {
  queries: {
    list_private_keys: (ctx) => ({
      privateKeys: ctx.store.privateKeys.listByOrganization(ctx.organizationId).map(privateKeyView),
    }),
    get_private_key: (ctx, request) => ({
      privateKey: privateKeyView(requirePrivateKey(ctx.store, ctx.organizationId, request.privateKeyId)),
    }),
  },
  queryResources: {
    get_private_key(store, organizationId, request) {
      const key = store.privateKeys.get(organizationId, request.privateKeyId);
      return key === undefined ? {} : { private_key: privateKeyPolicyResource(key) };
    },
  },
  activities: {
    create_private_keys: {
      validate(store, organizationId, params) {
        checkNewKeys(store, organizationId, params.privateKeys, createFieldOf);
      },
      execute(ctx, params) {
        checkNewKeys(ctx.store, ctx.organizationId, params.privateKeys, createFieldOf);
        return {
          privateKeys: params.privateKeys.map((request) => {
            const id = ctx.newId();
            const sealed = ctx.enclave.createPrivateKey({ privateKeyId: id, curve: request.curve, addressFormats: request.addressFormats });
            insertPrivateKey(ctx, { id, name: request.privateKeyName, curve: request.curve, tags: request.privateKeyTags, imported: false }, sealed);
            return { privateKeyId: id, addresses: sealed.addresses };
          }),
        };
      },
      derivedAddresses: (result) =>
        result.privateKeys.flatMap((key) =>
          (key.addresses ?? []).flatMap((entry) => (entry.address === undefined ? [] : [{ address: entry.address }])),
        ),
    },
    delete_private_keys: {
      validate(store, organizationId, params) {
        checkDeletions(store, organizationId, params.privateKeyIds, params.deleteWithoutExport === true);
      },
      execute(ctx, params) {
        for (const key of checkDeletions(ctx.store, ctx.organizationId, params.privateKeyIds, params.deleteWithoutExport === true)) {
          ctx.store.privateKeys.delete(ctx.organizationId, key.id);
          ctx.enclave.forgetPrivateKey(key.id);
        }
        return { privateKeyIds: params.privateKeyIds };
      },
    },
  },
};
