/** Wallets and their accounts: created, renamed and deleted. */
import type { Describer, Describers } from '../draft';
import { account, accountsOfWallet, code, deleteSecrets, number, plain, records, text, texts } from '../pieces';
import { counted } from '../words';

const createWallet: Describer = (fields, draft) => {
  const name = text(fields, 'walletName') ?? 'unnamed wallet';
  const accounts = records(fields, 'accounts').map(account);
  draft.title = 'Create a wallet';
  draft.change('Wallet', [], [plain(name)]);
  draft.change('Accounts', [], accounts);
  const length = number(fields, 'mnemonicLength');
  if (length !== undefined) draft.fact('Seed phrase', plain(`${length} words`));
  draft.summary = `${name}, ${counted(accounts.length, 'account')}`;
};

const createWalletAccounts: Describer = (fields, draft) => {
  const walletId = text(fields, 'walletId') ?? '';
  const wallet = draft.names.wallet(walletId);
  const before = draft.beforeFrom(accountsOfWallet(draft, walletId));
  const added = records(fields, 'accounts').map(account);
  draft.title = 'Add accounts to a wallet';
  draft.fact('Wallet', wallet);
  if (before === undefined) draft.fact('Accounts added', ...added);
  else draft.change('Accounts', before, [...before, ...added]);
  draft.summary = `${wallet.text}: ${counted(added.length, 'new account')}`;
};

const deleteWallets: Describer = (fields, draft) => {
  const walletIds = texts(fields, 'walletIds');
  draft.title = `Delete ${counted(walletIds.length, 'wallet')}`;
  deleteSecrets(
    draft,
    'wallet',
    walletIds.map((walletId) => ({ ref: draft.names.wallet(walletId), exported: draft.names.findWallet(walletId)?.exported })),
    fields,
  );
  draft.summary = walletIds.map((walletId) => draft.names.wallet(walletId).text).join(', ');
};

const updateWallet: Describer = (fields, draft) => {
  const walletId = text(fields, 'walletId') ?? '';
  const wallet = draft.beforeFrom(draft.names.findWallet(walletId));
  const name = text(fields, 'walletName');
  draft.title = 'Rename a wallet';
  if (name !== undefined) draft.change('Name', wallet === undefined ? undefined : [plain(wallet.walletName)], [plain(name)]);
  draft.summary = draft.names.wallet(walletId).text;
};

const deleteWalletAccounts: Describer = (fields, draft) => {
  const accountIds = texts(fields, 'walletAccountIds');
  draft.title = `Delete ${counted(accountIds.length, 'wallet account')}`;
  for (const accountId of accountIds) draft.deletions.push({ what: code(accountId), kind: 'wallet account' });
  if (fields['deleteWithoutExport'] === true) draft.warn('Accounts of wallets never exported are deleted too: their keys cannot be recovered.');
};

export const walletDescribers = {
  ACTIVITY_TYPE_CREATE_WALLET: createWallet,
  ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS: createWalletAccounts,
  ACTIVITY_TYPE_UPDATE_WALLET: updateWallet,
  ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS: deleteWalletAccounts,
  ACTIVITY_TYPE_DELETE_WALLETS: deleteWallets,
} satisfies Describers;
