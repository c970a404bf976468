/** Amounts in their units: viem's formatUnits does the decimal arithmetic for every chain. */
import { formatUnits } from 'viem';
import type { Amount, KnownToken } from './types';

function amountOf(raw: bigint, decimals: number, unit: string, rawUnit: string): Amount {
  const formatted = formatUnits(raw, decimals);
  return { raw, formatted, unit, text: `${formatted} ${unit}`, rawUnit };
}

export const ether = (wei: bigint): Amount => amountOf(wei, 18, 'ETH', 'wei');
export const gwei = (wei: bigint): Amount => amountOf(wei, 9, 'gwei', 'wei');
export const sol = (lamports: bigint): Amount => amountOf(lamports, 9, 'SOL', 'lamports');
export const btc = (satoshis: bigint): Amount => amountOf(satoshis, 8, 'BTC', 'sat');

/** A token amount in the token's units when its decimals are known, else the raw integer. */
export function tokenAmount(raw: bigint, token: KnownToken | undefined, decimals?: number): Amount {
  if (token !== undefined) return amountOf(raw, token.decimals, token.symbol, `raw units (${token.decimals} decimals)`);
  if (decimals !== undefined) return amountOf(raw, decimals, 'tokens', `raw units (${decimals} decimals)`);
  return { raw, formatted: raw.toString(), unit: 'raw units', text: `${raw} raw units (decimals not known)`, rawUnit: 'raw units' };
}
