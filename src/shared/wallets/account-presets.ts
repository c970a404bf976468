/** Account presets for common chains: curve, BIP-32 path template and address format (docs/service.md#wallets). */
import type { WalletAccountParams } from '../api';

export interface AccountPreset {
  id: string;
  label: string;
  curve: WalletAccountParams['curve'];
  addressFormat: WalletAccountParams['addressFormat'];
  /** The path of account `index`. */
  path: (index: number) => string;
}

export const ACCOUNT_PRESETS = [
  {
    id: 'ethereum',
    label: 'Ethereum (secp256k1)',
    curve: 'CURVE_SECP256K1',
    addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
    path: (i: number) => `m/44'/60'/0'/0/${i}`,
  },
  {
    id: 'bitcoin',
    label: 'Bitcoin native SegWit (secp256k1)',
    curve: 'CURVE_SECP256K1',
    addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH',
    path: (i: number) => `m/84'/0'/0'/0/${i}`,
  },
  {
    id: 'solana',
    label: 'Solana (Ed25519)',
    curve: 'CURVE_ED25519',
    addressFormat: 'ADDRESS_FORMAT_SOLANA',
    path: (i: number) => `m/44'/501'/${i}'/0'`,
  },
  {
    id: 'cosmos',
    label: 'Cosmos (secp256k1)',
    curve: 'CURVE_SECP256K1',
    addressFormat: 'ADDRESS_FORMAT_COSMOS',
    path: (i: number) => `m/44'/118'/0'/0/${i}`,
  },
  {
    id: 'tron',
    label: 'Tron (secp256k1)',
    curve: 'CURVE_SECP256K1',
    addressFormat: 'ADDRESS_FORMAT_TRON',
    path: (i: number) => `m/44'/195'/0'/0/${i}`,
  },
] as const satisfies readonly AccountPreset[];

export type AccountPresetId = (typeof ACCOUNT_PRESETS)[number]['id'];

/** `count` accounts of `preset` starting at index `first`. */
export function accountsFor(presetId: AccountPresetId, first: number, count: number): WalletAccountParams[] {
  const preset = ACCOUNT_PRESETS.find((candidate) => candidate.id === presetId)!;
  return Array.from({ length: count }, (_, offset) => ({
    curve: preset.curve,
    pathFormat: 'PATH_FORMAT_BIP32',
    path: preset.path(first + offset),
    addressFormat: preset.addressFormat,
  }));
}

/** Address formats a private key of `curve` gets on import, by preset. */
export function addressFormatsFor(presetId: AccountPresetId): WalletAccountParams['addressFormat'][] {
  return [ACCOUNT_PRESETS.find((candidate) => candidate.id === presetId)!.addressFormat];
}

/**
 * The index after the highest one `existingPaths` use with `presetId`'s path, so "Add accounts" continues each chain
 * where it stopped; 0 when the wallet has no account of that chain yet.
 */
export function nextIndexFor(presetId: AccountPresetId, existingPaths: readonly string[]): number {
  const preset = ACCOUNT_PRESETS.find((candidate) => candidate.id === presetId)!;
  // The path around its index: a marker number no real path uses splits the template in two.
  const [before = '', after = ''] = preset.path(987_654_321).split('987654321');
  let next = 0;
  for (const path of existingPaths) {
    if (!path.startsWith(before) || !path.endsWith(after)) continue;
    const index = path.slice(before.length, path.length - after.length);
    if (/^\d{1,10}$/.test(index)) next = Math.max(next, Number(index) + 1);
  }
  return next;
}
