import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import { createNodeStampSigner, createNodeStampVerifier, createThreadPoolStampVerifier } from '../../../src/node/stamp-backend';
import { QkError } from '../../../src/shared/errors';
import { bytesToHex, hexToBytes, utf8Encode } from '../../../src/shared/crypto/encoding';
import { API_KEY_CURVES, generateApiKeyPair } from '../../../src/shared/crypto/keys';
import { nobleStampVerifier, signerFromPrivateKey, stampBody, verifyApiKeyStamp } from '../../../src/shared/crypto/stamp';

const body = JSON.stringify({ type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', organizationId: 'org', timestampMs: '1700000000000' });

describe('node:crypto stamp backend', () => {
  it.each(API_KEY_CURVES)('%s: node and pure stamps verify with both verifiers', async (curve) => {
    const keys = generateApiKeyPair(curve);
    const nodeSigner = createNodeStampSigner(curve, keys.privateKey);
    const pureSigner = signerFromPrivateKey(curve, keys.privateKey);
    expect(nodeSigner.publicKey).toBe(pureSigner.publicKey);
    const nodeVerifier = createNodeStampVerifier();
    for (const signer of [nodeSigner, pureSigner]) {
      const { headerValue } = await stampBody(body, signer);
      for (const verifier of [nodeVerifier, nobleStampVerifier]) {
        expect(verifyApiKeyStamp(headerValue, utf8Encode(body), verifier).publicKey).toBe(keys.publicKey);
        expect(() => verifyApiKeyStamp(headerValue, utf8Encode(`${body}\n`), verifier)).toThrow(QkError);
      }
    }
  });

  it('Ed25519 signatures are byte-identical between backends (deterministic scheme)', async () => {
    const keys = generateApiKeyPair('ed25519');
    const message = utf8Encode(body);
    expect(await createNodeStampSigner('ed25519', keys.privateKey).sign(message)).toBe(
      await signerFromPrivateKey('ed25519', keys.privateKey).sign(message),
    );
  });

  it.each(API_KEY_CURVES)('%s: the thread-pool verifier answers as the synchronous one', async (curve) => {
    const keys = generateApiKeyPair(curve);
    const message = utf8Encode(body);
    const signature = await createNodeStampSigner(curve, keys.privateKey).sign(message);
    const onThread = createNodeStampVerifier();
    const offThread = createThreadPoolStampVerifier();
    const cases: [string, Uint8Array][] = [
      [signature, message],
      [signature, utf8Encode(`${body} `)],
    ];
    for (const [candidate, signed] of cases) {
      expect(await offThread.verify(curve, keys.publicKey, candidate, signed)).toBe(onThread.verify(curve, keys.publicKey, candidate, signed));
    }
    expect(await offThread.verify(curve, keys.publicKey, signature, message)).toBe(true);
  });

  const badInputs = (keys: { publicKey: string }, highS: string) =>
    [
      ['p256', generateApiKeyPair('p256').publicKey, highS],
      ['p256', `02${'00'.repeat(32)}`, highS],
      ['p256', keys.publicKey, 'zz'],
      ['p256', keys.publicKey, `${highS}00`],
      ['secp256k1', keys.publicKey.slice(2), highS],
    ] as const;

  it('accepts high-S and rejects wrong keys, invalid points and garbage without throwing', async () => {
    const verifier = createNodeStampVerifier({ maxCachedKeys: 1 });
    const offThread = createThreadPoolStampVerifier({ maxCachedKeys: 1 });
    const keys = generateApiKeyPair('p256');
    const message = utf8Encode(body);
    const low = p256.Signature.fromBytes(p256.sign(message, hexToBytes(keys.privateKey, 'k')), 'compact');
    const highS = bytesToHex(new p256.Signature(low.r, p256.Point.CURVE().n - low.s).toBytes('der'));
    expect(verifier.verify('p256', keys.publicKey, highS, message)).toBe(true);
    expect(await offThread.verify('p256', keys.publicKey, highS, message)).toBe(true);
    for (const [curve, publicKey, signature] of badInputs(keys, highS)) {
      expect(verifier.verify(curve, publicKey, signature, message)).toBe(false);
      await expect(offThread.verify(curve, publicKey, signature, message)).resolves.toBe(false);
    }
    // Re-imported after eviction by the single-entry caches.
    expect(verifier.verify('p256', keys.publicKey, highS, message)).toBe(true);
    expect(await offThread.verify('p256', keys.publicKey, highS, message)).toBe(true);
  });

  it('rejects invalid private keys with KEY_INVALID', () => {
    expect(() => createNodeStampSigner('p256', '00'.repeat(32))).toThrow(expect.objectContaining({ code: 'KEY_INVALID' }));
    expect(() => createNodeStampSigner('ed25519', 'ab')).toThrow(expect.objectContaining({ code: 'KEY_INVALID' }));
  });
});
