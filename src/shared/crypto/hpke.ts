/**
 * Turnkey's HPKE (docs/formats.md#hpke): RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM,
 * info "turnkey_hpke", and the non-standard AAD = enc(65, uncompressed) ‖ receiver public key(65, uncompressed).
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';
import { QkError } from '../errors';
import { concatBytes, utf8Encode } from './encoding';
import { zeroize } from './keys';

export const HPKE_INFO = utf8Encode('turnkey_hpke');
export const UNCOMPRESSED_P256_LENGTH = 65;

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });

function uncompressedRecipientKey(publicKey: Uint8Array): Uint8Array {
  try {
    return p256.Point.fromBytes(publicKey).toBytes(false);
  } catch (error) {
    throw new QkError('KEY_INVALID', `HPKE recipient public key is not a P-256 point: ${(error as Error).message}`);
  }
}

export interface HpkeSealed {
  /** HPKE `enc`: the 65-byte uncompressed ephemeral public key. */
  encappedPublic: Uint8Array;
  /** AES-256-GCM output: ciphertext ‖ 16-byte tag. */
  ciphertext: Uint8Array;
}

/** Encrypts to a P-256 public key (compressed or uncompressed SEC1 bytes). Throws KEY_INVALID for a bad key. */
export async function hpkeSeal(params: { plaintext: Uint8Array; recipientPublicKey: Uint8Array }): Promise<HpkeSealed> {
  const recipient = uncompressedRecipientKey(params.recipientPublicKey);
  const recipientPublicKey = await suite.kem.deserializePublicKey(recipient);
  const sender = await suite.createSenderContext({ recipientPublicKey, info: HPKE_INFO });
  const encappedPublic = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(await sender.seal(params.plaintext, concatBytes(encappedPublic, recipient)));
  return { encappedPublic, ciphertext };
}

/**
 * Decrypts a single-shot HPKE message with the recipient's 32-byte P-256 scalar. Any failure (bad enc, wrong key,
 * altered ciphertext or AAD) is DECRYPTION_FAILED; nothing partial is ever returned.
 */
export async function hpkeOpen(params: { encappedPublic: Uint8Array; ciphertext: Uint8Array; recipientPrivateKey: Uint8Array }): Promise<Uint8Array> {
  const { encappedPublic, ciphertext, recipientPrivateKey } = params;
  if (encappedPublic.length !== UNCOMPRESSED_P256_LENGTH || encappedPublic[0] !== 0x04) {
    throw new QkError(
      'DECRYPTION_FAILED',
      `encappedPublic must be a ${UNCOMPRESSED_P256_LENGTH}-byte uncompressed P-256 point, got ${encappedPublic.length} bytes`,
    );
  }
  let recipientPublic: Uint8Array;
  try {
    recipientPublic = p256.getPublicKey(recipientPrivateKey, false);
  } catch (error) {
    throw new QkError('KEY_INVALID', `HPKE recipient private key is not a valid P-256 scalar: ${(error as Error).message}`);
  }
  const scalarCopy = recipientPrivateKey.slice();
  try {
    const recipientKey = await suite.kem.deserializePrivateKey(scalarCopy);
    const recipient = await suite.createRecipientContext({ recipientKey, enc: encappedPublic, info: HPKE_INFO });
    return new Uint8Array(await recipient.open(ciphertext, concatBytes(encappedPublic, recipientPublic)));
  } catch (error) {
    throw new QkError('DECRYPTION_FAILED', `HPKE decryption failed (wrong key, or altered encappedPublic/ciphertext): ${(error as Error).message}`);
  } finally {
    zeroize(scalarCopy);
  }
}
