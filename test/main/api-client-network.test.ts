/**
 * Issue 15, finding 2: "Stamped requests follow redirects, and the client never times out." The client talks to
 * real local HTTP servers: one that redirects to another port (which must never see the stamp), one that never
 * answers, and one whose pending request the person cancels.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/main/client/api-client';
import { InFlightRequests } from '../../src/main/client/in-flight';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { rejection } from '../support/assertions';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: (request: IncomingMessage, respond: (status: number, headers: Record<string, string>, body?: string) => void) => void) {
  const server = createServer((request, response) =>
    handler(request, (status, headers, body = '') => {
      response.writeHead(status, headers);
      response.end(body);
    }),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function clientFor(baseUrl: string, options: { timeoutMs?: number; inFlight?: InFlightRequests } = {}) {
  const keyPair = generateApiKeyPair('p256');
  const signer = signerFromPrivateKey('p256', keyPair.privateKey);
  return new ApiClient({
    profile: { baseUrl, organizationId: '5f6b1e1c-7c38-4d6b-9a53-2b3f9a4f4a10', apiKeyName: 'operator' },
    stamper: { stamp: (_name, body) => stampBody(body, signer) },
    ...options,
  });
}

describe('finding 2: stamped requests follow redirects, and the client never times out', () => {
  it('refuses a 307 to another host, naming it, and never re-sends the stamped request there', async () => {
    const received: { url: string | undefined; stamp: string | undefined }[] = [];
    const elsewhere = await serve((request, respond) => {
      received.push({ url: request.url, stamp: request.headers['x-stamp'] as string | undefined });
      respond(200, { 'content-type': 'application/json' }, '{}');
    });
    const redirecting = await serve((request, respond) => respond(307, { location: `${elsewhere}${request.url}` }));

    const error = await rejection(clientFor(redirecting).query('whoami', {}));

    expect(error.code).toBe('REDIRECT_REFUSED');
    expect(error.message).toContain(new URL(elsewhere).host);
    expect(error.details).toMatchObject({ httpStatus: 307, location: `${elsewhere}/public/v1/query/whoami` });
    expect(received).toEqual([]);
  });

  it('times out a request that is never answered with a TIMEOUT error', async () => {
    const seen: string[] = [];
    const silent = await serve((request) => seen.push(request.url ?? ''));

    const error = await rejection(clientFor(silent, { timeoutMs: 300 }).query('whoami', {}));

    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toMatch(/did not answer within 0\.3 s/);
    expect(seen).toEqual(['/public/v1/query/whoami']);
  });

  it('lists a pending request and cancels it on request, answering CANCELLED', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    const silent = await serve(() => arrived());
    const inFlight = new InFlightRequests();

    const pending = rejection(clientFor(silent, { inFlight }).query('whoami', {}));
    await requestArrived;
    expect(inFlight.list()).toEqual([expect.objectContaining({ url: `${silent}/public/v1/query/whoami` })]);
    expect(inFlight.cancel()).toBe(1);

    const error = await pending;
    expect(error.code).toBe('CANCELLED');
    expect(inFlight.list()).toEqual([]);
    expect(inFlight.cancel('no-such-request')).toBe(0);
  });

  it('refuses a timeout that is not a positive whole number of milliseconds', () => {
    expect(() => clientFor('http://127.0.0.1:1', { timeoutMs: 0 })).toThrow(/positive number of milliseconds/);
  });
});
