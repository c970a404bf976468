/**
 * Issue 36, item 5: a hostile hosted service stalls main. A fake service on 127.0.0.1 answers far more than any
 * operation needs: main reads each answer only up to its operation's byte cap, then closes the connection and fails
 * with RESPONSE_TOO_LARGE naming the operation and the cap.
 */
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, COLLECTION_RESPONSE_BYTE_CAP, RESPONSE_BYTE_CAP } from '../../src/main/client/api-client';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { rejection } from '../support/assertions';

const MIB = 1024 * 1024;
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** How much of an answer the fake service managed to send before its connection closed. */
interface Sent {
  bytes: number;
  closed: Promise<void>;
}

/** A service whose every answer is `totalBytes` of JSON-ish text, sent as fast as the client takes it. */
async function flooding(totalBytes: number, options: { declareLength?: boolean } = {}): Promise<{ baseUrl: string; sent: Sent[] }> {
  const sent: Sent[] = [];
  const server = createServer((request, response) => {
    request.resume();
    const record: Sent = { bytes: 0, closed: new Promise((resolve) => response.on('close', () => resolve())) };
    sent.push(record);
    response.writeHead(200, {
      'content-type': 'application/json',
      ...(options.declareLength === true ? { 'content-length': String(totalBytes) } : {}),
    });
    pour(response, totalBytes, record);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent };
}

function pour(response: ServerResponse, totalBytes: number, record: Sent): void {
  const chunk = Buffer.alloc(MIB, ' ');
  const more = () => {
    while (record.bytes < totalBytes && !response.destroyed) {
      const piece = chunk.subarray(0, Math.min(MIB, totalBytes - record.bytes));
      record.bytes += piece.byteLength;
      if (!response.write(piece)) return void response.once('drain', more);
    }
    if (!response.destroyed) response.end();
  };
  response.write('{"activities":[');
  more();
}

function clientFor(baseUrl: string): ApiClient {
  const signer = signerFromPrivateKey('p256', generateApiKeyPair('p256').privateKey);
  return new ApiClient({
    profile: { baseUrl, organizationId: '5f6b1e1c-7c38-4d6b-9a53-2b3f9a4f4a10', apiKeyName: 'operator' },
    stamper: { stamp: (_name, body) => stampBody(body, signer) },
  });
}

describe('a hostile hosted service stalls main', () => {
  it('a 300 MiB list_activities answer is cut off at its cap: RESPONSE_TOO_LARGE naming the operation, the connection closed', async () => {
    const { baseUrl, sent } = await flooding(300 * MIB);

    const error = await rejection(clientFor(baseUrl).query('list_activities', { filterByStatus: ['ACTIVITY_STATUS_CONSENSUS_NEEDED'] }));

    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toContain('list_activities');
    expect(error.message).toContain(`${COLLECTION_RESPONSE_BYTE_CAP / MIB} MiB`);
    expect(error.details).toMatchObject({ operation: 'list_activities', capBytes: COLLECTION_RESPONSE_BYTE_CAP });
    await sent[0]!.closed;
    // Closed near the cap, not drained: what the socket buffers held beyond it is all the service got out.
    expect(sent[0]!.bytes).toBeLessThan(COLLECTION_RESPONSE_BYTE_CAP + 16 * MIB);
  });

  it('an answer to one resource has the smaller cap: a 9 MiB whoami is refused', async () => {
    const { baseUrl } = await flooding(RESPONSE_BYTE_CAP + MIB);

    const error = await rejection(clientFor(baseUrl).query('whoami', {}));

    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toContain(`whoami with over ${RESPONSE_BYTE_CAP} bytes, more than the ${RESPONSE_BYTE_CAP / MIB} MiB`);
  });

  it('a Content-Length over the cap is refused before the body is read', async () => {
    const { baseUrl, sent } = await flooding(300 * MIB, { declareLength: true });

    const error = await rejection(clientFor(baseUrl).query('list_wallets', {}));

    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toContain(`list_wallets with ${300 * MIB} bytes`);
    await sent[0]!.closed;
    expect(sent[0]!.bytes).toBeLessThan(16 * MIB);
  });
});
