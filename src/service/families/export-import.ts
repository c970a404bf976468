/**
 * Export (wallet mnemonic, private key, wallet account key → HPKE bundle signed by the enclave,
 * docs/formats.md#export-bundles) and two-step import (init: a fresh one-shot target key bound to organization and
 * user; import: open the client's bundle, store the key material sealed; docs/formats.md#import-bundles).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8Encode } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { ActivityContext, Family } from '../activities/context';
import type { Curve } from '../enclave/derivation';
import { DEFAULT_MNEMONIC_LANGUAGE } from '../enclave/mnemonic';
import type { Repositories, Store } from '../store';
import type { ImportKind, ImportTargetRecord } from '../store/export-import';
import { checkNewKeys, insertPrivateKey, privateKeyPolicyResource, requirePrivateKey } from './private-keys';
import { checkAccounts, insertWallet, requireUniqueWalletName, requireWallet, walletPolicyResource } from './wallets';

/** An import target lives as long as an approval does (24 h), so an import waiting for consensus can still open it. */
export const IMPORT_TARGET_TTL_MS = 24 * 60 * 60 * 1000;
/** How often the service erases the keys of targets that expired unused. */
export const IMPORT_TARGET_SWEEP_MS = 10 * 60 * 1000;
/** How many of a user's latest targets an encrypted bundle is tried against. */
const IMPORT_TARGETS_TRIED = 20;

const INIT_OPERATION: Record<ImportKind, string> = {
  wallet: 'init_import_wallet',
  private_key: 'init_import_private_key',
  secret: 'init_import_secrets',
};

/** Imports always target the requesting user (docs/service.md#export-and-import). */
function requireActingUser(ctx: { actor: { userId: string }; organizationId: string }, userId: string): void {
  if (userId !== ctx.actor.userId) {
    throw new QkError(
      'BUNDLE_USER_MISMATCH',
      `parameters.userId ${userId} is not the requesting user ${ctx.actor.userId}; imports always target the user who submits them`,
      { userId, actorUserId: ctx.actor.userId },
    );
  }
}

async function initImport(ctx: ActivityContext, userId: string, kind: ImportKind): Promise<{ importBundle: string }> {
  requireActingUser(ctx, userId);
  const id = ctx.newId();
  const target = await ctx.enclave.initImportTarget({ targetId: id, organizationId: ctx.organizationId, userId });
  ctx.store.importTargets.insert({
    id,
    organizationId: ctx.organizationId,
    userId,
    kind,
    publicKey: target.publicKey,
    sealedSecret: target.sealedSecret,
    createdAt: ctx.now,
    expiresAt: ctx.now + IMPORT_TARGET_TTL_MS,
  });
  return { importBundle: target.importBundle };
}

/**
 * Erases the keys of import targets that expired unused, in every organization: a bundle sealed to one can no longer
 * be imported, and its key would only let a copy of the database open that bundle (an imported secret).
 */
export function eraseExpiredImportTargets(store: Store, now: number): Promise<number> {
  return store.transaction((tx) => tx.importTargets.eraseExpired(now));
}

/** Identifies a bundle that used a target: the target's key is erased on use, so it cannot recognise a replay itself. */
export function bundleDigestOf(encryptedBundle: string): string {
  return bytesToHex(sha256(utf8Encode(encryptedBundle)));
}

/**
 * The import target `encryptedBundle` was sealed to, among the user's latest unused targets of this kind. Refuses a
 * bundle that already used its target (BUNDLE_ALREADY_USED), a target expired (BUNDLE_EXPIRED), and a bundle sealed to
 * none of them (DECRYPTION_FAILED: made for another user or organization, altered, or sealed to a used target).
 */
async function targetOf(ctx: ActivityContext, userId: string, kind: ImportKind, encryptedBundle: string): Promise<ImportTargetRecord> {
  const targets = ctx.store.importTargets.recentForUser(ctx.organizationId, userId, kind, IMPORT_TARGETS_TRIED);
  if (targets.length === 0) {
    throw new QkError(
      'FAILED_PRECONDITION',
      `user ${userId} has no import target; call ${INIT_OPERATION[kind]} first and encrypt to its importBundle`,
      {
        userId,
      },
    );
  }
  const bundleDigest = bundleDigestOf(encryptedBundle);
  let erasedExpired = false;
  for (const target of targets) {
    if (target.usedAt !== undefined) {
      if (target.usedBundleDigest !== bundleDigest) continue;
      throw new QkError(
        'BUNDLE_ALREADY_USED',
        `the import target this bundle was encrypted to has already been used; call ${INIT_OPERATION[kind]} again`,
        {
          usedAt: target.usedAt,
        },
      );
    }
    if (target.sealedSecret.length === 0) {
      erasedExpired = true;
      continue;
    }
    if (!(await ctx.enclave.opensWith(target, encryptedBundle))) continue;
    if (target.expiresAt <= ctx.now) {
      throw new QkError(
        'BUNDLE_EXPIRED',
        `the import target this bundle was encrypted to expired at ${new Date(target.expiresAt).toISOString()}; call ${INIT_OPERATION[kind]} again`,
        {
          expiresAt: target.expiresAt,
        },
      );
    }
    return target;
  }
  throw new QkError(
    'DECRYPTION_FAILED',
    `parameters.encryptedBundle was not encrypted to any unused import target of user ${userId} in organization ${ctx.organizationId} (a bundle for another user or organization, altered, or sealed to a target already used${
      erasedExpired ? ', or to one that expired: a target lasts 24 hours, then its key is erased' : ''
    }); encrypt to the importBundle of a new ${INIT_OPERATION[kind]}`,
    { userId },
  );
}

function requireWalletAccount(store: Repositories, organizationId: string, address: string) {
  const account = store.walletAccounts.findByAddress(organizationId, address);
  if (account === undefined) {
    throw new QkError('NOT_FOUND', `no wallet account with address ${address} in organization ${organizationId}`, { address });
  }
  return account;
}

const importKeyFieldOf = () => 'parameters.';

export const exportImportFamily: Family = {
  activities: {
    export_wallet: {
      async execute(ctx, params) {
        const wallet = requireWallet(ctx.store, ctx.organizationId, params.walletId);
        const exportBundle = await ctx.enclave.exportWallet({
          walletId: wallet.id,
          sealedSecret: wallet.sealedSecret,
          language: params.language ?? DEFAULT_MNEMONIC_LANGUAGE,
          targetPublicKey: params.targetPublicKey,
          organizationId: ctx.organizationId,
        });
        ctx.store.wallets.markExported(ctx.organizationId, wallet.id, ctx.now);
        return { walletId: wallet.id, exportBundle };
      },
      policyResources: (store, organizationId, params) => {
        const wallet = store.wallets.get(organizationId, params.walletId);
        return wallet === undefined ? {} : { wallet: walletPolicyResource(wallet) };
      },
    },
    export_private_key: {
      async execute(ctx, params) {
        const key = requirePrivateKey(ctx.store, ctx.organizationId, params.privateKeyId);
        const exportBundle = await ctx.enclave.exportPrivateKey({
          privateKeyId: key.id,
          sealedSecret: key.sealedSecret,
          targetPublicKey: params.targetPublicKey,
          organizationId: ctx.organizationId,
        });
        ctx.store.privateKeys.markExported(ctx.organizationId, key.id, ctx.now);
        return { privateKeyId: key.id, exportBundle };
      },
      policyResources: (store, organizationId, params) => {
        const key = store.privateKeys.get(organizationId, params.privateKeyId);
        return key === undefined ? {} : { private_key: privateKeyPolicyResource(key) };
      },
    },
    export_wallet_account: {
      async execute(ctx, params) {
        const account = requireWalletAccount(ctx.store, ctx.organizationId, params.address);
        const wallet = requireWallet(ctx.store, ctx.organizationId, account.walletId);
        const exportBundle = await ctx.enclave.exportWalletAccount({
          walletId: wallet.id,
          sealedSecret: wallet.sealedSecret,
          curve: account.curve as Curve,
          path: account.path,
          targetPublicKey: params.targetPublicKey,
          organizationId: ctx.organizationId,
        });
        return { address: account.address, exportBundle };
      },
      policyResources: (_store, _organizationId, params) => ({ wallet_account: { address: params.address } }),
    },
    init_import_wallet: {
      execute: (ctx, params) => initImport(ctx, params.userId, 'wallet'),
    },
    init_import_private_key: {
      execute: (ctx, params) => initImport(ctx, params.userId, 'private_key'),
    },
    import_wallet: {
      validate(store, organizationId, params) {
        requireUniqueWalletName(store, organizationId, params.walletName);
        checkAccounts(params.accounts, new Set());
      },
      async execute(ctx, params) {
        requireActingUser(ctx, params.userId);
        requireUniqueWalletName(ctx.store, ctx.organizationId, params.walletName);
        const specs = checkAccounts(params.accounts, new Set());
        const target = await targetOf(ctx, params.userId, 'wallet', params.encryptedBundle);
        const walletId = ctx.newId();
        const imported = await ctx.enclave.importWallet({ target, encryptedBundle: params.encryptedBundle, walletId, accounts: specs });
        ctx.store.importTargets.markUsed(target.id, ctx.now, bundleDigestOf(params.encryptedBundle));
        insertWallet(
          ctx,
          { id: walletId, name: params.walletName, sealedSecret: imported.sealedSecret, imported: true },
          imported.accounts,
          params.accounts.map((a) => a.name),
        );
        return { walletId, addresses: imported.accounts.map((account) => account.address) };
      },
      derivedAddresses: (result) => result.addresses.map((address) => ({ address, walletId: result.walletId })),
    },
    import_private_key: {
      validate(store, organizationId, params) {
        checkNewKeys(store, organizationId, [params], importKeyFieldOf);
      },
      async execute(ctx, params) {
        requireActingUser(ctx, params.userId);
        checkNewKeys(ctx.store, ctx.organizationId, [params], importKeyFieldOf);
        const target = await targetOf(ctx, params.userId, 'private_key', params.encryptedBundle);
        const id = ctx.newId();
        const sealed = await ctx.enclave.importPrivateKey({
          target,
          encryptedBundle: params.encryptedBundle,
          privateKeyId: id,
          curve: params.curve,
          addressFormats: params.addressFormats,
        });
        ctx.store.importTargets.markUsed(target.id, ctx.now, bundleDigestOf(params.encryptedBundle));
        insertPrivateKey(ctx, { id, name: params.privateKeyName, curve: params.curve, tags: [], imported: true }, sealed);
        return { privateKeyId: id, addresses: sealed.addresses };
      },
      derivedAddresses: (result) => result.addresses.flatMap((entry) => (entry.address === undefined ? [] : [{ address: entry.address }])),
    },
  },
};
