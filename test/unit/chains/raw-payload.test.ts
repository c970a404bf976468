/**
 * Every curve × encoding × hash function of sign_raw_payload: what the key signs, or the specific refusal.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hashTypedData, toHex } from 'viem';
import { hashAuthorization } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { prepareRawPayload, type HashFunction, type PayloadEncoding, type SigningCurve } from '../../../src/shared/chains/raw-payload';
import { QkError } from '../../../src/shared/errors';
import { MAIL } from '../../support/eip712-mail';

const TEXT = 'sign me';
const BYTES = new TextEncoder().encode(TEXT);
const DIGEST_HEX = toHex(sha256(BYTES)).slice(2);
const AUTHORIZATION = { address: '0x3535353535353535353535353535353535353535', chainId: 1, nonce: 0 } as const;

const PAYLOADS: Record<PayloadEncoding, string> = {
  PAYLOAD_ENCODING_HEXADECIMAL: Buffer.from(BYTES).toString('hex'),
  PAYLOAD_ENCODING_TEXT_UTF8: TEXT,
  PAYLOAD_ENCODING_EIP712: JSON.stringify(MAIL),
  PAYLOAD_ENCODING_EIP7702_AUTHORIZATION: JSON.stringify(AUTHORIZATION),
};

type Outcome = Uint8Array | RegExp;

/** The expected result of each combination, written out rule by rule. */
function expected(curve: SigningCurve, encoding: PayloadEncoding, hashFunction: HashFunction): Outcome {
  const structured = encoding === 'PAYLOAD_ENCODING_EIP712' || encoding === 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION';
  if (curve === 'CURVE_ED25519') {
    if (hashFunction !== 'HASH_FUNCTION_NOT_APPLICABLE') return /an Ed25519 key hashes as part of signing; send HASH_FUNCTION_NOT_APPLICABLE/;
    if (structured) return /only a CURVE_SECP256K1 key signs; this key is CURVE_ED25519/;
    return BYTES;
  }
  if (hashFunction === 'HASH_FUNCTION_NOT_APPLICABLE') return /HASH_FUNCTION_NOT_APPLICABLE is for Ed25519 keys/;
  if (structured) {
    if (curve !== 'CURVE_SECP256K1') return /only a CURVE_SECP256K1 key signs; this key is CURVE_P256/;
    if (hashFunction === 'HASH_FUNCTION_SHA256') return /hashed by its own keccak-256 rule; send HASH_FUNCTION_NO_OP or HASH_FUNCTION_KECCAK256/;
    return Buffer.from((encoding === 'PAYLOAD_ENCODING_EIP712' ? hashTypedData(MAIL) : hashAuthorization(AUTHORIZATION)).slice(2), 'hex');
  }
  if (hashFunction === 'HASH_FUNCTION_SHA256') return sha256(BYTES);
  if (hashFunction === 'HASH_FUNCTION_KECCAK256') return keccak_256(BYTES);
  return /with HASH_FUNCTION_NO_OP the payload is the digest itself and must be 32 bytes; it is 7/;
}

const CURVES: SigningCurve[] = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'];
const ENCODINGS = Object.keys(PAYLOADS) as PayloadEncoding[];
const HASH_FUNCTIONS: HashFunction[] = ['HASH_FUNCTION_NO_OP', 'HASH_FUNCTION_SHA256', 'HASH_FUNCTION_KECCAK256', 'HASH_FUNCTION_NOT_APPLICABLE'];

describe('prepareRawPayload', () => {
  const cases = CURVES.flatMap((curve) =>
    ENCODINGS.flatMap((encoding) => HASH_FUNCTIONS.map((hashFunction) => [curve, encoding, hashFunction] as const)),
  );

  it.each(cases)('%s %s %s', (curve, encoding, hashFunction) => {
    const outcome = expected(curve, encoding, hashFunction);
    const prepare = () => prepareRawPayload({ payload: PAYLOADS[encoding], encoding, hashFunction, curve, what: 'parameters.payload' });
    if (outcome instanceof RegExp) {
      expect(prepare).toThrow(outcome);
      expect(prepare).toThrow(QkError);
    } else {
      expect(toHex(prepare().signable)).toBe(toHex(outcome));
    }
  });

  it('a 32-byte digest passes NO_OP as is, with or without 0x', () => {
    for (const payload of [DIGEST_HEX, `0x${DIGEST_HEX}`]) {
      const prepared = prepareRawPayload({
        payload,
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
        curve: 'CURVE_P256',
        what: 'p',
      });
      expect(toHex(prepared.signable)).toBe(`0x${DIGEST_HEX}`);
    }
  });

  it('structured encodings carry their policy view', () => {
    const typed = prepareRawPayload({
      payload: PAYLOADS.PAYLOAD_ENCODING_EIP712,
      encoding: 'PAYLOAD_ENCODING_EIP712',
      hashFunction: 'HASH_FUNCTION_NO_OP',
      curve: 'CURVE_SECP256K1',
      what: 'p',
    });
    expect(typed.policy?.eip_712).toMatchObject({ primary_type: 'Mail' });
    const authorization = prepareRawPayload({
      payload: PAYLOADS.PAYLOAD_ENCODING_EIP7702_AUTHORIZATION,
      encoding: 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
      hashFunction: 'HASH_FUNCTION_KECCAK256',
      curve: 'CURVE_SECP256K1',
      what: 'p',
    });
    expect(authorization.policy?.eip_7702_authorization).toEqual({ address: AUTHORIZATION.address, chain_id: 1n, nonce: 0n });
  });
});
