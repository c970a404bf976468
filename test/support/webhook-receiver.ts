/**
 * An app's webhook handler, as the webhook tests and the Sandbox bench run it: an HTTP server on 127.0.0.1 that records
 * every delivery, and verification of a delivery as Turnkey's documentation tells a receiver to do it, with
 * `@turnkey/crypto`'s own verifier and the key the Sandbox's JWKS route publishes.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyTurnkeyWebhookSignature } from '@turnkey/crypto';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Wall-clock milliseconds when its body had arrived, comparable with the Sandbox's own timestamps in one process. */
  receivedAtMs: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  close(): Promise<void>;
}

/** Starts a receiver that answers each delivery with the status `answer` gives (200 by default). */
export async function startWebhookReceiver(answer: (delivery: ReceivedDelivery) => number = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery = { headers: request.headers, rawBody: Buffer.concat(chunks), receivedAtMs: Date.now() };
      received.push(delivery);
      response.statusCode = answer(delivery);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnkey-webhooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface WebhookVerificationKey {
  keyId: string;
  publicKey: string;
  algorithm: 'ed25519';
}

/** The Sandbox's delivery key from its JWKS route, as `@turnkey/crypto`'s verifier takes it: its id and the raw key in hex. */
export async function webhookVerificationKey(baseUrl: string): Promise<WebhookVerificationKey> {
  const response = await fetch(`${baseUrl}/public/v1/discovery/webhooks/jwks`);
  if (response.status !== 200) throw new Error(`the JWKS route answered ${response.status}`);
  const { keys } = (await response.json()) as { keys: { kid: string; x: string; crv: string }[] };
  if (keys.length !== 1) throw new Error(`the JWKS route lists ${keys.length} keys, not one`);
  if (keys[0]!.crv !== 'Ed25519') throw new Error(`the JWKS key is ${keys[0]!.crv}, not Ed25519`);
  return { keyId: keys[0]!.kid, publicKey: Buffer.from(keys[0]!.x, 'base64url').toString('hex'), algorithm: 'ed25519' };
}

/** Verifies a delivery exactly as Turnkey's documentation says a receiver does. */
export function verifyDelivery(key: WebhookVerificationKey, delivery: ReceivedDelivery, nowMs: number = Date.now()) {
  return verifyTurnkeyWebhookSignature({
    headers: delivery.headers,
    body: delivery.rawBody,
    verificationKeys: [key],
    maxTimestampAgeMs: 5 * 60 * 1000,
    nowMs,
  });
}
