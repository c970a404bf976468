/**
 * Presentation formats of exported/imported 32-byte private keys (docs/formats.md#export-plaintexts,
 * docs/formats.md#import-bundles): hexadecimal, Solana (base58 of seed ‖ public key) and Bitcoin WIF (compressed).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, createBase58check } from '@scure/base';
import { QkError } from '../errors';
import { bytesToHex, hexToBytes } from './encoding';

export type PrivateKeyFormat = 'hexadecimal' | 'solana' | 'wif-mainnet' | 'wif-testnet';
export const PRIVATE_KEY_FORMATS: readonly PrivateKeyFormat[] = ['hexadecimal', 'solana', 'wif-mainnet', 'wif-testnet'];

const PRIVATE_KEY_LENGTH = 32;
const WIF_VERSION = { 'wif-mainnet': 0x80, 'wif-testnet': 0xef } as const;
const WIF_COMPRESSED_FLAG = 0x01;
const base58check = createBase58check(sha256);

function formatError(format: PrivateKeyFormat, message: string): QkError {
  return new QkError('KEY_FORMAT_INVALID', `${format} private key: ${message}`, { format });
}

function requireKeyLength(bytes: Uint8Array, format: PrivateKeyFormat): void {
  if (bytes.length !== PRIVATE_KEY_LENGTH) {
    throw formatError(format, `must be ${PRIVATE_KEY_LENGTH} bytes, got ${bytes.length}`);
  }
}

/**
 * Renders raw key bytes. `hexadecimal` is bare lowercase hex (as @turnkey/crypto returns it); `solana` is base58 of
 * seed ‖ Ed25519 public key (64 bytes); WIF always carries the compressed-key flag.
 */
export function formatPrivateKey(bytes: Uint8Array, format: PrivateKeyFormat): string {
  requireKeyLength(bytes, format);
  switch (format) {
    case 'hexadecimal':
      return bytesToHex(bytes);
    case 'solana':
      return base58.encode(new Uint8Array([...bytes, ...ed25519.getPublicKey(bytes)]));
    case 'wif-mainnet':
    case 'wif-testnet':
      return base58check.encode(new Uint8Array([WIF_VERSION[format], ...bytes, WIF_COMPRESSED_FLAG]));
  }
}

/** Inverse of {@link formatPrivateKey}; surrounding whitespace is ignored. Throws KEY_FORMAT_INVALID with specifics. */
export function parsePrivateKey(text: string, format: PrivateKeyFormat): Uint8Array {
  const trimmed = text.trim();
  switch (format) {
    case 'hexadecimal': {
      const digits = /^0x/i.test(trimmed) ? trimmed.slice(2) : trimmed;
      let bytes: Uint8Array;
      try {
        bytes = hexToBytes(digits, 'hexadecimal private key');
      } catch (error) {
        throw formatError(format, (error as QkError).message);
      }
      requireKeyLength(bytes, format);
      return bytes;
    }
    case 'solana': {
      let decoded: Uint8Array;
      try {
        decoded = base58.decode(trimmed);
      } catch (error) {
        throw formatError(format, `is not base58: ${(error as Error).message}`);
      }
      if (decoded.length !== 2 * PRIVATE_KEY_LENGTH) {
        throw formatError(format, `must decode to 64 bytes (seed ‖ public key), got ${decoded.length}`);
      }
      const seed = decoded.slice(0, PRIVATE_KEY_LENGTH);
      if (bytesToHex(ed25519.getPublicKey(seed)) !== bytesToHex(decoded.subarray(PRIVATE_KEY_LENGTH))) {
        throw formatError(format, 'the public half (last 32 bytes) does not match the key derived from the seed');
      }
      return seed;
    }
    case 'wif-mainnet':
    case 'wif-testnet': {
      let decoded: Uint8Array;
      try {
        decoded = base58check.decode(trimmed);
      } catch (error) {
        throw formatError(format, `is not base58check (bad characters or checksum): ${(error as Error).message}`);
      }
      if (decoded[0] !== WIF_VERSION[format]) {
        throw formatError(format, `version byte is 0x${decoded[0]?.toString(16) ?? '??'}, expected 0x${WIF_VERSION[format].toString(16)}`);
      }
      if (decoded.length === 1 + PRIVATE_KEY_LENGTH) {
        throw formatError(format, 'is an uncompressed-key WIF; only compressed WIF (flag 0x01) is supported');
      }
      if (decoded.length !== 2 + PRIVATE_KEY_LENGTH || decoded[decoded.length - 1] !== WIF_COMPRESSED_FLAG) {
        throw formatError(format, `payload must be version ‖ 32-byte key ‖ 0x01, got ${decoded.length} bytes`);
      }
      return decoded.slice(1, 1 + PRIVATE_KEY_LENGTH);
    }
  }
}
