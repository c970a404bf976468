/**
 * Credential bundles (docs/formats.md#credential-bundles): how the enclave hands a client a fresh API private key after
 * email/OTP/OAuth authentication. base58check(compressed enc (33) ‖ HPKE ciphertext), HPKE as in ./hpke (AAD uses the
 * uncompressed enc).
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { QkError } from '../errors';
import { concatBytes, hexToBytes } from './encoding';
import { hpkeOpen, hpkeSeal } from './hpke';
import { privateKeyBytes, zeroize } from './keys';

const base58check = createBase58check(sha256);
const COMPRESSED_ENC_LENGTH = 33;
/** AES-256-GCM tag appended to every ciphertext. */
const TAG_LENGTH = 16;

/** Service side: encrypts `plaintext` (the 32-byte API private key) to the client's P-256 target key (hex). */
export async function sealCredentialBundle(plaintext: Uint8Array, targetPublicKey: string): Promise<string> {
  const sealed = await hpkeSeal({ plaintext, recipientPublicKey: hexToBytes(targetPublicKey, 'credential bundle target key') });
  const compressedEnc = p256.Point.fromBytes(sealed.encappedPublic).toBytes(true);
  return base58check.encode(concatBytes(compressedEnc, sealed.ciphertext));
}

/** Client side: decrypts a credential bundle with the target private key (hex). DECRYPTION_FAILED on any tampering. */
export async function openCredentialBundle(bundle: string, targetPrivateKey: string): Promise<Uint8Array> {
  let decoded: Uint8Array;
  try {
    decoded = base58check.decode(bundle.trim());
  } catch (error) {
    throw new QkError('BUNDLE_MALFORMED', `credential bundle is not base58check: ${(error as Error).message}`);
  }
  if (decoded.length <= COMPRESSED_ENC_LENGTH + TAG_LENGTH) {
    throw new QkError('BUNDLE_MALFORMED', `credential bundle is too short (${decoded.length} bytes) to hold enc, ciphertext and tag`);
  }
  let encappedPublic: Uint8Array;
  try {
    encappedPublic = p256.Point.fromBytes(decoded.subarray(0, COMPRESSED_ENC_LENGTH)).toBytes(false);
  } catch (error) {
    throw new QkError('BUNDLE_MALFORMED', `credential bundle's first 33 bytes are not a compressed P-256 point: ${(error as Error).message}`);
  }
  const recipientPrivateKey = privateKeyBytes(targetPrivateKey, 'credential bundle target private key');
  try {
    return await hpkeOpen({ encappedPublic, ciphertext: decoded.subarray(COMPRESSED_ENC_LENGTH), recipientPrivateKey });
  } finally {
    zeroize(recipientPrivateKey);
  }
}
