/**
 * The form a stamp names an API public key in, shared by the first start and the seed file (which the first start
 * applies, so it cannot import this from there).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { QkError } from '../../shared/errors';
import { compressP256, type ApiKeyCurve } from '../../shared/crypto/keys';

export interface RootPublicKey {
  /** Hex: P-256/secp256k1 compressed or uncompressed SEC1, Ed25519 32 raw bytes. */
  publicKey: string;
  curve: ApiKeyCurve;
}

/** The stamp form of a public key: compressed SEC1 for the ECDSA curves, raw 32 bytes for Ed25519. */
export function stampPublicKeyOf(key: RootPublicKey): string {
  try {
    switch (key.curve) {
      case 'p256':
        return compressP256(key.publicKey);
      case 'secp256k1':
        return secp256k1.Point.fromHex(key.publicKey.toLowerCase()).toHex(true);
      case 'ed25519':
        if (!/^[0-9a-fA-F]{64}$/.test(key.publicKey)) throw new Error('an Ed25519 public key is 32 bytes (64 hex)');
        return key.publicKey.toLowerCase();
    }
  } catch (error) {
    throw new QkError('KEY_INVALID', `root public key ${key.publicKey} is not a valid ${key.curve} key: ${(error as Error).message}`);
  }
}
