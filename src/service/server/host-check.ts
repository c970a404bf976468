/**
 * The Host header check against DNS rebinding: a web page whose domain an attacker re-points at 127.0.0.1 can make
 * the browser send requests to the Sandbox, but the browser still names the attacker's domain in `Host`. Only the
 * names this service answers to (loopback by default) are served.
 */
import { QkError } from '../../shared/errors';

/** Where the service listens unless told otherwise: this machine only. */
export const DEFAULT_HOST = '127.0.0.1';

/** The names of this machine's loopback interface, as they appear in a Host header. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Addresses that bind every interface: not a name a client can use. */
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '[::]']);

/** Whether binding `address` serves this machine only: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** How `address` (an IP or a host name) appears in a Host header: IPv6 addresses in brackets. */
export function hostNameOf(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

/** The loopback names, the bound address unless it is a wildcard, and any extra names the operator allowed. */
export function allowedHostNames(boundAddress: string, extra: readonly string[]): string[] {
  const bound = hostNameOf(boundAddress);
  const names = [...LOOPBACK_HOST_NAMES, ...(WILDCARD_ADDRESSES.has(bound) ? [] : [bound]), ...extra.map(hostNameOf)];
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

/** Refuses a request whose Host header is missing or names another host or port than this service's. */
export function checkHostHeader(host: string | undefined, allowedNames: readonly string[], port: number): void {
  if (host === undefined || host === '') {
    throw new QkError('HOST_NOT_ALLOWED', 'the request has no Host header; send Host: 127.0.0.1:<port> (or localhost)');
  }
  const normalized = host.toLowerCase();
  const allowed = allowedNames.some((name) => normalized === `${name}:${port}` || (port === 80 && normalized === name));
  if (!allowed) {
    const shown = host.length > 100 ? `${host.slice(0, 100)}…` : host;
    throw new QkError(
      'HOST_NOT_ALLOWED',
      `Host ${JSON.stringify(shown)} is not this service: it answers only to ${allowedNames.map((name) => `${name}:${port}`).join(', ')} (a page on another domain that resolves here is refused)`,
      { allowedHosts: allowedNames.map((name) => `${name}:${port}`) },
    );
  }
}
