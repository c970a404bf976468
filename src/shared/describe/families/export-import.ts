/** Exports (what leaves and the key it is sealed to) and imports of wallets and private keys. */
import type { Describer, Describers } from '../draft';
import { account, accountsOfWallet, code, exportTarget, plain, records, text, texts } from '../pieces';
import { addressFormatInWords, counted, curveInWords } from '../words';

const exportWallet: Describer = (fields, draft) => {
  const walletId = text(fields, 'walletId') ?? '';
  const wallet = draft.names.wallet(walletId);
  const accounts = accountsOfWallet(draft, walletId);
  draft.title = 'Export a wallet';
  draft.exports = {
    what: [wallet, plain(accounts === undefined ? 'its seed phrase (every account)' : `its seed phrase (${counted(accounts.length, 'account')})`)],
    target: exportTarget(draft, text(fields, 'targetPublicKey') ?? ''),
  };
  draft.summary = `${wallet.text} to ${draft.exports.target.localKeyName ?? 'an unknown key'}`;
};

const exportWalletAccount: Describer = (fields, draft) => {
  const address = text(fields, 'address') ?? '';
  const holder = draft.names.holderOf(address);
  draft.title = 'Export a wallet account';
  draft.exports = {
    what: [code(address), ...(holder === undefined ? [] : [{ ...holder, text: `of ${holder.text}` }]), plain('its private key')],
    target: exportTarget(draft, text(fields, 'targetPublicKey') ?? ''),
  };
  draft.summary = `${address} to ${draft.exports.target.localKeyName ?? 'an unknown key'}`;
};

const initImport =
  (what: string): Describer =>
  (fields, draft) => {
    draft.title = `Prepare to import a ${what}`;
    draft.fact('For user', draft.names.user(text(fields, 'userId') ?? ''));
    draft.fact('What happens', plain(`the service makes a one-time key that the ${what} will be encrypted to`));
  };

const importWallet: Describer = (fields, draft) => {
  const name = text(fields, 'walletName') ?? 'unnamed wallet';
  draft.title = 'Import a wallet';
  draft.fact('For user', draft.names.user(text(fields, 'userId') ?? ''));
  draft.change('Wallet', [], [plain(name)]);
  draft.change('Accounts', [], records(fields, 'accounts').map(account));
  draft.summary = name;
};

const exportPrivateKey: Describer = (fields, draft) => {
  const key = draft.names.privateKey(text(fields, 'privateKeyId') ?? '');
  draft.title = 'Export a private key';
  draft.exports = { what: [key], target: exportTarget(draft, text(fields, 'targetPublicKey') ?? '') };
  draft.summary = `${key.text} to ${draft.exports.target.localKeyName ?? 'an unknown key'}`;
};

const importPrivateKey: Describer = (fields, draft) => {
  const name = text(fields, 'privateKeyName') ?? 'unnamed key';
  draft.title = 'Import a private key';
  draft.fact('For user', draft.names.user(text(fields, 'userId') ?? ''));
  draft.change('Private key', [], [plain(`${name} (${curveInWords(text(fields, 'curve') ?? '')})`)]);
  draft.fact('Addresses', ...texts(fields, 'addressFormats').map((format) => plain(addressFormatInWords(format))));
  draft.summary = name;
};

export const exportImportDescribers = {
  ACTIVITY_TYPE_EXPORT_WALLET: exportWallet,
  ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: exportWalletAccount,
  ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: exportPrivateKey,
  ACTIVITY_TYPE_INIT_IMPORT_WALLET: initImport('wallet'),
  ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY: initImport('private key'),
  ACTIVITY_TYPE_IMPORT_WALLET: importWallet,
  ACTIVITY_TYPE_IMPORT_PRIVATE_KEY: importPrivateKey,
} satisfies Describers;
