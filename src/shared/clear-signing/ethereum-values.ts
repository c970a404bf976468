/**
 * Decoded Ethereum values (ABI call arguments, EIP-712 messages) as readable trees: addresses labelled, integers
 * shown whole, amounts in the units of the token named beside them, deadlines as dates, the maximum of an integer
 * type named "unlimited".
 */
import { getAddress, isAddress } from 'viem';
import { tokenAmount } from './amounts';
import type { Lookup } from './lookup';
import type { ReadableNode, ResolvedToken } from './types';

/** A member of a struct or an argument list: its name and Solidity / EIP-712 type. */
export interface TypedMember {
  name: string;
  type: string;
}

/**
 * The token amounts are counted in: one the lookup found, or `unknown` for a token contract it does not know, whose
 * amounts stay raw with a note saying so.
 */
export type AmountToken = ResolvedToken | 'unknown';

/** Resolves a struct type to its members (ABI tuples carry them; EIP-712 names them in `types`). */
export type StructMembers = (member: TypedMember) => readonly TypedMember[] | undefined;

/** Integer arguments with these names carry an amount of the token named beside them (ERC-20, Permit, Permit2). */
const AMOUNT_NAME = /^(?:amount|value|wad|allowance|addedValue|subtractedValue|requestedAmount)$/i;
/** Seconds since the epoch: shown as a date. */
const TIME_NAME = /^(?:deadline|expiry|expiration|sigDeadline|validUntil|validAfter|validBefore)$/i;

/** The largest value of `uint<N>`; undefined for other types. */
export function maxOfType(type: string): bigint | undefined {
  const match = /^uint(\d*)$/.exec(type);
  if (match === null) return undefined;
  const bits = match[1] === '' ? 256 : Number(match[1]);
  return (1n << BigInt(bits)) - 1n;
}

function isAmountName(name: string): boolean {
  return AMOUNT_NAME.test(name);
}

function integer(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^(?:-?\d+|0x[0-9a-fA-F]+)$/.test(value)) return BigInt(value);
  return undefined;
}

/**
 * Reads a list of members. The token for amounts is, in order: a `token` member of the same list, else `token`
 * passed in by the caller (the contract the call goes to, when it is a token).
 */
export function readableMembers(
  members: readonly TypedMember[],
  valueOf: (member: TypedMember, index: number) => unknown,
  structMembers: StructMembers,
  lookup: Lookup,
  token?: AmountToken,
): ReadableNode[] {
  const tokenMember = members.findIndex((member) => member.name === 'token' && member.type === 'address');
  const siblingToken = tokenMember === -1 ? undefined : tokenAt(valueOf(members[tokenMember]!, tokenMember), lookup);
  return members.map((member, index) => readableValue(member, valueOf(member, index), structMembers, lookup, siblingToken ?? token));
}

/** A `token` member names a token contract: amounts beside it are in its units, or raw when it is not known. */
function tokenAt(value: unknown, lookup: Lookup): AmountToken | undefined {
  if (typeof value !== 'string' || !isAddress(value, { strict: false })) return undefined;
  return lookup.token('ethereum', value) ?? 'unknown';
}

function readableValue(member: TypedMember, value: unknown, structMembers: StructMembers, lookup: Lookup, token?: AmountToken): ReadableNode {
  const { name, type } = member;
  const list = /^(.*)\[(\d*)\]$/.exec(type);
  if (list !== null) {
    const items = Array.isArray(value) ? (value as unknown[]) : [];
    const element = { name: '', type: list[1]! };
    return {
      name,
      type,
      text: `${items.length} item${items.length === 1 ? '' : 's'}`,
      children: items.map((item, index) => readableValue({ ...element, name: `[${index}]` }, item, structMembers, lookup, token)),
    };
  }
  const members = structMembers(member);
  if (members !== undefined) {
    const record = (value ?? {}) as Record<string, unknown> | unknown[];
    const read = (inner: TypedMember, index: number) => (Array.isArray(record) ? record[index] : record[inner.name]);
    return { name, type, text: '', children: readableMembers(members, read, structMembers, lookup, token) };
  }
  if (type === 'address' && typeof value === 'string' && isAddress(value, { strict: false })) {
    const address = getAddress(value);
    const ref = lookup.address('ethereum', address);
    return { name, type, text: ref.label === undefined ? address : `${ref.label} (${address})`, address: ref };
  }
  const number = /^u?int\d*$/.test(type) ? integer(value) : undefined;
  if (number !== undefined) {
    const raw = number.toString();
    if (number === maxOfType(type)) return { name, type, text: `unlimited (the maximum ${type})`, raw };
    if (TIME_NAME.test(name) && number > 0n && number < 1n << 40n) {
      return { name, type, text: new Date(Number(number) * 1000).toISOString(), raw };
    }
    if (isAmountName(name) && token !== undefined) {
      const amount = tokenAmount(number, token === 'unknown' ? undefined : token);
      return { name, type, text: amount.text, raw, amount };
    }
    return { name, type, text: raw };
  }
  if (typeof value === 'boolean') return { name, type, text: value ? 'true' : 'false' };
  return {
    name,
    type,
    text: typeof value === 'string' ? value : JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)),
  };
}

/** Every node of the tree, depth first, that satisfies `predicate`. */
export function findNode(nodes: readonly ReadableNode[], predicate: (node: ReadableNode) => boolean): ReadableNode[] {
  return nodes.flatMap((node) => [...(predicate(node) ? [node] : []), ...findNode(node.children ?? [], predicate)]);
}
