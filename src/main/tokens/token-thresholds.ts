/**
 * Large-value warnings per token. An operator sets a threshold in the token's units ("10000" USDC); main converts it
 * exactly to base units with the token's decimals when it is saved and holds it so, and shows it in the units of the
 * token as declared now. Held in base units, a threshold does not move when a declaration's decimals change: a
 * transfer of the same base units stays flagged whatever its amount reads as.
 */
import { formatUnits } from 'viem';
import { KNOWN_TOKENS } from '../../shared/clear-signing/known-tokens';
import { ethereumNetwork } from '../../shared/clear-signing/networks';
import { tokenImitation } from '../../shared/clear-signing/token-reservation';
import type { KnownToken, TokenThreshold } from '../../shared/clear-signing/types';
import { QkError } from '../../shared/errors';
import type { AppSettings, DeclaredToken, TokenCatalogEntry, TokenWarnAboveInput } from '../../shared/ipc/contract';

type TokenWarnAbove = NonNullable<AppSettings['tokenWarnAbove']>;
type TokenKey = TokenWarnAbove[number]['token'];

const MAX_UINT256 = 2n ** 256n - 1n;

/** Ethereum addresses compare whatever their letter case; a mint exactly. */
export const tokenKeyText = (key: TokenKey) =>
  key.family === 'ethereum' ? `ethereum:${key.chainId}:${key.address.toLowerCase()}` : `solana:${key.address}`;

/**
 * `text` in the token's base units, exactly: "10,000.5" with 6 decimals is 10000500000. Group commas are allowed
 * where a person writes them; more decimals than the token has, zero, and more than a uint256 holds are refused.
 */
export function parseTokenUnits(text: string, token: { symbol: string; decimals: number }): bigint {
  const trimmed = text.trim();
  if (!/^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/.test(trimmed)) {
    throw new QkError(
      'REQUEST_INVALID',
      `threshold: ${JSON.stringify(trimmed.slice(0, 80))} is not an amount of ${token.symbol}; write it in the token's units, like 10000 or 0.5`,
      { field: 'threshold' },
    );
  }
  const [whole = '0', fraction = ''] = trimmed.replaceAll(',', '').split('.');
  if (fraction.length > token.decimals) {
    const has = token.decimals === 0 ? 'no decimals' : `${token.decimals} decimal${token.decimals === 1 ? '' : 's'}`;
    throw new QkError('REQUEST_INVALID', `threshold: ${token.symbol} has ${has}; ${trimmed} has ${fraction.length}`, { field: 'threshold' });
  }
  const raw = BigInt(whole) * 10n ** BigInt(token.decimals) + BigInt(fraction.padEnd(token.decimals, '0') || '0');
  if (raw === 0n)
    throw new QkError('REQUEST_INVALID', `threshold: a threshold of 0 ${token.symbol} would flag every transfer; leave it empty for none`, {
      field: 'threshold',
    });
  if (raw > MAX_UINT256)
    throw new QkError('REQUEST_INVALID', `threshold: ${trimmed} ${token.symbol} is more than a token amount can hold`, { field: 'threshold' });
  return raw;
}

function networkWords(token: KnownToken): string {
  return token.family === 'ethereum' ? `${ethereumNetwork(token.chainId).name} (chain id ${token.chainId})` : 'Solana';
}

const keyOf = (token: KnownToken): TokenKey =>
  token.family === 'ethereum' ? { family: 'ethereum', chainId: token.chainId, address: token.address } : { family: 'solana', address: token.address };

/** The known tokens, then the declarations read (not those imitating a known token), each with its threshold. */
export function tokenCatalog(declared: readonly DeclaredToken[], warnAbove: TokenWarnAbove | undefined): TokenCatalogEntry[] {
  const thresholds = new Map((warnAbove ?? []).map((entry) => [tokenKeyText(entry.token), BigInt(entry.baseUnits)]));
  const entry = (token: KnownToken, origin: TokenCatalogEntry['origin']): TokenCatalogEntry => {
    const baseUnits = thresholds.get(tokenKeyText(keyOf(token)));
    const threshold = baseUnits === undefined ? undefined : formatUnits(baseUnits, token.decimals);
    return {
      token: keyOf(token),
      symbol: token.symbol,
      ...(token.name === undefined ? {} : { name: token.name }),
      decimals: token.decimals,
      origin,
      network: networkWords(token),
      ...(threshold === undefined ? {} : { warnAbove: threshold }),
    };
  };
  return [
    ...KNOWN_TOKENS.map((token) => entry(token, 'known token list')),
    ...declared.filter((token) => tokenImitation(token) === undefined).map((token) => entry(token, 'declared by an operator')),
  ];
}

/**
 * Checks thresholds before they are saved: each names a token of the catalog once, in its units. Answers them as
 * stored: the catalog's spelling of the address and the amount in the token's base units.
 */
export function checkTokenWarnAbove(entries: TokenWarnAboveInput, catalog: readonly TokenCatalogEntry[]): TokenWarnAbove {
  const byKey = new Map(catalog.map((token) => [tokenKeyText(token.token), token]));
  const seen = new Set<string>();
  return entries.map(({ token: key, amount }) => {
    const keyText = tokenKeyText(key);
    const token = byKey.get(keyText);
    if (token === undefined) {
      throw new QkError(
        'REQUEST_INVALID',
        `tokenWarnAbove: no known or declared token is at ${key.address}${key.family === 'ethereum' ? ` on chain id ${key.chainId}` : ' on Solana'}; declare it first`,
        { field: 'tokenWarnAbove' },
      );
    }
    if (seen.has(keyText))
      throw new QkError('REQUEST_INVALID', `tokenWarnAbove: ${token.symbol} on ${token.network} has two thresholds; keep one`, {
        field: 'tokenWarnAbove',
      });
    seen.add(keyText);
    return { token: token.token, baseUnits: parseTokenUnits(amount, token).toString() };
  });
}

/** A threshold as settings.json held it before thresholds were kept in base units: in the token's units. */
export interface LegacyTokenThreshold {
  token: TokenKey;
  amount: string;
}

/**
 * Thresholds read from a settings file written when they were kept in the token's units, in base units: converted
 * once, with the decimals the token has when the file is first read. One that no token of the catalog reads, or with
 * more decimals than its token has, was not in force then (the reader skipped it) and is left out.
 */
export function migratedThresholds(
  entries: readonly (TokenWarnAbove[number] | LegacyTokenThreshold)[],
  catalog: readonly TokenCatalogEntry[],
): TokenWarnAbove {
  const byKey = new Map(catalog.map((token) => [tokenKeyText(token.token), token]));
  return entries.flatMap((entry) => {
    if ('baseUnits' in entry) return [entry];
    const token = byKey.get(tokenKeyText(entry.token));
    if (token === undefined) return [];
    try {
      return [{ token: entry.token, baseUnits: parseTokenUnits(entry.amount, token).toString() }];
    } catch {
      return [];
    }
  });
}

/** The thresholds in base units for the clear-signing reader, which applies one only where it reads its token. */
export function tokenThresholdsOf(warnAbove: TokenWarnAbove | undefined): TokenThreshold[] {
  return (warnAbove ?? []).map(({ token, baseUnits }) => ({ ...token, raw: BigInt(baseUnits) }));
}
