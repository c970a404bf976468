/**
 * Wallets, their accounts and private keys reshaped into the IPC contract's views: timestamps as epoch milliseconds
 * and only the fields the contract names.
 */
import { timestampMs, type PrivateKey, type Wallet, type WalletAccount } from '../../shared/api';
import type { ChannelOutput } from '../../shared/ipc/contract';

type AddressView = ChannelOutput<'privateKeys.list'>[number]['addresses'][number];

export function walletView(wallet: Wallet): ChannelOutput<'wallets.list'>[number] {
  return {
    walletId: wallet.walletId,
    walletName: wallet.walletName,
    createdAtMs: timestampMs(wallet.createdAt),
    updatedAtMs: timestampMs(wallet.updatedAt),
    exported: wallet.exported,
    imported: wallet.imported,
  };
}

export function walletAccountView(account: WalletAccount): ChannelOutput<'wallets.accounts'>[number] {
  return {
    walletAccountId: account.walletAccountId,
    walletId: account.walletId,
    curve: account.curve,
    pathFormat: account.pathFormat,
    path: account.path,
    addressFormat: account.addressFormat,
    address: account.address,
    ...(account.publicKey === undefined ? {} : { publicKey: account.publicKey }),
    ...(account.name === undefined ? {} : { name: account.name }),
    createdAtMs: timestampMs(account.createdAt),
  };
}

export function privateKeyView(key: PrivateKey): ChannelOutput<'privateKeys.list'>[number] {
  return {
    privateKeyId: key.privateKeyId,
    privateKeyName: key.privateKeyName,
    curve: key.curve,
    publicKey: key.publicKey,
    addresses: addressViews(key.addresses),
    tags: key.privateKeyTags,
    createdAtMs: timestampMs(key.createdAt),
    exported: key.exported,
    imported: key.imported,
  };
}

/** Addresses with both a format and an address (the wire schema makes both optional). */
export function addressViews(addresses: readonly { format?: AddressView['format'] | undefined; address?: string | undefined }[]): AddressView[] {
  return addresses.flatMap(({ format, address }) => (format === undefined || address === undefined ? [] : [{ format, address }]));
}
