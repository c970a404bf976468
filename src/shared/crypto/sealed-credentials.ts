/**
 * The encrypted forms in which stored credentials arrive (docs/formats.md#stored-credentials), checked for their
 * shape only: each is sealed to a key of Turnkey's (the TLS fetcher's, the on-ramp service's) that the Sandbox does
 * not hold, so it can tell a well-formed envelope from garbage, never whom it was sealed to.
 *
 * - An OAuth 2.0 client secret (`encryptOauth2ClientSecret`): hex of QOS's borsh envelope, a 12-byte nonce, the
 *   65-byte uncompressed ephemeral P-256 key, then the AES-256-GCM output with a little-endian u32 length before it.
 * - An on-ramp API key (`encryptOnRampSecret`): base58check of the 33-byte compressed HPKE `enc` and the ciphertext.
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { QkError } from '../errors';
import { hexToBytes } from './encoding';

const QOS_NONCE_LENGTH = 12;
const UNCOMPRESSED_P256_LENGTH = 65;
const COMPRESSED_P256_LENGTH = 33;
const BORSH_LENGTH_PREFIX = 4;
/** AES-GCM appends a 16-byte tag, so even an empty secret's ciphertext is that long. */
const AES_GCM_TAG_LENGTH = 16;

const base58check = createBase58check(sha256);

function invalid(field: string, message: string): QkError {
  return new QkError('REQUEST_INVALID', `${field}: ${message}`, { issues: [{ path: field, message }] });
}

function requirePoint(bytes: Uint8Array, field: string, what: string): void {
  try {
    p256.Point.fromBytes(bytes);
  } catch {
    throw invalid(field, `${what} is not a point on P-256`);
  }
}

/** Checks a client secret sealed by `encryptOauth2ClientSecret` (hex of a QOS envelope); throws REQUEST_INVALID. */
export function checkQuorumKeyEnvelope(envelopeHex: string, field: string): void {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(envelopeHex, field);
  } catch {
    throw invalid(field, 'must be the hex of the envelope @turnkey/crypto encryptOauth2ClientSecret makes');
  }
  const lengthAt = QOS_NONCE_LENGTH + UNCOMPRESSED_P256_LENGTH;
  if (bytes.length < lengthAt + BORSH_LENGTH_PREFIX + AES_GCM_TAG_LENGTH) {
    throw invalid(field, `holds ${bytes.length} bytes, fewer than an envelope's nonce, ephemeral key, length and tag`);
  }
  requirePoint(bytes.subarray(QOS_NONCE_LENGTH, lengthAt), field, 'the envelope’s ephemeral sender key');
  const declared = new DataView(bytes.buffer, bytes.byteOffset + lengthAt, BORSH_LENGTH_PREFIX).getUint32(0, true);
  const actual = bytes.length - lengthAt - BORSH_LENGTH_PREFIX;
  if (declared !== actual) throw invalid(field, `the envelope declares ${declared} bytes of ciphertext but holds ${actual}`);
  if (actual < AES_GCM_TAG_LENGTH) throw invalid(field, 'the ciphertext is shorter than its AES-GCM tag');
}

/** Checks an API key sealed by `encryptOnRampSecret` (base58check of compressed enc ‖ ciphertext); throws REQUEST_INVALID. */
export function checkOnRampSealedKey(sealed: string, field: string): void {
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(sealed);
  } catch (error) {
    throw invalid(field, `must be the base58check text @turnkey/crypto encryptOnRampSecret makes: ${(error as Error).message}`);
  }
  if (bytes.length < COMPRESSED_P256_LENGTH + AES_GCM_TAG_LENGTH) {
    throw invalid(field, `holds ${bytes.length} bytes, fewer than an encapsulated key and an AES-GCM tag`);
  }
  requirePoint(bytes.subarray(0, COMPRESSED_P256_LENGTH), field, 'the encapsulated key');
}
