/**
 * The signing workers' ECDSA signatures (issue 38): the workers sign secp256k1 with libsecp256k1 (tiny-secp256k1) and
 * P-256 with noble's wider base-point tables, reading its recovered format as it is, and still sign byte for byte what
 * noble's plain `sign` signs with its default tables (this process does not widen them): the same RFC 6979 nonce,
 * low-S, the same recovery id.
 */
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, describe, expect, it } from 'vitest';
import { SigningPool } from '../../../src/service/enclave/signing-pool';
import type { EcdsaSignature, SigningKey } from '../../../src/service/enclave/signing';

const KEYS = 32;
const DIGESTS_PER_KEY = 4;

/** Deterministic bytes, so that a failure names inputs that fail again. */
function bytesFrom(seed: number, length = 32): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => (seed * 131 + index * 29 + ((seed * index) % 251)) & 0xff);
}

/** Besides varied digests: zero, all ones (above the group order, so reduced) and one. */
function digestsFor(keyIndex: number): Uint8Array[] {
  const edges = [new Uint8Array(32), new Uint8Array(32).fill(0xff), Uint8Array.from({ length: 32 }, (_, index) => (index === 31 ? 1 : 0))];
  return Array.from({ length: DIGESTS_PER_KEY }, (_, index) =>
    keyIndex < edges.length && index === 0 ? edges[keyIndex]! : bytesFrom(keyIndex * 7 + index),
  );
}

const curves = [
  { name: 'CURVE_SECP256K1', library: secp256k1 },
  { name: 'CURVE_P256', library: p256 },
] as const;

describe('a signing worker signs ECDSA digests', () => {
  const pool = new SigningPool(2);
  afterAll(() => pool.close());

  for (const { name, library } of curves) {
    it(`byte for byte as ${name}'s plain sign does, over ${KEYS} keys and ${KEYS * DIGESTS_PER_KEY} digests`, async () => {
      const secrets = Array.from({ length: KEYS }, (_, index) => library.utils.randomSecretKey(bytesFrom(1000 + index, 48)));
      const signed = await Promise.all(
        secrets.map(async (secret, index) => {
          const key: SigningKey = { curve: name, secret: new Uint8Array(secret), publicKey: library.getPublicKey(secret, true) };
          const digests = digestsFor(index);
          const signatures = await Promise.all(digests.map((digest) => pool.run(key, { kind: 'digest', digest })));
          const raw = await pool.run(key, { kind: 'raw', signables: digests });
          return { secret, digests, signatures, raw };
        }),
      );
      for (const { secret, digests, signatures, raw } of signed) {
        digests.forEach((digest, index) => {
          const plain = library.sign(digest, secret, { prehash: false, lowS: true, format: 'recovered' });
          const expected: EcdsaSignature = { r: plain.slice(1, 33), s: plain.slice(33), recovery: plain[0]! };
          expect(signatures[index]).toEqual(expected);
          const hex = Buffer.from(plain).toString('hex');
          expect(raw[index]).toEqual({ r: hex.slice(2, 66), s: hex.slice(66), v: hex.slice(0, 2) });
        });
      }
    });
  }
});
