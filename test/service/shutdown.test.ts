/**
 * Closing the service while it answers a request: the answer goes out in full and ends its connection, so closing
 * finishes with it instead of waiting out the connection's keep-alive timeout (72 s), as it once did whenever a
 * desktop's parallel reads were still running when the Sandbox stopped.
 */
import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createNodeStampVerifier } from '../../src/node/stamp-backend';
import { HEALTH_PATH } from '../../src/service/server/app';
import { stampedHeaders, startTestService } from '../support/service';

describe('closing with a request in flight', () => {
  it('answers it in full with "Connection: close", and then is closed', async () => {
    const verifier = createNodeStampVerifier();
    let reached!: () => void;
    const stampReached = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The request's stamp check waits until the service has begun closing.
    const service = await startTestService({
      stampVerifier: {
        verify: async (...args) => {
          reached();
          await released;
          return verifier.verify(...args);
        },
      },
    });
    const body = JSON.stringify({ organizationId: service.info.organizationId });
    // fetch keeps its connections alive, as every SDK's client does.
    const answer = fetch(`${service.info.baseUrl}/public/v1/query/whoami`, {
      method: 'POST',
      headers: await stampedHeaders(body, service.rootKey),
      body,
    });
    await stampReached;
    const closed = service.close();
    await closingBegun(service.info.baseUrl);
    release();
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toMatchObject({ userId: service.info.rootUserId });
    await closed;
  });
});

describe('health while closing', () => {
  it('answers 503 on a new connection while a request in flight is still being answered', async () => {
    const verifier = createNodeStampVerifier();
    let reached!: () => void;
    const stampReached = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const service = await startTestService({
      stampVerifier: {
        verify: async (...args) => {
          reached();
          await released;
          return verifier.verify(...args);
        },
      },
    });
    const body = JSON.stringify({ organizationId: service.info.organizationId });
    const answer = fetch(`${service.info.baseUrl}/public/v1/query/whoami`, {
      method: 'POST',
      headers: await stampedHeaders(body, service.rootKey),
      body,
    });
    await stampReached;
    const closed = service.close();
    let health: number | string;
    do health = await healthOnNewConnection(service.info.baseUrl);
    while (health === 200);
    expect(health).toBe(503);
    release();
    expect((await answer).status).toBe(200);
    await closed;
  });
});

/** GET /health on a connection of its own: its HTTP status, or the error code when the connection fails. */
function healthOnNewConnection(baseUrl: string): Promise<number | string> {
  return new Promise((resolve) => {
    get(`${baseUrl}${HEALTH_PATH}`, { agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    }).on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** Resolves once the service turns its health check away (503) or no longer accepts connections: it is closing. */
async function closingBegun(baseUrl: string): Promise<void> {
  const healthy = () =>
    fetch(`${baseUrl}${HEALTH_PATH}`).then(
      (reply) => reply.status === 200,
      () => false,
    );
  while (await healthy());
}
