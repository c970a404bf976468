/** Wallets and wallet accounts (docs/service.md#wallets): create, derive more accounts, list, get, rename, delete. */
import type { z } from 'zod';
import type { WalletAccountParams, walletParams } from '../../shared/api/params';
import { QkError } from '../../shared/errors';
import type { ActivityContext, Family } from '../activities/context';
import { toTimestamp } from '../../shared/api/timestamps';
import type { AccountSpec, DerivedAccount } from '../enclave';
import { assertFormatForCurve } from '../enclave/addresses';
import { parsePathForCurve } from '../enclave/derivation';
import { DEFAULT_MNEMONIC_WORD_COUNT, isMnemonicWordCount, MNEMONIC_WORD_COUNTS } from '../enclave/mnemonic';
import type { Repositories } from '../store';
import type { WalletAccountPage, WalletAccountRecord, WalletRecord } from '../store/wallets';
import { pageSize } from './activities';
import { refuseUnexportedDeletion } from './unexported';

/** Per-organization wallet limit (docs/service.md#limits). */
export const MAX_WALLETS_PER_ORGANIZATION = 100;

export function walletView(wallet: WalletRecord) {
  return {
    walletId: wallet.id,
    walletName: wallet.name,
    createdAt: toTimestamp(wallet.createdAt),
    updatedAt: toTimestamp(wallet.updatedAt),
    exported: wallet.exported,
    imported: wallet.imported,
  };
}

function accountView(account: WalletAccountRecord, wallet?: WalletRecord) {
  return {
    walletAccountId: account.id,
    organizationId: account.organizationId,
    walletId: account.walletId,
    curve: account.curve as AccountSpec['curve'],
    pathFormat: account.pathFormat as WalletAccountParams['pathFormat'],
    path: account.path,
    addressFormat: account.addressFormat as AccountSpec['addressFormat'],
    address: account.address,
    createdAt: toTimestamp(account.createdAt),
    updatedAt: toTimestamp(account.updatedAt),
    publicKey: account.publicKey,
    ...(account.name === undefined ? {} : { name: account.name }),
    ...(wallet === undefined ? {} : { walletDetails: walletView(wallet) }),
  };
}

export function requireWallet(store: Repositories, organizationId: string, walletId: string): WalletRecord {
  const wallet = store.wallets.get(organizationId, walletId);
  if (wallet === undefined) {
    throw new QkError('NOT_FOUND', `no wallet ${walletId} in organization ${organizationId}`, { walletId });
  }
  return wallet;
}

/**
 * Checks requested accounts before any derivation: curve and address format agree, each path parses for its
 * curve (Ed25519 needs hardened segments), and no path repeats, in the request or in the wallet already.
 */
export function checkAccounts(
  accounts: readonly WalletAccountParams[],
  existingPaths: ReadonlySet<string>,
  accountsField = 'parameters.accounts',
): AccountSpec[] {
  const seen = new Set(existingPaths);
  return accounts.map((account, index) => {
    const field = `${accountsField}[${index}]`;
    try {
      assertFormatForCurve(account.curve, account.addressFormat);
      parsePathForCurve(account.path, account.curve);
    } catch (error) {
      if (error instanceof QkError) throw new QkError(error.code, `${field}: ${error.message}`, error.details);
      throw error;
    }
    if (seen.has(account.path)) {
      throw new QkError('ALREADY_EXISTS', `${field}.path: the wallet already has an account at ${account.path}; paths are unique within a wallet`, {
        path: account.path,
      });
    }
    seen.add(account.path);
    return { curve: account.curve, path: account.path, addressFormat: account.addressFormat };
  });
}

export function requireUniqueWalletName(store: Repositories, organizationId: string, name: string): void {
  const existing = store.wallets.findByName(organizationId, name);
  if (existing !== undefined) {
    throw new QkError('ALREADY_EXISTS', `wallet label must be unique: a wallet named "${name}" already exists (${existing.id})`, {
      walletId: existing.id,
    });
  }
  if (store.wallets.countByOrganization(organizationId) >= MAX_WALLETS_PER_ORGANIZATION) {
    throw new QkError('LIMIT_EXCEEDED', `an organization holds at most ${MAX_WALLETS_PER_ORGANIZATION} wallets; delete one first`);
  }
}

function checkMnemonicLength(length: number | undefined, field: string): number {
  const words = length ?? DEFAULT_MNEMONIC_WORD_COUNT;
  if (!isMnemonicWordCount(words)) {
    throw new QkError('MNEMONIC_INVALID', `${field} must be one of ${MNEMONIC_WORD_COUNTS.join(', ')}; got ${words}`, {
      mnemonicLength: words,
    });
  }
  return words;
}

/** Where a new wallet goes: an activity's organization, or a sub-organization the activity is creating. */
export type WalletTarget = Pick<ActivityContext, 'store' | 'organizationId' | 'now' | 'newId' | 'enclave'>;

export type NewWalletParams = z.output<typeof walletParams>;

/**
 * Checks a new wallet before anything is derived: a unique name, the mnemonic length and the accounts.
 * `organizationId` undefined means an organization the same activity is about to create (no wallets yet).
 */
export function checkNewWallet(
  store: Repositories,
  organizationId: string | undefined,
  params: NewWalletParams,
  fieldPrefix: string,
): { mnemonicLength: number; accounts: AccountSpec[] } {
  if (organizationId !== undefined) requireUniqueWalletName(store, organizationId, params.walletName);
  return {
    mnemonicLength: checkMnemonicLength(params.mnemonicLength, `${fieldPrefix}mnemonicLength`),
    accounts: checkAccounts(params.accounts, new Set(), `${fieldPrefix}accounts`),
  };
}

/** Generates a mnemonic in the enclave and stores the sealed wallet with its accounts (create_wallet, create_sub_organization). */
export async function createWallet(
  target: WalletTarget,
  params: NewWalletParams,
  fieldPrefix: string,
): Promise<{ walletId: string; addresses: string[] }> {
  const checked = checkNewWallet(target.store, target.organizationId, params, fieldPrefix);
  const walletId = target.newId();
  const created = await target.enclave.createWallet({ walletId, ...checked });
  insertWallet(
    target,
    { id: walletId, name: params.walletName, sealedSecret: created.sealedSecret, imported: false },
    created.accounts,
    params.accounts.map((a) => a.name),
  );
  return { walletId, addresses: created.accounts.map((account) => account.address) };
}

/** Stores a new wallet and its derived accounts (create_wallet, import_wallet). */
export function insertWallet(
  ctx: Omit<WalletTarget, 'enclave'>,
  wallet: { id: string; name: string; sealedSecret: Uint8Array; imported: boolean },
  accounts: readonly DerivedAccount[],
  names: readonly (string | undefined)[],
): void {
  ctx.store.wallets.insert({ ...wallet, organizationId: ctx.organizationId, now: ctx.now });
  insertAccounts(ctx, wallet.id, accounts, names);
}

function insertAccounts(
  ctx: Omit<WalletTarget, 'enclave'>,
  walletId: string,
  accounts: readonly DerivedAccount[],
  names: readonly (string | undefined)[],
) {
  accounts.forEach((account, index) => {
    ctx.store.walletAccounts.insert({
      id: ctx.newId(),
      organizationId: ctx.organizationId,
      walletId,
      curve: account.curve,
      pathFormat: 'PATH_FORMAT_BIP32',
      path: account.path,
      addressFormat: account.addressFormat,
      address: account.address,
      publicKey: account.publicKey,
      name: names[index],
      now: ctx.now,
    });
  });
}

function existingPaths(store: Repositories, walletId: string): Set<string> {
  return new Set(store.walletAccounts.listByWallet(walletId).map((account) => account.path));
}

/** `wallet` for the wallet an operation names, when the organization has it. */
function walletResources(store: Repositories, organizationId: string, walletId: string): Record<string, unknown> {
  const wallet = store.wallets.get(organizationId, walletId);
  return wallet === undefined ? {} : { wallet: walletPolicyResource(wallet) };
}

function walletPolicyResource(wallet: WalletRecord) {
  return { id: wallet.id, imported: wallet.imported, exported: wallet.exported, label: wallet.name };
}

/**
 * A page of the accounts a session may read: the store's pages are read on in the page's direction (backwards from
 * `before`) until `limit` readable accounts are found or none are left, so that a page is not cut short by the
 * accounts left out.
 */
function readablePage(store: Repositories, query: WalletAccountPage, readable: (account: WalletAccountRecord) => boolean): WalletAccountRecord[] {
  const backwards = query.before !== undefined;
  let found: WalletAccountRecord[] = [];
  let cursor = query;
  for (;;) {
    const batch = store.walletAccounts.page(cursor);
    const kept = batch.filter(readable);
    found = backwards ? [...kept, ...found] : [...found, ...kept];
    if (found.length >= query.limit || batch.length < query.limit) break;
    cursor = backwards ? { ...cursor, before: batch[0]!.id } : { ...cursor, after: batch.at(-1)!.id };
  }
  return backwards ? found.slice(-query.limit) : found.slice(0, query.limit);
}

/** Checks delete_wallets against the stored wallets; a never-exported wallet needs deleteWithoutExport. */
function checkDeletions(store: Repositories, organizationId: string, walletIds: readonly string[], deleteWithoutExport: boolean) {
  return walletIds.map((walletId) => {
    const wallet = requireWallet(store, organizationId, walletId);
    refuseUnexportedDeletion(wallet.exported ? [] : [`wallet ${walletId}`], deleteWithoutExport, (names) => `${names} has never been exported`, {
      walletId,
    });
    return wallet;
  });
}

/** The new name of update_wallet: not empty, and unique among the organization's other wallets. */
function checkRename(store: Repositories, organizationId: string, params: { walletId: string; walletName?: string | undefined }): WalletRecord {
  const wallet = requireWallet(store, organizationId, params.walletId);
  if (params.walletName === undefined) return wallet;
  if (params.walletName.trim() === '') {
    throw new QkError('REQUEST_INVALID', 'parameters.walletName: must not be empty', {
      issues: [{ path: 'parameters.walletName', message: 'must not be empty' }],
    });
  }
  const existing = store.wallets.findByName(organizationId, params.walletName);
  if (existing !== undefined && existing.id !== wallet.id) {
    throw new QkError('ALREADY_EXISTS', `wallet label must be unique: a wallet named "${params.walletName}" already exists (${existing.id})`, {
      walletId: existing.id,
    });
  }
  return wallet;
}

/** Checks delete_wallet_accounts: known accounts, each once; an account of a never-exported wallet needs deleteWithoutExport. */
function checkAccountDeletions(
  store: Repositories,
  organizationId: string,
  params: { walletAccountIds: string[]; deleteWithoutExport?: boolean | undefined },
) {
  if (params.walletAccountIds.length === 0) {
    throw new QkError('REQUEST_INVALID', 'parameters.walletAccountIds: name at least one wallet account', {
      issues: [{ path: 'parameters.walletAccountIds', message: 'empty' }],
    });
  }
  return params.walletAccountIds.map((accountId, index) => {
    const account = store.walletAccounts.get(organizationId, accountId);
    if (account === undefined) {
      throw new QkError('NOT_FOUND', `parameters.walletAccountIds[${index}]: no wallet account ${accountId} in organization ${organizationId}`, {
        walletAccountId: accountId,
      });
    }
    if (params.walletAccountIds.indexOf(accountId) !== index) {
      throw new QkError('REQUEST_INVALID', `parameters.walletAccountIds: wallet account ${accountId} appears twice`);
    }
    const wallet = requireWallet(store, organizationId, account.walletId);
    refuseUnexportedDeletion(
      wallet.exported ? [] : [`wallet ${wallet.id}`],
      params.deleteWithoutExport === true,
      (names) => `wallet account ${accountId} belongs to ${names}, which has never been exported`,
      { walletAccountId: accountId, walletId: wallet.id },
    );
    return { account, wallet };
  });
}

export const walletsFamily: Family = {
  queries: {
    list_wallets: (ctx) => ({ wallets: ctx.store.wallets.listByOrganization(ctx.organizationId).map(walletView) }),
    get_wallet: (ctx, request) => ({ wallet: walletView(requireWallet(ctx.store, ctx.organizationId, request.walletId)) }),
    list_wallet_accounts(ctx, request) {
      const wallet = request.walletId === undefined ? undefined : requireWallet(ctx.store, ctx.organizationId, request.walletId);
      const pagination = request.paginationOptions;
      for (const cursor of [pagination?.before, pagination?.after]) {
        if (cursor !== undefined && ctx.store.walletAccounts.get(ctx.organizationId, cursor) === undefined) {
          throw new QkError('REQUEST_INVALID', `pagination cursor ${cursor} is not a wallet account of organization ${ctx.organizationId}`, {
            issues: [{ path: 'paginationOptions', message: 'unknown cursor' }],
          });
        }
      }
      const query: WalletAccountPage = {
        organizationId: ctx.organizationId,
        ...(wallet === undefined ? {} : { walletId: wallet.id }),
        limit: pageSize(pagination?.limit),
        ...(pagination?.before === undefined ? {} : { before: pagination.before }),
        ...(pagination?.after === undefined ? {} : { after: pagination.after }),
      };
      const wallets = new Map<string, WalletRecord>();
      const walletOf = (walletId: string) => {
        let found = wallets.get(walletId);
        if (found === undefined) {
          found = requireWallet(ctx.store, ctx.organizationId, walletId);
          wallets.set(walletId, found);
        }
        return found;
      };
      const readScope = ctx.readScope();
      const accounts =
        readScope === undefined
          ? ctx.store.walletAccounts.page(query)
          : readablePage(ctx.store, query, (account) =>
              readScope({ wallet: walletPolicyResource(walletOf(account.walletId)), wallet_account: { address: account.address } }),
            );
      const detailsOf = (walletId: string) => (request.includeWalletDetails === true ? walletOf(walletId) : undefined);
      return { accounts: accounts.map((account) => accountView(account, detailsOf(account.walletId))) };
    },
    get_wallet_account(ctx, request) {
      if ((request.address === undefined) === (request.path === undefined)) {
        throw new QkError('REQUEST_INVALID', 'identify the account by exactly one of address or path', {
          issues: [{ path: 'address', message: 'exactly one of address, path' }],
        });
      }
      const wallet = requireWallet(ctx.store, ctx.organizationId, request.walletId);
      const account = ctx.store.walletAccounts.findInWallet(wallet.id, {
        ...(request.address === undefined ? {} : { address: request.address }),
        ...(request.path === undefined ? {} : { path: request.path }),
      });
      if (account === undefined) {
        throw new QkError(
          'NOT_FOUND',
          `wallet ${wallet.id} has no account with ${request.address === undefined ? `path ${request.path}` : `address ${request.address}`}`,
          {
            walletId: wallet.id,
          },
        );
      }
      return { account: accountView(account) };
    },
  },
  queryResources: {
    get_wallet: (store, organizationId, request) => walletResources(store, organizationId, request.walletId),
    list_wallet_accounts: (store, organizationId, request) =>
      request.walletId === undefined ? {} : walletResources(store, organizationId, request.walletId),
    get_wallet_account: (store, organizationId, request) => ({
      ...walletResources(store, organizationId, request.walletId),
      ...(request.address === undefined ? {} : { wallet_account: { address: request.address } }),
    }),
  },
  activities: {
    create_wallet: {
      validate(store, organizationId, params) {
        checkNewWallet(store, organizationId, params, 'parameters.');
      },
      execute: (ctx, params) => createWallet(ctx, params, 'parameters.'),
      derivedAddresses: (result) => result.addresses.map((address) => ({ address, walletId: result.walletId })),
    },
    create_wallet_accounts: {
      validate(store, organizationId, params) {
        const wallet = requireWallet(store, organizationId, params.walletId);
        checkAccounts(params.accounts, existingPaths(store, wallet.id));
      },
      async execute(ctx, params) {
        const wallet = requireWallet(ctx.store, ctx.organizationId, params.walletId);
        const specs = checkAccounts(params.accounts, existingPaths(ctx.store, wallet.id));
        const derived = await ctx.enclave.deriveWalletAccounts({ walletId: wallet.id, sealedSecret: wallet.sealedSecret, accounts: specs });
        if (params.persist !== false)
          insertAccounts(
            ctx,
            wallet.id,
            derived,
            params.accounts.map((a) => a.name),
          );
        return { addresses: derived.map((account) => account.address) };
      },
      policyResources: (store, organizationId, params) => walletResources(store, organizationId, params.walletId),
      derivedAddresses: (result) => result.addresses.map((address) => ({ address })),
    },
    update_wallet: {
      validate: checkRename,
      execute(ctx, params) {
        const wallet = checkRename(ctx.store, ctx.organizationId, params);
        if (params.walletName !== undefined) ctx.store.wallets.rename(ctx.organizationId, wallet.id, params.walletName, ctx.now);
        return { walletId: wallet.id };
      },
      policyResources: (store, organizationId, params) => walletResources(store, organizationId, params.walletId),
    },
    delete_wallet_accounts: {
      validate: checkAccountDeletions,
      execute(ctx, params) {
        for (const { account } of checkAccountDeletions(ctx.store, ctx.organizationId, params)) {
          ctx.store.walletAccounts.delete(ctx.organizationId, account.id);
          ctx.enclave.forgetWalletAccount(account.walletId, account.curve, account.path);
        }
        return { walletAccountIds: params.walletAccountIds };
      },
      policyResources: (store, organizationId, params) => ({
        wallets: [
          ...new Map(
            params.walletAccountIds.flatMap((id) => {
              const account = store.walletAccounts.get(organizationId, id);
              const wallet = account === undefined ? undefined : store.wallets.get(organizationId, account.walletId);
              return wallet === undefined ? [] : [[wallet.id, walletPolicyResource(wallet)] as const];
            }),
          ).values(),
        ],
      }),
    },
    delete_wallets: {
      validate(store, organizationId, params) {
        checkDeletions(store, organizationId, params.walletIds, params.deleteWithoutExport === true);
      },
      execute(ctx, params) {
        for (const wallet of checkDeletions(ctx.store, ctx.organizationId, params.walletIds, params.deleteWithoutExport === true)) {
          ctx.store.wallets.delete(ctx.organizationId, wallet.id);
          ctx.enclave.forgetWallet(wallet.id);
        }
        return { walletIds: params.walletIds };
      },
      policyResources: (store, organizationId, params) => ({
        wallets: params.walletIds.flatMap((id) => {
          const wallet = store.wallets.get(organizationId, id);
          return wallet === undefined ? [] : [walletPolicyResource(wallet)];
        }),
      }),
    },
  },
};

export { walletPolicyResource };
