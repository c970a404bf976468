/**
 * Stored private keys are opened and checked once, then kept for the signatures that follow (Enclave.withPrivateKey):
 * these hold the kept key to the row it was checked against, so a row that differs never signs with it.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Enclave, type SigningKeySource } from '../../../src/service/enclave';
import { newTestEnclave } from '../../support/enclave';

let enclave: Enclave | undefined;
afterEach(async () => {
  await enclave?.close();
  enclave = undefined;
});

function newEnclave(): Enclave {
  enclave = newTestEnclave();
  return enclave;
}

function sourceOf(privateKeyId: string, sealed: { sealedSecret: Uint8Array; publicKey: string }): SigningKeySource {
  return { kind: 'privateKey', privateKeyId, sealedSecret: sealed.sealedSecret, curve: 'CURVE_SECP256K1', publicKey: sealed.publicKey };
}

const digest = new Uint8Array(32).fill(7);

/** Whether `signature` over `digest` verifies under `publicKey` (compressed hex). */
function signedBy(signature: { r: Uint8Array; s: Uint8Array }, publicKey: string): boolean {
  const compact = new Uint8Array([...signature.r, ...signature.s]);
  return secp256k1.verify(compact, digest, Buffer.from(publicKey, 'hex'), { prehash: false });
}

describe('stored private keys kept opened for signing', () => {
  it('sign again with the same row, and open anew a row under the same id with other sealed bytes', async () => {
    const enclave = newEnclave();
    const first = enclave.createPrivateKey({ privateKeyId: 'key-1', curve: 'CURVE_SECP256K1', addressFormats: [] });
    expect(signedBy(await enclave.sign(sourceOf('key-1', first), { kind: 'digest', digest }), first.publicKey)).toBe(true);
    expect(signedBy(await enclave.sign(sourceOf('key-1', first), { kind: 'digest', digest }), first.publicKey)).toBe(true);

    // The id's row now holds another key (as a snapshot restored over it could): it signs as that key, never the first.
    const second = enclave.createPrivateKey({ privateKeyId: 'key-1', curve: 'CURVE_SECP256K1', addressFormats: [] });
    const signature = await enclave.sign(sourceOf('key-1', second), { kind: 'digest', digest });
    expect(signedBy(signature, second.publicKey)).toBe(true);
    expect(signedBy(signature, first.publicKey)).toBe(false);
  });

  it('refuse a row whose public key is not its sealed key, after that key has signed', async () => {
    const enclave = newEnclave();
    const kept = enclave.createPrivateKey({ privateKeyId: 'key-1', curve: 'CURVE_SECP256K1', addressFormats: [] });
    const other = enclave.createPrivateKey({ privateKeyId: 'key-2', curve: 'CURVE_SECP256K1', addressFormats: [] });
    await enclave.sign(sourceOf('key-1', kept), { kind: 'digest', digest });

    const mismatched = sourceOf('key-1', { sealedSecret: kept.sealedSecret, publicKey: other.publicKey });
    await expect(enclave.sign(mismatched, { kind: 'digest', digest })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: 'the stored key behind private key key-1 does not match its public key',
    });
  });
});
