/**
 * The symbols and names of the known token list belong to their canonical (chain, address). A declaration that
 * imitates one elsewhere ("USDC", "usdc", "U5DC", "ＵＳＤＣ", Cyrillic "USDС", name "USD Coin") would make a card read
 * "Transfer 250,000 USDC" for a worthless contract, so it is refused, and one stored before this rule existed is not
 * read. Refused on every chain, also where the list has no such token: the app cannot tell USDC on another chain from
 * a copy, and the operator can still declare it under a symbol of its own ("USDC.avax").
 */
import { KNOWN_TOKENS } from './known-tokens';
import { ethereumNetwork } from './networks';
import type { KnownToken } from './types';

/** Latin look-alikes from other scripts, and digits and signs read as letters. */
const LOOK_ALIKES: Record<string, string> = {
  а: 'a',
  в: 'b',
  с: 'c',
  ԁ: 'd',
  е: 'e',
  һ: 'h',
  і: 'l',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  ѕ: 's',
  т: 't',
  у: 'y',
  х: 'x',
  ԝ: 'w',
  ь: 'b',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'l',
  κ: 'k',
  μ: 'u',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  '0': 'o',
  '1': 'l',
  i: 'l',
  '|': 'l',
  '!': 'l',
  '5': 's',
  $: 's',
  '8': 'b',
  '@': 'a',
  '3': 'e',
  '4': 'a',
  '7': 't',
};

/**
 * What a symbol or name looks like to a person: compatibility forms folded (fullwidth, ligatures), accents, spaces
 * and invisible characters dropped, letter case ignored, look-alikes mapped to the letter they imitate, and "rn"
 * read as "m", "vv" as "w".
 */
export function tokenLookalikeKey(text: string): string {
  const folded = text
    .normalize('NFKD')
    .replace(/[\p{M}\p{Cf}\s_.\-·]/gu, '')
    .toLowerCase();
  return [...folded]
    .map((character) => LOOK_ALIKES[character] ?? character)
    .join('')
    .replaceAll('rn', 'm')
    .replaceAll('vv', 'w');
}

type TokenPlace = { family: 'ethereum'; chainId: number; address: string } | { family: 'solana'; address: string };

const samePlace = (a: TokenPlace, b: TokenPlace) =>
  a.family === 'ethereum' && b.family === 'ethereum'
    ? a.chainId === b.chainId && a.address.toLowerCase() === b.address.toLowerCase()
    : a.family === b.family && a.address === b.address;

const RESERVED = KNOWN_TOKENS.map((token) => ({ token, keys: new Set([token.symbol, token.name ?? token.symbol].map(tokenLookalikeKey)) }));

/** Where a known token lives, as an error names it: "0xA0b8… on Ethereum (chain id 1)", "Solana mint EPjF…". */
export function tokenPlaceWords(token: TokenPlace): string {
  return token.family === 'ethereum'
    ? `${token.address} on ${ethereumNetwork(token.chainId).name} (chain id ${token.chainId})`
    : `Solana mint ${token.address}`;
}

export interface TokenImitation {
  /** The declaration's symbol or name that imitates. */
  field: 'symbol' | 'name';
  /** The known tokens it imitates, the one on the declaration's own chain first. */
  canonical: readonly KnownToken[];
  /** ""USDC" is reserved to USD Coin: 0xA0b8… on Ethereum (chain id 1), …; declare this token under a symbol of its own". */
  reason: string;
}

/**
 * The known tokens whose symbol or name `token` imitates from another place, or undefined when it imitates none
 * (the canonical entry itself is no imitation).
 */
export function tokenImitation(token: TokenPlace & { symbol: string; name?: string | undefined }): TokenImitation | undefined {
  for (const field of ['symbol', 'name'] as const) {
    const value = token[field];
    if (value === undefined) continue;
    const key = tokenLookalikeKey(value);
    const imitated = RESERVED.filter(({ token: known, keys }) => keys.has(key) && !samePlace(known, token)).map(({ token: known }) => known);
    if (imitated.length === 0 || RESERVED.some(({ token: known, keys }) => keys.has(key) && samePlace(known, token))) continue;
    const canonical = [...imitated].sort((a, b) => Number(onChainOf(b, token)) - Number(onChainOf(a, token)));
    const first = canonical[0]!;
    const places = canonical.map(tokenPlaceWords).join('; ');
    return {
      field,
      canonical,
      reason: `${JSON.stringify(value)} is reserved to ${first.name ?? first.symbol} (${first.symbol}) of the known token list, at ${places}; declare this token under a ${field} of its own`,
    };
  }
  return undefined;
}

const onChainOf = (known: KnownToken, token: TokenPlace) =>
  known.family === token.family && (known.family !== 'ethereum' || token.family !== 'ethereum' || known.chainId === token.chainId);
