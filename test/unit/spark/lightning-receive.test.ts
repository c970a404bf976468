import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { decrypt as eciesDecrypt } from 'eciesjs';
import { describe, expect, it } from 'vitest';
import {
  decodeSecretShare,
  encodeSecretShare,
  MAX_OPERATORS,
  prepareLightningReceive,
  reconstructSecret,
  verifyShare,
  type IndexedShare,
  type OperatorRecipient,
} from '../../../src/service/enclave/spark';
import { expectQkError, itemAt } from '../../support/assertions';

interface Operator {
  recipient: OperatorRecipient;
  secretKey: Uint8Array;
}

function makeOperators(count: number): Operator[] {
  return Array.from({ length: count }, () => {
    const { secretKey, publicKey } = secp256k1.keygen();
    return { recipient: { operatorId: crypto.randomUUID(), encryptionPublicKey: bytesToHex(publicKey) }, secretKey };
  });
}

/** What each operator does on receipt: decrypt its package with eciesjs and parse the SecretShare. */
function openPackages(operators: Operator[], packages: { operatorId: string; encryptedPackage: string }[]) {
  return packages.map((operatorPackage, position) => {
    const operator = itemAt(operators, position);
    expect(operatorPackage.operatorId).toBe(operator.recipient.operatorId);
    const plaintext = eciesDecrypt(operator.secretKey, hexToBytes(operatorPackage.encryptedPackage));
    return { index: position + 1, ...decodeSecretShare(plaintext) };
  });
}

/** Every t-element subset of 0..n-1. */
function subsets(n: number, t: number): number[][] {
  if (t === 0) return [[]];
  if (n < t) return [];
  return [...subsets(n - 1, t - 1).map((subset) => [...subset, n - 1]), ...subsets(n - 1, t)];
}

describe('prepareLightningReceive', () => {
  it('gives each operator a verifiable share; any threshold of them rebuilds the preimage behind paymentHash', () => {
    const operators = makeOperators(5);
    const threshold = 3;
    const result = prepareLightningReceive({ threshold, operatorRecipients: operators.map((o) => o.recipient) });

    expect(result.paymentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(result.paymentHash).toBe(bytesToHex(sha256(result.preimage)));
    expect(secp256k1.utils.isValidSecretKey(result.preimage)).toBe(true);
    expect(result.operatorPackages).toHaveLength(5);

    // eciesjs default layout (docs/formats.md#spark-lightning-packages): uncompressed ephemeral key ‖ 16-byte nonce ‖
    // tag ‖ ciphertext, where the SecretShare is (2 + 32) + threshold × (2 + 33) bytes.
    for (const { encryptedPackage } of result.operatorPackages) {
      expect(encryptedPackage.slice(0, 2)).toBe('04');
      expect(encryptedPackage.length / 2).toBe(65 + 16 + 16 + 34 + threshold * 35);
    }

    const opened = openPackages(operators, result.operatorPackages);
    for (const { share, proofs, index } of opened) {
      expect(share).toHaveLength(32);
      expect(proofs).toHaveLength(threshold);
      expect(proofs).toEqual(itemAt(opened, 0).proofs);
      expect(verifyShare(share, proofs, index)).toBe(true);
    }
    // proofs[0] commits to the secret itself.
    expect(bytesToHex(itemAt(itemAt(opened, 0).proofs, 0))).toBe(bytesToHex(secp256k1.getPublicKey(result.preimage, true)));

    for (const subset of subsets(5, threshold)) {
      const secret = reconstructSecret(subset.map((position) => itemAt(opened, position)));
      expect(bytesToHex(sha256(secret))).toBe(result.paymentHash);
    }
    for (const subset of subsets(5, threshold - 1)) {
      const secret = reconstructSecret(subset.map((position) => itemAt(opened, position)));
      expect(bytesToHex(secret)).not.toBe(bytesToHex(result.preimage));
    }
  });

  it('works at the edges: threshold equal to the operator count, and the largest allowed operator list', () => {
    const operators = makeOperators(2);
    const result = prepareLightningReceive({ threshold: 2, operatorRecipients: operators.map((o) => o.recipient) });
    const opened = openPackages(operators, result.operatorPackages);
    expect(bytesToHex(reconstructSecret(opened))).toBe(bytesToHex(result.preimage));
    expect(bytesToHex(reconstructSecret([itemAt(opened, 1)]))).not.toBe(bytesToHex(result.preimage));

    const many = makeOperators(MAX_OPERATORS);
    const large = prepareLightningReceive({ threshold: 40, operatorRecipients: many.map((o) => o.recipient) });
    const openedMany = openPackages(many, large.operatorPackages);
    for (const { share, proofs, index } of [itemAt(openedMany, 0), itemAt(openedMany, MAX_OPERATORS - 1)]) {
      expect(verifyShare(share, proofs, index)).toBe(true);
    }
    expect(bytesToHex(reconstructSecret(openedMany.slice(24)))).toBe(bytesToHex(large.preimage));
  });

  it('draws the preimage and coefficients from the injected source, skipping draws that are not scalars', () => {
    const draws = [new Uint8Array(32), new Uint8Array(32).fill(0xff), new Uint8Array(32).fill(7), new Uint8Array(32).fill(9)];
    const operators = makeOperators(3);
    const result = prepareLightningReceive({
      threshold: 2,
      operatorRecipients: operators.map((o) => o.recipient),
      randomBytes: (length) => {
        expect(length).toBe(32);
        const next = draws.shift();
        if (!next) throw new Error('test source exhausted');
        return next;
      },
    });
    expect(bytesToHex(result.preimage)).toBe('07'.repeat(32));
    const opened = openPackages(operators, result.operatorPackages);
    // f(x) = 0x0707… + 0x0909…·x, so proofs[1] = 0x0909…·G.
    expect(bytesToHex(itemAt(itemAt(opened, 0).proofs, 1))).toBe(bytesToHex(secp256k1.getPublicKey(new Uint8Array(32).fill(9), true)));
    expect(draws).toHaveLength(0);
  });

  it('refuses a random source that never yields a scalar', () => {
    const operators = makeOperators(2);
    expectQkError(
      () =>
        prepareLightningReceive({
          threshold: 2,
          operatorRecipients: operators.map((o) => o.recipient),
          randomBytes: (length) => new Uint8Array(length),
        }),
      'INTERNAL',
      /no valid secp256k1 scalar/,
    );
  });

  describe('refusals', () => {
    const recipients = () => makeOperators(3).map((o) => o.recipient);
    const expectRefused = (
      threshold: number,
      operatorRecipients: OperatorRecipient[],
      code: string,
      message: RegExp,
      details?: Record<string, unknown>,
    ) => expectQkError(() => prepareLightningReceive({ threshold, operatorRecipients }), code, message, details);

    it('threshold below 2, above the operator count, or not an integer', () => {
      expectRefused(1, recipients(), 'REQUEST_INVALID', /threshold must be an integer of at least 2, got 1/);
      expectRefused(2.5, recipients(), 'REQUEST_INVALID', /threshold must be an integer/);
      expectRefused(4, recipients(), 'REQUEST_INVALID', /threshold 4 exceeds the 3 operatorRecipients/);
    });

    it('an empty or oversized operator list', () => {
      expectRefused(2, [], 'REQUEST_INVALID', /at least two operators/);
      const tooMany = makeOperators(MAX_OPERATORS + 1).map((o) => o.recipient);
      expectRefused(2, tooMany, 'REQUEST_INVALID', /65 operators; at most 64/);
    });

    it('an operatorId that is not a UUID, naming its index', () => {
      const list = recipients();
      list[1] = { ...itemAt(list, 1), operatorId: 'operator-2' };
      expectRefused(2, list, 'REQUEST_INVALID', /operatorRecipients\[1\]\.operatorId must be a UUID/, { index: 1 });
    });

    it('a duplicate operatorId, in any letter case', () => {
      const list = recipients();
      list[2] = { ...itemAt(list, 2), operatorId: itemAt(list, 0).operatorId.toUpperCase() };
      expectRefused(2, list, 'REQUEST_INVALID', /operatorRecipients\[2\]\.operatorId .* repeats operatorRecipients\[0\]/, { index: 2 });
    });

    it('an encryption key that is uncompressed, not hex, or not on the curve', () => {
      const uncompressed = bytesToHex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false));
      // x = 5 has no y on secp256k1 (5³ + 7 = 132 is not a square mod p).
      const offCurve = '02' + '00'.repeat(31) + '05';
      for (const [key, message] of [
        [uncompressed, /encryptionPublicKey must be a hex compressed secp256k1 point/],
        ['zz' + '00'.repeat(32), /encryptionPublicKey must be a hex compressed secp256k1 point/],
        [offCurve, /operatorRecipients\[0\]\.encryptionPublicKey is not a point on secp256k1/],
      ] as const) {
        const list = recipients();
        list[0] = { ...itemAt(list, 0), encryptionPublicKey: key };
        expectRefused(2, list, 'KEY_INVALID', message, { index: 0 });
      }
    });
  });
});

describe('verifyShare', () => {
  const operators = makeOperators(4);
  const result = prepareLightningReceive({ threshold: 3, operatorRecipients: operators.map((o) => o.recipient) });
  const opened = openPackages(operators, result.operatorPackages);

  it('rejects a share checked at the wrong index, a changed share, or changed commitments', () => {
    const { share, proofs } = itemAt(opened, 1);
    expect(verifyShare(share, proofs, 2)).toBe(true);
    expect(verifyShare(share, proofs, 3)).toBe(false);
    const changed = share.slice();
    changed[31]! ^= 1;
    expect(verifyShare(changed, proofs, 2)).toBe(false);
    expect(verifyShare(share, [itemAt(proofs, 0), itemAt(proofs, 2), itemAt(proofs, 1)], 2)).toBe(false);
  });

  it('refuses malformed inputs with specific errors', () => {
    const { share, proofs } = itemAt(opened, 0);
    expectQkError(() => verifyShare(share.slice(1), proofs, 1), 'REQUEST_INVALID', /share must be 32 bytes/);
    expectQkError(() => verifyShare(new Uint8Array(32).fill(0xff), proofs, 1), 'REQUEST_INVALID', /not below the secp256k1 group order/);
    expectQkError(() => verifyShare(share, proofs, 0), 'REQUEST_INVALID', /index must be a positive integer/);
    expectQkError(() => verifyShare(share, [], 1), 'REQUEST_INVALID', /proofs is empty/);
    expectQkError(() => verifyShare(share, [itemAt(proofs, 0), itemAt(proofs, 1).slice(1)], 1), 'KEY_INVALID', /proofs\[1\] must be a 33-byte/);
  });
});

describe('reconstructSecret', () => {
  it('refuses no shares, repeated indices and bad indices', () => {
    const share = new Uint8Array(32).fill(1);
    expectQkError(() => reconstructSecret([]), 'REQUEST_INVALID', /shares is empty/);
    const repeated: IndexedShare[] = [
      { index: 1, share },
      { index: 1, share },
    ];
    expectQkError(() => reconstructSecret(repeated), 'REQUEST_INVALID', /shares\[1\]\.index 1 appears twice/);
    expectQkError(() => reconstructSecret([{ index: -1, share }]), 'REQUEST_INVALID', /shares\[0\]\.index must be a positive integer/);
  });
});

describe('SecretShare protobuf', () => {
  it('encodes fields 1 and 2 as length-delimited bytes, as protoc would', () => {
    const share = new Uint8Array(32).fill(0xab);
    const proof = new Uint8Array(33).fill(0xcd);
    const encoded = encodeSecretShare({ share, proofs: [proof, proof] });
    expect(bytesToHex(encoded)).toBe('0a20' + 'ab'.repeat(32) + ('1221' + 'cd'.repeat(33)).repeat(2));
    expect(decodeSecretShare(encoded)).toEqual({ share, proofs: [proof, proof] });
  });

  it('decodes a multi-byte length and refuses truncation, unknown fields and a missing share', () => {
    const longProof = new Uint8Array(200).fill(1);
    const encoded = encodeSecretShare({ share: new Uint8Array(32), proofs: [longProof] });
    expect(bytesToHex(encoded.slice(34, 37))).toBe('12c801');
    expect(itemAt(decodeSecretShare(encoded).proofs, 0)).toEqual(longProof);

    expectQkError(() => decodeSecretShare(encoded.slice(0, -1)), 'ENCODING_INVALID', /field 2 at byte 34 runs past the end/);
    expectQkError(() => decodeSecretShare(Uint8Array.of(0x08, 0x01)), 'ENCODING_INVALID', /unexpected field 1 \(wire type 0\)/);
    expectQkError(() => decodeSecretShare(Uint8Array.of(0x12, 0x00)), 'ENCODING_INVALID', /no secret_share/);
    expectQkError(() => decodeSecretShare(Uint8Array.of(0x0a, 0xff)), 'ENCODING_INVALID', /truncated or oversized varint at byte 1/);
  });
});
