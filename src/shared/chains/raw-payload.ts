/**
 * How sign_raw_payload(s) turns `payload` + `encoding` + `hashFunction` into what the key signs, for the key's curve:
 * ECDSA keys (secp256k1, P-256) sign a 32-byte digest, Ed25519 keys the message itself. Every combination that
 * cannot be signed is refused with what to send instead.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { z } from 'zod';
import type { curve as curveSchema, hashFunction as hashFunctionSchema, payloadEncoding as payloadEncodingSchema } from '../api/enums';
import { hexToBytes, utf8Encode } from '../crypto/encoding';
import { QkError } from '../errors';
import type { PolicyStruct } from '../policy/values';
import { decodeAuthorization, decodeTypedData } from './ethereum';

export type SigningCurve = z.infer<typeof curveSchema>;
export type PayloadEncoding = z.infer<typeof payloadEncodingSchema>;
export type HashFunction = z.infer<typeof hashFunctionSchema>;

export interface PreparedPayload {
  /** The 32-byte digest an ECDSA key signs, or the message an Ed25519 key signs. */
  signable: Uint8Array;
  /** `eth.eip_712` or `eth.eip_7702_authorization` for structured encodings. */
  policy?: { eip_712?: PolicyStruct; eip_7702_authorization?: PolicyStruct };
}

const DIGEST_LENGTH = 32;

function refused(message: string, details: Record<string, unknown>): QkError {
  return new QkError('REQUEST_INVALID', message, details);
}

/** Hex payloads may carry `0x` (viem's signMessage sends its hash that way). */
function payloadBytes(payload: string, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' | 'PAYLOAD_ENCODING_TEXT_UTF8', what: string): Uint8Array {
  if (encoding === 'PAYLOAD_ENCODING_TEXT_UTF8') return utf8Encode(payload);
  return hexToBytes(payload.startsWith('0x') || payload.startsWith('0X') ? payload.slice(2) : payload, what);
}

export function prepareRawPayload(input: {
  payload: string;
  encoding: PayloadEncoding;
  hashFunction: HashFunction;
  curve: SigningCurve;
  /** The field named in errors, e.g. `parameters.payloads[2]`. */
  what: string;
}): PreparedPayload {
  const { payload, encoding, hashFunction, curve, what } = input;
  const details = { encoding, hashFunction, curve };
  const structured = encoding === 'PAYLOAD_ENCODING_EIP712' || encoding === 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION';
  if (curve === 'CURVE_ED25519') {
    if (hashFunction !== 'HASH_FUNCTION_NOT_APPLICABLE') {
      throw refused(
        `parameters.hashFunction: an Ed25519 key hashes as part of signing; send HASH_FUNCTION_NOT_APPLICABLE, not ${hashFunction}`,
        details,
      );
    }
    if (structured)
      throw refused(
        `parameters.encoding: ${encoding} is an Ethereum format that only a CURVE_SECP256K1 key signs; this key is CURVE_ED25519`,
        details,
      );
    return { signable: payloadBytes(payload, encoding, what) };
  }
  if (hashFunction === 'HASH_FUNCTION_NOT_APPLICABLE') {
    throw refused(
      `parameters.hashFunction: HASH_FUNCTION_NOT_APPLICABLE is for Ed25519 keys; this ${curve} key signs a digest, so send HASH_FUNCTION_NO_OP (a 32-byte digest), HASH_FUNCTION_SHA256 or HASH_FUNCTION_KECCAK256`,
      details,
    );
  }
  if (structured) {
    if (curve !== 'CURVE_SECP256K1')
      throw refused(`parameters.encoding: ${encoding} is an Ethereum format that only a CURVE_SECP256K1 key signs; this key is ${curve}`, details);
    // The structured hash is keccak-256 based: NO_OP (as Turnkey's SDKs send) and KECCAK256 both name it.
    if (hashFunction === 'HASH_FUNCTION_SHA256') {
      throw refused(
        `parameters.hashFunction: ${encoding} is hashed by its own keccak-256 rule; send HASH_FUNCTION_NO_OP or HASH_FUNCTION_KECCAK256, not HASH_FUNCTION_SHA256`,
        details,
      );
    }
    if (encoding === 'PAYLOAD_ENCODING_EIP712') {
      const typed = decodeTypedData(payload, what);
      return { signable: typed.digest, policy: { eip_712: typed.policy } };
    }
    const authorization = decodeAuthorization(payload, what);
    return { signable: authorization.digest, policy: { eip_7702_authorization: authorization.policy } };
  }
  const bytes = payloadBytes(payload, encoding, what);
  switch (hashFunction) {
    case 'HASH_FUNCTION_SHA256':
      return { signable: sha256(bytes) };
    case 'HASH_FUNCTION_KECCAK256':
      return { signable: keccak_256(bytes) };
    case 'HASH_FUNCTION_NO_OP':
      if (bytes.length !== DIGEST_LENGTH) {
        throw refused(
          `${what}: with HASH_FUNCTION_NO_OP the payload is the digest itself and must be ${DIGEST_LENGTH} bytes; it is ${bytes.length}. Send a 32-byte digest or choose HASH_FUNCTION_SHA256 / HASH_FUNCTION_KECCAK256`,
          { ...details, length: bytes.length },
        );
      }
      return { signable: bytes };
  }
}
