/** Amounts in their units: viem's formatUnits does the decimal arithmetic for every chain. */
import { formatUnits } from 'viem';
import type { Amount, ResolvedToken } from './types';
import type { Warnings } from './warnings';

function amountOf(raw: bigint, decimals: number, unit: string, rawUnit: string): Amount {
  const formatted = formatUnits(raw, decimals);
  return { raw, formatted, unit, text: `${formatted} ${unit}`, rawUnit };
}

export const ether = (wei: bigint): Amount => amountOf(wei, 18, 'ETH', 'wei');
export const gwei = (wei: bigint): Amount => amountOf(wei, 9, 'gwei', 'wei');
export const sol = (lamports: bigint): Amount => amountOf(lamports, 9, 'SOL', 'lamports');
export const btc = (satoshis: bigint): Amount => amountOf(satoshis, 8, 'BTC', 'sat');

/** "1000000.5" → "1,000,000.5": token amounts are read by people comparing them with invoices. */
export function grouped(formatted: string): string {
  const negative = formatted.startsWith('-');
  const [whole = '0', fraction] = (negative ? formatted.slice(1) : formatted).split('.');
  const digits = BigInt(whole).toLocaleString('en-US');
  return `${negative ? '-' : ''}${digits}${fraction === undefined ? '' : `.${fraction}`}`;
}

function tokenUnits(raw: bigint, decimals: number, unit: string, source: string): Amount {
  const formatted = formatUnits(raw, decimals);
  return { raw, formatted, unit, text: `${grouped(formatted)} ${unit}`, rawUnit: `raw units (${decimals} decimals)`, source };
}

export const UNKNOWN_TOKEN_SOURCE = 'unknown token: raw units';

/**
 * A token amount. Its decimals come from, in order: the instruction itself (Solana's *Checked instructions state the
 * mint's decimals, and the token program refuses them if they are wrong), the token as the lookup found it (the known
 * list or an operator's declaration). Otherwise the raw integer is shown as it is: decimals are never guessed.
 */
export function tokenAmount(raw: bigint, token: ResolvedToken | undefined, statedDecimals?: number): Amount {
  if (statedDecimals !== undefined) {
    const symbolSource =
      token === undefined
        ? 'unknown token'
        : token.origin === 'known token list'
          ? 'symbol from the known token list'
          : 'symbol declared by an operator';
    const source = `decimals stated by the instruction; ${symbolSource}`;
    return tokenUnits(raw, statedDecimals, token?.symbol ?? 'tokens', source);
  }
  if (token !== undefined) return tokenUnits(raw, token.decimals, token.symbol, token.origin);
  return { raw, formatted: raw.toString(), unit: 'raw units', text: `${raw} raw units`, rawUnit: 'raw units', source: UNKNOWN_TOKEN_SOURCE };
}

/** "Large transfer: 250,000 USDC ≥ your 10,000 USDC threshold": a token amount at or above its threshold (Settings). */
export function warnLargeTransfer(amount: Amount, token: ResolvedToken, threshold: bigint | undefined, warnings: Warnings): void {
  if (threshold === undefined || amount.raw < threshold || amount.unit !== token.symbol) return;
  const limit = tokenUnits(threshold, token.decimals, token.symbol, token.origin);
  warnings.add('VALUE_ABOVE_THRESHOLD', `Large transfer: ${amount.text} ≥ your ${limit.text} threshold.`, `${token.symbol} ${amount.raw}`);
}
