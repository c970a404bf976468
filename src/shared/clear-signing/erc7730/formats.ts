/**
 * The field formats ERC-7730 defines, each turning one value into the text a wallet shows. Amounts are exact
 * (viem's formatUnits over bigints, no grouping, no rounding); dates are UTC, `YYYY-MM-DD HH:MM:SSZ`, as the
 * registry's fixtures write them.
 */
import { formatUnits, getAddress, keccak256, bytesToHex, hexToBytes } from 'viem';
import { QkError } from '../../errors';
import { chainById, ethereumNetwork } from '../networks';
import type { DataValue } from './values';

/** Raw: integers in decimal, addresses checksummed (ERC-55), bytes as hex, strings as they are. */
export function rawText(value: DataValue): string {
  switch (value.kind) {
    case 'int':
      return value.value.toString();
    case 'bool':
      return value.value ? 'true' : 'false';
    case 'address':
      return getAddress(value.value);
    case 'bytes':
    case 'string':
      return value.value;
    case 'list':
      return `[${value.items.map(rawText).join(', ')}]`;
    case 'struct':
      return `{${Object.entries(value.fields)
        .map(([name, field]) => `${name}: ${rawText(field)}`)
        .join(', ')}}`;
  }
}

/** An integer, or an address or bytes read as one (a token amount may be stored in a bytes32). */
export function integerOf(value: DataValue, what: string): bigint {
  if (value.kind === 'int') return value.value;
  if ((value.kind === 'bytes' || value.kind === 'address') && value.value.length > 2) return BigInt(value.value);
  if (value.kind === 'bytes') return 0n;
  throw new QkError('REQUEST_INVALID', `${what}: a ${value.kind} value is not an integer`);
}

/** An address, from an address or from the last 20 bytes of a longer bytes value. */
export function addressOf(value: DataValue, what: string): string {
  if (value.kind === 'address') return getAddress(value.value);
  if (value.kind === 'bytes' && value.value.length >= 42) return getAddress(`0x${value.value.slice(-40)}`);
  if (value.kind === 'int') return getAddress(`0x${BigInt.asUintN(160, value.value).toString(16).padStart(40, '0')}`);
  if (value.kind === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value.value)) return getAddress(value.value);
  throw new QkError('REQUEST_INVALID', `${what}: ${rawText(value)} is not an address`);
}

export function nativeSymbol(chainId: number): string {
  return chainById(chainId)?.nativeCurrency.symbol ?? `native units of chain ${chainId}`;
}

/** `amount`: the container's native currency, 18 decimals. */
export function nativeAmountText(amount: bigint, chainId: number): string {
  const chain = chainById(chainId);
  return `${formatUnits(amount, chain?.nativeCurrency.decimals ?? 18)} ${nativeSymbol(chainId)}`;
}

export function tokenAmountText(amount: bigint, decimals: number, symbol: string): string {
  return `${formatUnits(amount, decimals)} ${symbol}`;
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** `date`: Unix seconds in UTC. */
export function dateText(seconds: bigint): string {
  const milliseconds = Number(seconds) * 1000;
  const date = new Date(milliseconds);
  if (!Number.isFinite(milliseconds) || Number.isNaN(date.getTime())) throw new QkError('REQUEST_INVALID', `${seconds} seconds is not a date`);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}Z`;
}

/** `duration`: seconds as HH:MM:ss, hours past 24 kept as hours. */
export function durationText(seconds: bigint): string {
  if (seconds < 0n) throw new QkError('REQUEST_INVALID', `a duration cannot be negative (${seconds} s)`);
  const hours = seconds / 3600n;
  const minutes = (seconds % 3600n) / 60n;
  return `${hours.toString().padStart(2, '0')}:${pad(Number(minutes))}:${pad(Number(seconds % 60n))}`;
}

const SI_PREFIXES: Record<number, string> = {
  [-24]: 'y',
  [-21]: 'z',
  [-18]: 'a',
  [-15]: 'f',
  [-12]: 'p',
  [-9]: 'n',
  [-6]: 'µ',
  [-3]: 'm',
  0: '',
  3: 'k',
  6: 'M',
  9: 'G',
  12: 'T',
  15: 'P',
  18: 'E',
  21: 'Z',
  24: 'Y',
};

/** `unit`: value / 10^decimals then the unit's symbol; with `prefix`, the largest SI prefix that keeps it ≥ 1. */
export function unitText(value: bigint, decimals: number, base: string, prefix: boolean): string {
  if (!prefix || value === 0n) return `${formatUnits(value, decimals)}${base}`;
  const digits = (value < 0n ? -value : value).toString().length - 1 - decimals;
  const exponent = Math.max(-24, Math.min(24, Math.floor(digits / 3) * 3));
  return `${formatUnits(value, decimals + exponent)}${SI_PREFIXES[exponent] ?? ''}${base}`;
}

/** `chainId`: the chain's name. */
export function chainText(chainId: bigint): string {
  if (chainId > BigInt(Number.MAX_SAFE_INTEGER) || chainId < 0n) return `chain ${chainId}`;
  const network = ethereumNetwork(Number(chainId));
  return chainById(Number(chainId)) === undefined ? `chain ${chainId}` : network.name;
}

/**
 * `interoperableAddressName` (ERC-7930): version, chain type, chain reference and address, shown as
 * `<address>@<namespace>:<reference>#<checksum>`; the checksum is the first four bytes of the Keccak-256 of
 * everything after the version.
 */
export function interoperableAddressText(hex: string, name: (address: string) => string): string {
  const bytes = hexToBytes(hex as `0x${string}`);
  if (bytes.length < 6) throw new QkError('REQUEST_INVALID', `${hex} is too short for an ERC-7930 interoperable address`);
  const chainType = ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0);
  const referenceLength = bytes[4] ?? 0;
  const reference = bytes.slice(5, 5 + referenceLength);
  const addressLength = bytes[5 + referenceLength];
  const address = bytes.slice(6 + referenceLength);
  if (addressLength === undefined || address.length !== addressLength) {
    throw new QkError('REQUEST_INVALID', `${hex} is not an ERC-7930 interoperable address: its lengths do not add up`);
  }
  const checksum = keccak256(bytes.slice(2)).slice(2, 10).toUpperCase();
  if (chainType !== 0) throw new QkError('REQUEST_INVALID', `${hex} names chain type ${chainType}; only EVM (0x0000) addresses are read`);
  const chain = reference.length === 0 ? '' : `eip155:${BigInt(bytesToHex(reference)).toString()}`;
  const shown = address.length === 20 ? name(getAddress(bytesToHex(address))) : bytesToHex(address);
  return `${shown}@${chain}#${checksum}`;
}
