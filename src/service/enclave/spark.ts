/**
 * SPARK_PREPARE_LIGHTNING_RECEIVE inside the enclave (docs/formats.md#spark-lightning-packages): a fresh Lightning
 * preimage is split with Feldman VSS over the secp256k1 group order and each operator's share is ECIES-encrypted to
 * that operator.
 *
 * The share format follows the Spark SDKs (buildonspark `utils/secret-sharing.ts`, breez `spark_signer_adapter.rs`):
 * share_i = f(i) mod n for the 1-based position i, every package carries the same commitments coef_j·G, and the
 * package plaintext is the protobuf `SecretShare { bytes secret_share = 1; repeated bytes proofs = 2; }`.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, randomBytes as cryptoRandomBytes } from '@noble/hashes/utils.js';
import { encrypt as eciesEncrypt } from 'eciesjs';
import { QkError } from '../../shared/errors';

const Point = secp256k1.Point;
const Fn = Point.Fn;

export const SCALAR_LENGTH = 32;
export const COMPRESSED_POINT_LENGTH = 33;
/** More operators than any Spark deployment runs; bounds the work one request can ask for. */
export const MAX_OPERATORS = 64;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMPRESSED_KEY_HEX_PATTERN = /^0[23][0-9a-fA-F]{64}$/;
/** A 32-byte draw falls outside [1, n-1] with probability ~2^-128; repeated failures mean the source is broken. */
const MAX_SCALAR_DRAWS = 8;

export interface OperatorRecipient {
  operatorId: string;
  /** Hex compressed secp256k1 point the operator decrypts its package with. */
  encryptionPublicKey: string;
}

export interface PrepareLightningReceiveInput {
  threshold: number;
  operatorRecipients: readonly OperatorRecipient[];
  /** Randomness for the preimage and polynomial coefficients; tests inject a deterministic source. */
  randomBytes?: (length: number) => Uint8Array;
}

/** A type alias, not an interface, so that it is assignable to the wire result's open record type. */
export type OperatorPackage = {
  operatorId: string;
  /** Hex eciesjs ciphertext: ephemeral pub (65) ‖ nonce (16) ‖ tag (16) ‖ encrypted SecretShare. */
  encryptedPackage: string;
};

export interface PreparedLightningReceive {
  /** Hex SHA-256 of the preimage, forwarded to the Lightning node. */
  paymentHash: string;
  operatorPackages: OperatorPackage[];
  /** The secret itself, for the enclave caller to zero once the result is built; never part of the activity result. */
  preimage: Uint8Array;
}

/** One decrypted operator package. */
export interface SecretShare {
  /** f(index), 32-byte big-endian. */
  share: Uint8Array;
  /** Compressed commitments coef_j·G, j = 0..threshold-1; proofs[0] commits to the secret. */
  proofs: Uint8Array[];
}

export interface IndexedShare {
  /** 1-based share index (the operator's position in operatorRecipients). */
  index: number;
  share: Uint8Array;
}

/**
 * Checks threshold and operator list as prepareLightningReceive will, so that a request can be refused before
 * anything is recorded. REQUEST_INVALID / KEY_INVALID naming the field; returns the recipients normalized.
 */
export function validateLightningReceive(input: Pick<PrepareLightningReceiveInput, 'threshold' | 'operatorRecipients'>): OperatorRecipient[] {
  const recipients = validateRecipients(input.operatorRecipients);
  validateThreshold(input.threshold, recipients.length);
  return recipients;
}

export function prepareLightningReceive(input: PrepareLightningReceiveInput): PreparedLightningReceive {
  const recipients = validateLightningReceive(input);
  const randomBytes = input.randomBytes ?? cryptoRandomBytes;

  const preimage = randomScalarBytes(randomBytes);
  const coefficients = [bytesToNumberBE(preimage)];
  for (let degree = 1; degree < input.threshold; degree++) {
    coefficients.push(bytesToNumberBE(randomScalarBytes(randomBytes)));
  }
  const proofs = coefficients.map((coefficient) => Point.BASE.multiply(coefficient).toBytes(true));

  const operatorPackages = recipients.map(({ operatorId, encryptionPublicKey }, position) => {
    const share = numberToBytesBE(evaluatePolynomial(coefficients, BigInt(position + 1)), SCALAR_LENGTH);
    const plaintext = encodeSecretShare({ share, proofs });
    const encryptedPackage = bytesToHex(eciesEncrypt(encryptionPublicKey, plaintext));
    plaintext.fill(0);
    share.fill(0);
    return { operatorId, encryptedPackage };
  });

  return { paymentHash: bytesToHex(sha256(preimage)), operatorPackages, preimage };
}

/** Checks share·G == Σ proofs[j]·index^j, i.e. the share lies on the committed polynomial. */
export function verifyShare(share: Uint8Array, proofs: readonly Uint8Array[], index: number): boolean {
  const shareScalar = shareToScalar(share, 'share');
  assertShareIndex(index, 'index');
  if (proofs.length === 0) throw new QkError('REQUEST_INVALID', 'proofs is empty: at least the secret commitment is needed');
  const commitments = proofs.map((proof, position) => decodeCommitment(proof, `proofs[${position}]`));
  const x = BigInt(index);
  let expected = Point.ZERO;
  let power = 1n;
  for (const commitment of commitments) {
    expected = expected.add(commitment.multiplyUnsafe(power));
    power = Fn.mul(power, x);
  }
  const actual = shareScalar === 0n ? Point.ZERO : Point.BASE.multiply(shareScalar);
  return actual.equals(expected);
}

/** Lagrange interpolation at x = 0. With fewer shares than the threshold the result is an unrelated scalar. */
export function reconstructSecret(shares: readonly IndexedShare[]): Uint8Array {
  if (shares.length === 0) throw new QkError('REQUEST_INVALID', 'shares is empty: reconstruction needs at least one share');
  const seen = new Set<number>();
  const points = shares.map(({ index, share }, position) => {
    assertShareIndex(index, `shares[${position}].index`);
    if (seen.has(index)) throw new QkError('REQUEST_INVALID', `shares[${position}].index ${index} appears twice`);
    seen.add(index);
    return { x: BigInt(index), y: shareToScalar(share, `shares[${position}].share`) };
  });
  let secret = 0n;
  for (const { x: xi, y } of points) {
    let basis = 1n;
    for (const { x: xj } of points) {
      if (xj !== xi) basis = Fn.mul(basis, Fn.div(xj, Fn.sub(xj, xi)));
    }
    secret = Fn.add(secret, Fn.mul(y, basis));
  }
  return numberToBytesBE(secret, SCALAR_LENGTH);
}

/** Protobuf wire encoding of `SecretShare`: field 1 and each field-2 element are length-delimited (wire type 2). */
export function encodeSecretShare({ share, proofs }: SecretShare): Uint8Array {
  const fields = [lengthDelimitedField(1, share), ...proofs.map((proof) => lengthDelimitedField(2, proof))];
  const encoded = new Uint8Array(fields.reduce((total, field) => total + field.length, 0));
  let offset = 0;
  for (const field of fields) {
    encoded.set(field, offset);
    offset += field.length;
  }
  return encoded;
}

/** Inverse of encodeSecretShare, as an operator reads its decrypted package. Unknown fields are refused. */
export function decodeSecretShare(bytes: Uint8Array): SecretShare {
  let share: Uint8Array | undefined;
  const proofs: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const key = readVarint(bytes, offset);
    const fieldNumber = key.value >> 3;
    const wireType = key.value & 7;
    if (wireType !== 2 || (fieldNumber !== 1 && fieldNumber !== 2)) {
      throw new QkError('ENCODING_INVALID', `SecretShare has unexpected field ${fieldNumber} (wire type ${wireType}) at byte ${offset}`);
    }
    const length = readVarint(bytes, key.next);
    const end = length.next + length.value;
    if (end > bytes.length) {
      throw new QkError('ENCODING_INVALID', `SecretShare field ${fieldNumber} at byte ${offset} runs past the end of the message`);
    }
    const value = bytes.slice(length.next, end);
    if (fieldNumber === 1) share = value;
    else proofs.push(value);
    offset = end;
  }
  if (share === undefined) throw new QkError('ENCODING_INVALID', 'SecretShare has no secret_share (field 1)');
  return { share, proofs };
}

function validateRecipients(recipients: readonly OperatorRecipient[]): OperatorRecipient[] {
  if (!Array.isArray(recipients) || recipients.length === 0) {
    throw new QkError('REQUEST_INVALID', 'lightningReceive.operatorRecipients must list at least two operators');
  }
  if (recipients.length > MAX_OPERATORS) {
    throw new QkError(
      'REQUEST_INVALID',
      `lightningReceive.operatorRecipients lists ${recipients.length} operators; at most ${MAX_OPERATORS} are supported`,
    );
  }
  const positionById = new Map<string, number>();
  return recipients.map(({ operatorId, encryptionPublicKey }, position) => {
    const field = `lightningReceive.operatorRecipients[${position}]`;
    if (typeof operatorId !== 'string' || !UUID_PATTERN.test(operatorId)) {
      throw new QkError('REQUEST_INVALID', `${field}.operatorId must be a UUID, got ${JSON.stringify(operatorId)}`, {
        index: position,
      });
    }
    const earlier = positionById.get(operatorId.toLowerCase());
    if (earlier !== undefined) {
      throw new QkError('REQUEST_INVALID', `${field}.operatorId ${operatorId} repeats operatorRecipients[${earlier}]`, {
        index: position,
      });
    }
    positionById.set(operatorId.toLowerCase(), position);
    assertCompressedSecp256k1Key(encryptionPublicKey, `${field}.encryptionPublicKey`, position);
    return { operatorId, encryptionPublicKey: encryptionPublicKey.toLowerCase() };
  });
}

function assertCompressedSecp256k1Key(key: unknown, field: string, position: number): asserts key is string {
  if (typeof key !== 'string' || !COMPRESSED_KEY_HEX_PATTERN.test(key)) {
    throw new QkError('KEY_INVALID', `${field} must be a hex compressed secp256k1 point (66 hex characters starting 02 or 03)`, { index: position });
  }
  try {
    Point.fromHex(key.toLowerCase());
  } catch {
    throw new QkError('KEY_INVALID', `${field} is not a point on secp256k1`, { index: position });
  }
}

function validateThreshold(threshold: number, operatorCount: number): void {
  if (!Number.isSafeInteger(threshold) || threshold < 2) {
    throw new QkError('REQUEST_INVALID', `lightningReceive.threshold must be an integer of at least 2, got ${threshold}`);
  }
  if (threshold > operatorCount) {
    throw new QkError(
      'REQUEST_INVALID',
      `lightningReceive.threshold ${threshold} exceeds the ${operatorCount} operatorRecipients: the preimage could never be reconstructed`,
    );
  }
}

function randomScalarBytes(randomBytes: (length: number) => Uint8Array): Uint8Array {
  for (let draw = 0; draw < MAX_SCALAR_DRAWS; draw++) {
    const candidate = randomBytes(SCALAR_LENGTH);
    if (candidate.length === SCALAR_LENGTH && secp256k1.utils.isValidSecretKey(candidate)) return candidate;
  }
  throw new QkError('INTERNAL', `random source gave no valid secp256k1 scalar in ${MAX_SCALAR_DRAWS} draws of ${SCALAR_LENGTH} bytes`);
}

/** Horner's rule mod n. */
function evaluatePolynomial(coefficients: readonly bigint[], x: bigint): bigint {
  return coefficients.reduceRight((result, coefficient) => Fn.add(Fn.mul(result, x), coefficient), 0n);
}

function shareToScalar(share: Uint8Array, field: string): bigint {
  if (!(share instanceof Uint8Array) || share.length !== SCALAR_LENGTH) {
    throw new QkError('REQUEST_INVALID', `${field} must be ${SCALAR_LENGTH} bytes big-endian`);
  }
  const scalar = bytesToNumberBE(share);
  if (scalar >= Fn.ORDER) throw new QkError('REQUEST_INVALID', `${field} is not below the secp256k1 group order`);
  return scalar;
}

function assertShareIndex(index: number, field: string): void {
  if (!Number.isSafeInteger(index) || index < 1) {
    throw new QkError('REQUEST_INVALID', `${field} must be a positive integer (1-based share index), got ${index}`);
  }
}

function decodeCommitment(proof: Uint8Array, field: string) {
  if (!(proof instanceof Uint8Array) || proof.length !== COMPRESSED_POINT_LENGTH) {
    throw new QkError('KEY_INVALID', `${field} must be a ${COMPRESSED_POINT_LENGTH}-byte compressed secp256k1 point`);
  }
  try {
    return Point.fromBytes(proof);
  } catch {
    throw new QkError('KEY_INVALID', `${field} is not a point on secp256k1`);
  }
}

function lengthDelimitedField(fieldNumber: number, value: Uint8Array): Uint8Array {
  const key = encodeVarint((fieldNumber << 3) | 2);
  const length = encodeVarint(value.length);
  const field = new Uint8Array(key.length + length.length + value.length);
  field.set(key, 0);
  field.set(length, key.length);
  field.set(value, key.length + length.length);
  return field;
}

function encodeVarint(value: number): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Uint8Array.from(bytes);
}

/** Varints here are keys and lengths of a message of a few hundred bytes; more than 4 bytes is malformed. */
function readVarint(bytes: Uint8Array, start: number): { value: number; next: number } {
  let value = 0;
  for (const [offset, byte] of bytes.subarray(start, start + 4).entries()) {
    value |= (byte & 0x7f) << (7 * offset);
    if ((byte & 0x80) === 0) return { value, next: start + offset + 1 };
  }
  throw new QkError('ENCODING_INVALID', `SecretShare has a truncated or oversized varint at byte ${start}`);
}
