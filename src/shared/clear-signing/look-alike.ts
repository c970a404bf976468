/**
 * Look-alike (poisoned) addresses: an attacker sends dust from an address that starts and ends as one the victim uses,
 * hoping it is copied from the history later, since people check only an address's ends. An address in a request that
 * shares its first 4 and last 4 characters (after 0x; Ethereum's ignoring letter case, Solana's exactly) with a known
 * address, without being it, is named beside the known one with the characters that differ.
 */
import { isAddress as isSolanaAddress } from '@solana/kit';
import { KNOWN_TOKENS } from './known-tokens';
import { tokenImitation } from './token-reservation';
import type { AddressRef, CharacterRange, ClearSigningContext, LookAlike, SigningDetails } from './types';

/** How many characters at each end a person is assumed to check. */
export const CHECKED_END_LENGTH = 4;

type Family = 'ethereum' | 'solana';

/** An address the organization knows, with the name it knows it by. */
export interface KnownAddress {
  family: Family;
  address: string;
  name: string;
}

const ETHEREUM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The family an address's spelling belongs to; Bitcoin's and anything else are not compared. */
function familyOf(address: string): Family | undefined {
  if (ETHEREUM_ADDRESS.test(address)) return 'ethereum';
  return isSolanaAddress(address) ? 'solana' : undefined;
}

/** The characters compared: Ethereum's 40 hex digits without 0x and in one case, a Solana address as it is. */
const comparedOf = (family: Family, address: string) => (family === 'ethereum' ? address.slice(2).toLowerCase() : address);

/**
 * Every address the organization knows, named: its wallet accounts and private keys, its address book, uploaded
 * interfaces, declared and well-known tokens, and past recipients. An Ethereum address is compared on every chain: a
 * look-alike of one used on Base is as dangerous on Ethereum.
 */
export function knownAddressesOf(context: ClearSigningContext): KnownAddress[] {
  const named: { address: string; name: string }[] = [
    ...(context.wallets ?? []).flatMap((wallet) =>
      wallet.accounts.map((account) => ({
        address: account.address,
        name: account.path === undefined ? wallet.walletName : `${wallet.walletName} / ${account.path}`,
      })),
    ),
    ...(context.privateKeys ?? []).flatMap((key) => key.addresses.map((entry) => ({ address: entry.address, name: key.privateKeyName }))),
    ...(context.addressBook ?? []).map((entry) => ({ address: entry.address, name: entry.name })),
    ...(context.contracts ?? []).map((contract) => ({ address: contract.address, name: contract.label })),
    ...KNOWN_TOKENS.map((token) => ({ address: token.address, name: token.symbol })),
    // A declaration imitating a known token's symbol is not read anywhere, so it names nothing here either.
    ...(context.tokens ?? []).filter((token) => tokenImitation(token) === undefined).map((token) => ({ address: token.address, name: token.symbol })),
    ...(context.knownRecipients ?? []).map((address) => ({ address, name: 'a past recipient' })),
  ];
  return named.flatMap(({ address, name }) => {
    const family = familyOf(address);
    return family === undefined ? [] : [{ family, address, name }];
  });
}

/** The known address `address` imitates, or undefined when it is one of them or imitates none. */
export function lookAlikeOf(address: string, known: readonly KnownAddress[]): LookAlike | undefined {
  const family = familyOf(address);
  if (family === undefined) return undefined;
  const compared = comparedOf(family, address);
  const sameFamily = known.filter((candidate) => candidate.family === family);
  if (sameFamily.some((candidate) => comparedOf(family, candidate.address) === compared)) return undefined;
  const head = compared.slice(0, CHECKED_END_LENGTH);
  const tail = compared.slice(-CHECKED_END_LENGTH);
  const imitated = sameFamily.find((candidate) => {
    const other = comparedOf(family, candidate.address);
    return other.startsWith(head) && other.endsWith(tail);
  });
  if (imitated === undefined) return undefined;
  const offset = family === 'ethereum' ? 2 : 0;
  const [addressDiffers, knownDiffers] = differingRanges(compared, comparedOf(family, imitated.address), offset);
  return { address, known: { address: imitated.address, name: imitated.name }, addressDiffers, knownDiffers };
}

/**
 * Where `a` and `b` differ, as ranges of each (shifted by `offset`, the 0x left out of the comparison). Of equal
 * length, every run of differing characters; otherwise the whole stretch between their common start and end.
 */
function differingRanges(a: string, b: string, offset: number): [CharacterRange[], CharacterRange[]] {
  if (a.length === b.length) {
    const runs: CharacterRange[] = [];
    for (let index = 0; index < a.length; index += 1) {
      if (a[index] === b[index]) continue;
      const last = runs.at(-1);
      if (last !== undefined && last.end === index + offset) last.end += 1;
      else runs.push({ start: index + offset, end: index + offset + 1 });
    }
    return [runs, runs.map((run) => ({ ...run }))];
  }
  const shorter = Math.min(a.length, b.length);
  let head = 0;
  while (head < shorter && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < shorter - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  return [[{ start: head + offset, end: a.length - tail + offset }], [{ start: head + offset, end: b.length - tail + offset }]];
}

/** `address` with each range in brackets: how a text-only surface (the confirmation, the terminal) marks them. */
export function bracketed(address: string, ranges: readonly CharacterRange[]): string {
  let text = '';
  let at = 0;
  for (const { start, end } of ranges) {
    text += `${address.slice(at, start)}[${address.slice(start, end)}]`;
    at = end;
  }
  return text + address.slice(at);
}

/** The warning's sentence, both addresses in full with what differs in brackets. */
export function lookAlikeMessage({ address, known, addressDiffers, knownDiffers }: LookAlike): string {
  return (
    `${bracketed(address, addressDiffers)} is not “${known.name}” (${bracketed(known.address, knownDiffers)}). ` +
    `It starts and ends with the same ${CHECKED_END_LENGTH} characters but differs in between, as addresses planted in a wallet's history to be copied by mistake do. ` +
    `Do not sign unless you checked the whole address against a trusted source.`
  );
}

/** Every address the request names (recipient, spender, `to`, typed data's fields…) that imitates a known one. */
export function lookAlikesIn(details: SigningDetails, context: ClearSigningContext): LookAlike[] {
  const known = knownAddressesOf(context);
  if (known.length === 0) return [];
  const found = new Map<string, LookAlike>();
  for (const ref of addressRefsIn(details)) {
    if (found.has(ref.address)) continue;
    const lookAlike = lookAlikeOf(ref.address, known);
    if (lookAlike !== undefined) found.set(ref.address, lookAlike);
  }
  return [...found.values()];
}

/**
 * Every address the reader labelled anywhere in the details, found by its shape so a new kind of node is covered as
 * soon as it holds an AddressRef. The policy keywords repeat the same values unlabelled and are left out.
 */
function addressRefsIn(value: unknown): AddressRef[] {
  if (Array.isArray(value)) return value.flatMap(addressRefsIn);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const own: AddressRef[] = typeof record['address'] === 'string' && typeof record['role'] === 'string' ? [record as unknown as AddressRef] : [];
  return [...own, ...Object.entries(record).flatMap(([key, child]) => (key === 'policy' ? [] : addressRefsIn(child)))];
}
