/**
 * Large-value warnings per token. An operator sets a threshold in the token's units ("10000" USDC); main converts it
 * exactly to base units with the token's decimals when it reads a request, so a card can say "Large transfer:
 * 250,000 USDC ≥ your 10,000 USDC threshold". The text is kept as typed (normalized), not its base units: replacing a
 * declaration's decimals keeps the threshold at the amount the operator meant.
 */
import { KNOWN_TOKENS } from '../../shared/clear-signing/known-tokens';
import { ethereumNetwork } from '../../shared/clear-signing/networks';
import { tokenImitation } from '../../shared/clear-signing/token-reservation';
import type { KnownToken, TokenThreshold } from '../../shared/clear-signing/types';
import { QkError } from '../../shared/errors';
import type { AppSettings, DeclaredToken, TokenCatalogEntry } from '../../shared/ipc/contract';

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

/** "10,000.50" → "10000.50": the text kept in Settings. */
const normalizedUnits = (text: string) => text.trim().replaceAll(',', '');

function networkWords(token: KnownToken): string {
  return token.family === 'ethereum' ? `${ethereumNetwork(token.chainId).name} (chain id ${token.chainId})` : 'Solana';
}

const keyOf = (token: KnownToken): TokenKey =>
  token.family === 'ethereum' ? { family: 'ethereum', chainId: token.chainId, address: token.address } : { family: 'solana', address: token.address };

/** The known tokens, then the declarations read (not those imitating a known token), each with its threshold. */
export function tokenCatalog(declared: readonly DeclaredToken[], warnAbove: TokenWarnAbove | undefined): TokenCatalogEntry[] {
  const thresholds = new Map((warnAbove ?? []).map((entry) => [tokenKeyText(entry.token), entry.amount]));
  const entry = (token: KnownToken, origin: TokenCatalogEntry['origin']): TokenCatalogEntry => {
    const threshold = thresholds.get(tokenKeyText(keyOf(token)));
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
 * stored: the catalog's spelling of the address and the amount without group commas.
 */
export function checkTokenWarnAbove(entries: TokenWarnAbove, catalog: readonly TokenCatalogEntry[]): TokenWarnAbove {
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
    parseTokenUnits(amount, token);
    return { token: token.token, amount: normalizedUnits(amount) };
  });
}

/** The thresholds in base units for the clear-signing reader; one whose token is no longer read is left out. */
export function tokenThresholdsOf(warnAbove: TokenWarnAbove | undefined, catalog: readonly TokenCatalogEntry[]): TokenThreshold[] {
  const byKey = new Map(catalog.map((token) => [tokenKeyText(token.token), token]));
  return (warnAbove ?? []).flatMap(({ token: key, amount }) => {
    const token = byKey.get(tokenKeyText(key));
    if (token === undefined) return [];
    try {
      return [{ ...token.token, raw: parseTokenUnits(amount, token) }];
    } catch {
      // A declaration replaced with fewer decimals than the threshold was written with: the Settings form shows it to set again.
      return [];
    }
  });
}
