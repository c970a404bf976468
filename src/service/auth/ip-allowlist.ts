/**
 * IP allowlists (docs/service.md#ip-allowlists): a request is served only from an address inside the allowlist that
 * applies to the credential that made it — the API key's own list if it has one, otherwise its organization's list
 * while that is enabled. An address that cannot be read is refused or allowed as the list's `onEvaluationError` says.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { QkError } from '../../shared/errors';
import type { Repositories } from '../store';
import type { IpAllowlistRecord } from '../store/ip-allowlists';
import type { Credential } from './credentials';
import { AuthLookups } from './lookups';

type Family = 'ipv4' | 'ipv6';

interface CidrBlock {
  network: string;
  prefix: number;
  family: Family;
}

/** `192.168.1.0/24` or `2001:db8::/32`, or why it is not a CIDR block. */
function parseCidr(cidr: string): CidrBlock | string {
  const slash = cidr.indexOf('/');
  if (slash === -1) return 'must be an address and a prefix length, e.g. 192.168.1.0/24';
  const network = cidr.slice(0, slash);
  const prefixText = cidr.slice(slash + 1);
  const family: Family | undefined = isIPv4(network) ? 'ipv4' : isIPv6(network) ? 'ipv6' : undefined;
  if (family === undefined) return `"${network}" is not an IPv4 or IPv6 address`;
  const maxPrefix = family === 'ipv4' ? 32 : 128;
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > maxPrefix)
    return `the prefix length must be a whole number from 0 to ${maxPrefix}, got "${prefixText}"`;
  return { network, prefix, family };
}

/** Refuses a rule that is not a CIDR block, naming the field. */
export function checkCidr(cidr: string, field: string): void {
  const parsed = parseCidr(cidr);
  if (typeof parsed === 'string') throw new QkError('REQUEST_INVALID', `${field}: ${parsed}`, { issues: [{ path: field, message: parsed }] });
}

/** The client's address as the socket reports it, IPv4-mapped IPv6 read as IPv4; undefined when unreadable. */
function clientAddress(remoteAddress: string | undefined): { address: string; family: Family } | undefined {
  if (remoteAddress === undefined) return undefined;
  const mapped = /^::ffff:(.+)$/i.exec(remoteAddress)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return { address: mapped, family: 'ipv4' };
  if (isIPv4(remoteAddress)) return { address: remoteAddress, family: 'ipv4' };
  if (isIPv6(remoteAddress)) return { address: remoteAddress, family: 'ipv6' };
  return undefined;
}

function allows(list: IpAllowlistRecord, client: { address: string; family: Family }): boolean {
  const blocks = new BlockList();
  for (const rule of list.rules) {
    const block = parseCidr(rule.cidr);
    if (typeof block !== 'string') blocks.addSubnet(block.network, block.prefix, block.family);
  }
  return blocks.check(client.address, client.family);
}

/** The list that governs requests made with `credential`, if any; read through the cache authentication reads through. */
function applicableList(store: Repositories, credential: Pick<Credential, 'organizationId' | 'publicKey'>): IpAllowlistRecord | undefined {
  const lookups = AuthLookups.current(store);
  const ownList = lookups.ipAllowlist(credential.organizationId, credential.publicKey);
  if (ownList !== undefined) return ownList;
  const organizationList = lookups.ipAllowlist(credential.organizationId, undefined);
  return organizationList?.enabled === true ? organizationList : undefined;
}

/** Throws REQUEST_NOT_AUTHORIZED for a request from outside the allowlist that applies to its credential. */
export function requireAllowedAddress(
  store: Repositories,
  credential: Pick<Credential, 'organizationId' | 'publicKey'>,
  remoteAddress: string | undefined,
): void {
  const list = applicableList(store, credential);
  if (list === undefined) return;
  const whose = list.publicKey === undefined ? `organization ${list.organizationId}` : `API key ${list.publicKey}`;
  const client = clientAddress(remoteAddress);
  if (client === undefined) {
    if (list.onEvaluationError === 'ALLOW') return;
    throw new QkError(
      'REQUEST_NOT_AUTHORIZED',
      `request not authorized: the client address "${remoteAddress ?? ''}" cannot be checked against the IP allowlist of ${whose}`,
    );
  }
  if (!allows(list, client)) {
    throw new QkError('REQUEST_NOT_AUTHORIZED', `request not authorized: ${client.address} is outside the IP allowlist of ${whose}`, {
      address: client.address,
    });
  }
}
