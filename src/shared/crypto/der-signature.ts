/**
 * A byte-level check of the strict DER ECDSA signature form, for hot paths that only need to know whether a signature
 * is well-formed: `derToRawSignature` answers the same by decoding r and s to BigInts and encoding them again.
 */
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { EcdsaCurve } from './ecdsa';

const SEQUENCE = 0x30;
const INTEGER = 0x02;
/** Both curves' scalars are 32 bytes; a DER INTEGER may add one zero byte before a first byte ≥ 0x80. */
const SCALAR_BYTES = 32;
const MAX_INTEGER_BYTES = SCALAR_BYTES + 1;

function orderBytes(order: bigint): Uint8Array {
  const bytes = new Uint8Array(SCALAR_BYTES);
  for (let index = SCALAR_BYTES - 1, rest = order; index >= 0; index--, rest >>= 8n) bytes[index] = Number(rest & 0xffn);
  return bytes;
}

const curveOrders: Record<EcdsaCurve, Uint8Array> = {
  p256: orderBytes(p256.Point.CURVE().n),
  secp256k1: orderBytes(secp256k1.Point.CURVE().n),
};

/** True when the DER INTEGER of `length` bytes at `start` is minimal, positive and below `order`. */
function isScalarInRange(der: Uint8Array, start: number, length: number, order: Uint8Array): boolean {
  const first = der[start]!;
  if (first & 0x80) return false;
  if (first === 0) {
    // Only a sign byte before a first byte ≥ 0x80 is minimal; a lone 00 is zero, outside [1, n-1].
    if (length === 1 || !(der[start + 1]! & 0x80)) return false;
    start++;
    length--;
  }
  if (length > SCALAR_BYTES) return false;
  // Compare big-endian, the value right-aligned against the order's 32 bytes.
  const leadingZeros = SCALAR_BYTES - length;
  for (let index = 0; index < SCALAR_BYTES; index++) {
    const byte = index < leadingZeros ? 0 : der[start + index - leadingZeros]!;
    if (byte !== order[index]) return byte < order[index]!;
  }
  return false;
}

/**
 * True exactly when `derToRawSignature` accepts `der` for `curve`: a SEQUENCE of two INTEGERs, r and s, with
 * short-form lengths (a long form is only allowed from 128 bytes, beyond any signature of these curves), minimal,
 * positive, in [1, n-1], and no byte after them.
 */
export function isStrictDerEcdsaSignature(der: Uint8Array, curve: EcdsaCurve): boolean {
  const length = der.length;
  if (length < 8 || length > 2 + 2 * (2 + MAX_INTEGER_BYTES) || der[0] !== SEQUENCE || der[1] !== length - 2) return false;
  const rLength = der[3]!;
  if (der[2] !== INTEGER || rLength < 1 || rLength > MAX_INTEGER_BYTES) return false;
  const sTag = 4 + rLength;
  if (sTag + 2 > length || der[sTag] !== INTEGER) return false;
  const sLength = der[sTag + 1]!;
  if (sLength < 1 || sTag + 2 + sLength !== length) return false;
  const order = curveOrders[curve];
  return isScalarInRange(der, 4, rLength, order) && isScalarInRange(der, sTag + 2, sLength, order);
}
