/**
 * The Ed25519 key the Sandbox signs webhook deliveries with (docs/sandbox.md#webhooks): made once per database and
 * kept with the service's other keys, so a receiver that pinned it keeps verifying after a restart. Receivers find it
 * as Turnkey's publish theirs, as a JSON Web Key Set whose `kid` the deliveries name.
 */
import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base64UrlEncode, bytesToHex, hexToBytes } from '../../shared/crypto/encoding';
import type { Store } from '../store';

const WEBHOOK_SIGNING_KEY = 'webhook-signing';

export interface WebhookSigningKey {
  /** The `X-Turnkey-Signature-Key-Id` of every delivery and the `kid` of the JWKS. */
  keyId: string;
  /** Raw 32-byte public key, hex. */
  publicKey: string;
  /** Ed25519 signature over `message`, hex (as the `X-Turnkey-Signature` header carries it). */
  sign(message: Uint8Array): string;
}

/** The stored key, made (and stored) on first use. */
export async function ensureWebhookSigningKey(store: Store, now: number): Promise<WebhookSigningKey> {
  const record = await store.transaction((tx) => {
    const existing = tx.serviceKeys.get(WEBHOOK_SIGNING_KEY);
    if (existing !== undefined) return existing;
    const secret = ed25519.utils.randomSecretKey();
    const created = {
      purpose: WEBHOOK_SIGNING_KEY,
      curve: 'ed25519',
      publicKey: bytesToHex(ed25519.getPublicKey(secret)),
      privateKey: bytesToHex(secret),
      createdAt: now,
    };
    tx.serviceKeys.insert(created);
    return created;
  });
  const secret = hexToBytes(record.privateKey, 'the webhook signing key');
  return {
    // Derived from the key, so it changes exactly when the key does.
    keyId: `sandbox-webhooks-${createHash('sha256').update(record.publicKey).digest('hex').slice(0, 16)}`,
    publicKey: record.publicKey,
    sign: (message) => bytesToHex(ed25519.sign(message, secret)),
  };
}

/** The key as a JSON Web Key Set, with the two members Turnkey adds to name its signature contract. */
export function webhookJwks(key: WebhookSigningKey) {
  return {
    keys: [
      {
        kid: key.keyId,
        kty: 'OKP',
        crv: 'Ed25519',
        alg: 'EdDSA',
        use: 'sig',
        x: base64UrlEncode(hexToBytes(key.publicKey, 'the webhook public key')),
        turnkey_signature_algorithm: 'ed25519',
        turnkey_signature_version: 'v1',
      },
    ],
  };
}
