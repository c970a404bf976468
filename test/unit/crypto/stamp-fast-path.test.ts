/**
 * parseApiKeyStamp's fast path against the careful parser it stands in front of: for valid stamps of every scheme and
 * many mutations of them, both give the same stamp or the same error, and the fast path's helpers (base64url, hex,
 * DER) accept exactly what their careful counterparts accept. Seeded, so a failure replays exactly.
 */
import { isDeepStrictEqual } from 'node:util';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { isStrictDerEcdsaSignature } from '../../../src/shared/crypto/der-signature';
import { derToRawSignature, type EcdsaCurve } from '../../../src/shared/crypto/ecdsa';
import {
  base64UrlDecode,
  base64UrlDecodeOrUndefined,
  base64UrlEncode,
  bytesToHex,
  hexToBytes,
  lowercaseHexToBytesOrUndefined,
  utf8Decode,
  utf8Encode,
} from '../../../src/shared/crypto/encoding';
import { API_KEY_CURVES, type ApiKeyCurve } from '../../../src/shared/crypto/keys';
import {
  API_KEY_SCHEMES,
  parseApiKeyStamp,
  parseApiKeyStampCarefully,
  signerFromPrivateKey,
  stampBody,
  wellFormedApiKeyStamp,
} from '../../../src/shared/crypto/stamp';
import { QkError } from '../../../src/shared/errors';
import { prng } from '../../support/random';

const ECDSA_CURVES: EcdsaCurve[] = ['p256', 'secp256k1'];
const curveOrder: Record<EcdsaCurve, bigint> = { p256: p256.Point.CURVE().n, secp256k1: secp256k1.Point.CURVE().n };

type Random = () => number;
const below = (random: Random, bound: number): number => Math.floor(random() * bound);
const pick = <T>(random: Random, items: readonly T[]): T => items[below(random, items.length)]!;
const randomBytes = (random: Random, length: number): number[] => Array.from({ length }, () => below(random, 256));

/** Calls `action` and gives what a caller sees: the result, or the QkError's code, message and details. */
function outcome<T>(action: () => T): { result: T } | { code: string; message: string; details: unknown } {
  try {
    return { result: action() };
  } catch (error) {
    if (!(error instanceof QkError)) throw error;
    return { code: error.code, message: error.message, details: error.details };
  }
}

/** The minimal DER INTEGER content of a non-negative value: big-endian, a zero byte before a first byte ≥ 0x80. */
function derInteger(value: bigint): number[] {
  const hex = value.toString(16);
  const bytes = Array.from(hexToBytes(hex.length % 2 === 0 ? hex : `0${hex}`, 'integer'));
  return bytes[0]! & 0x80 ? [0, ...bytes] : bytes;
}

function derSequence(r: number[], s: number[], extra: number[] = []): number[] {
  const body = [0x02, r.length, ...r, 0x02, s.length, ...s, ...extra];
  return [0x30, body.length, ...body];
}

function randomScalar(random: Random, order: bigint): bigint {
  const length = 1 + below(random, 32);
  const value = BigInt(`0x${bytesToHex(Uint8Array.from(randomBytes(random, length)))}`) % order;
  return value === 0n ? 1n : value;
}

/** Scalars in [1, n-1], the edges included, and a few random ones of every length. */
function validScalars(random: Random, order: bigint): bigint[] {
  const edges = [1n, 0x7fn, 0x80n, 0xffn, 0x100n, order >> 1n, order - 1n, 2n ** 255n - 1n, 2n ** 255n, 2n ** 248n];
  return [...edges, ...Array.from({ length: 6 }, () => randomScalar(random, order))];
}

function invalidScalars(order: bigint): bigint[] {
  return [0n, order, order + 1n, 2n ** 256n - 1n, 2n ** 256n, 2n ** 264n];
}

/** Ways to break (or not quite break) a DER signature: lengths, tags, sign and zero padding, long forms, trailing bytes. */
function derMutations(random: Random, r: number[], s: number[]): number[][] {
  const valid = derSequence(r, s);
  const body = valid.slice(2);
  const afterR = body.slice(2 + r.length);
  const flipped = (bytes: number[]): number[] => {
    const copy = [...bytes];
    copy[below(random, copy.length)]! ^= 1 << below(random, 8);
    return copy;
  };
  const replaced = (bytes: number[]): number[] => {
    const copy = [...bytes];
    copy[below(random, copy.length)] = below(random, 256);
    return copy;
  };
  return [
    valid.slice(0, -1),
    valid.slice(0, -2),
    valid.slice(0, 4),
    valid.slice(0, 2),
    [],
    [0x30],
    [...valid, 0x00],
    [...valid, 0x02, 0x01, 0x01],
    derSequence(r, s, [0x02, 0x01, 0x01]),
    derSequence(r, s, [0x00]),
    [0x30, valid[1]! + 1, ...body],
    [0x30, valid[1]! - 1, ...body],
    [0x30, valid[1]! + 1, ...body, 0x00],
    [0x30, 0x81, valid[1]!, ...body],
    [0x30, 0x82, 0x00, valid[1]!, ...body],
    [0x30, 0x80, ...body, 0x00, 0x00],
    [0x30, 0x85, 0x00, 0x00, 0x00, 0x00, valid[1]!, ...body],
    [0x31, ...valid.slice(1)],
    [0x30, valid[1]!, 0x03, ...body.slice(1)],
    [0x30, valid[1]!, ...body.slice(0, 2 + r.length), 0x03, ...afterR.slice(1)],
    [0x30, valid[1]! + 1, 0x02, 0x81, r.length, ...r, ...afterR],
    [0x30, valid[1]!, 0x02, r.length + 1, ...r, ...afterR],
    [0x30, valid[1]!, 0x02, r.length - 1, ...r, ...afterR],
    derSequence([0x00, ...r], s),
    derSequence(r, [0x00, ...s]),
    derSequence([0x00, 0x00, ...r], s),
    r[0] === 0 && r.length > 1 ? derSequence(r.slice(1), s) : derSequence([r[0]! | 0x80, ...r.slice(1)], s),
    s[0] === 0 && s.length > 1 ? derSequence(r, s.slice(1)) : derSequence(r, [s[0]! | 0x80, ...s.slice(1)]),
    derSequence([], s),
    derSequence(r, []),
    derSequence(s, r),
    flipped(valid),
    flipped(valid),
    replaced(valid),
    replaced(valid),
  ];
}

/** DER signatures that derToRawSignature accepts for `curve`, and many near misses. */
function derCorpus(random: Random, curve: EcdsaCurve): { valid: number[][]; mutated: number[][] } {
  const order = curveOrder[curve];
  const scalars = validScalars(random, order);
  const valid: number[][] = [];
  const mutated: number[][] = [];
  for (const r of scalars) {
    const s = pick(random, scalars);
    valid.push(derSequence(derInteger(r), derInteger(s)));
    mutated.push(...derMutations(random, derInteger(r), derInteger(s)));
  }
  const otherOrder = curveOrder[curve === 'p256' ? 'secp256k1' : 'p256'];
  for (const bad of [...invalidScalars(order), otherOrder - 1n, otherOrder, otherOrder + 1n]) {
    const good = derInteger(pick(random, scalars));
    mutated.push(derSequence(derInteger(bad), good), derSequence(good, derInteger(bad)));
  }
  for (let count = 0; count < 200; count++) mutated.push(randomBytes(random, below(random, 80)));
  return { valid, mutated };
}

describe('base64UrlDecodeOrUndefined', () => {
  function expectAgreement(text: string): void {
    const careful = outcome(() => base64UrlDecode(text, 'text'));
    const fast = base64UrlDecodeOrUndefined(text);
    if ('result' in careful) expect(fast, JSON.stringify(text)).toEqual(careful.result);
    else expect(fast, JSON.stringify(text)).toBeUndefined();
  }

  it('agrees with base64UrlDecode on every string of up to 4 characters over letters of each role', () => {
    // Letters with zero and non-zero low bits, padding, the standard alphabet, whitespace and non-ASCII.
    const letters = ['A', 'B', 'Q', 'g', 'w', '_', '-', '=', '+', '/', ' ', 'é'];
    let texts = [''];
    for (let length = 0; length <= 4; length++) {
      for (const text of texts) expectAgreement(text);
      texts = length < 4 ? texts.flatMap((text) => letters.map((letter) => text + letter)) : [];
    }
  });

  it('agrees with base64UrlDecode on encodings of random bytes and their mutations', () => {
    const random = prng(0xba5e64);
    const noise = ['=', '==', '===', '+', '/', ' ', '\n', 'é', '\u{1f511}', 'A', '_'];
    let accepted = 0;
    for (let count = 0; count < 2_000; count++) {
      const encoded = base64UrlEncode(Uint8Array.from(randomBytes(random, below(random, 40))));
      const at = below(random, encoded.length + 1);
      const variants = [
        encoded,
        encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '='),
        encoded + pick(random, noise),
        encoded.slice(0, at) + pick(random, noise) + encoded.slice(at),
        encoded.slice(0, at) + encoded.slice(at + 1),
      ];
      for (const text of variants) {
        expectAgreement(text);
        if (base64UrlDecodeOrUndefined(text) !== undefined) accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(4_000);
  });
});

describe('lowercaseHexToBytesOrUndefined', () => {
  it('accepts exactly the lowercase hex that hexToBytes decodes, on every string of up to 4 characters', () => {
    const letters = ['0', '9', 'a', 'f', 'A', 'F', 'g', 'G', 'x', ' ', 'é', '\u0660'];
    let texts = [''];
    for (let length = 0; length <= 4; length++) {
      for (const text of texts) {
        const careful = text === text.toLowerCase() ? outcome(() => hexToBytes(text, 'hex')) : undefined;
        const expected = careful !== undefined && 'result' in careful ? careful.result : undefined;
        expect(lowercaseHexToBytesOrUndefined(text), JSON.stringify(text)).toEqual(expected);
      }
      texts = length < 4 ? texts.flatMap((text) => letters.map((letter) => text + letter)) : [];
    }
  });
});

describe('isStrictDerEcdsaSignature', () => {
  it.each(ECDSA_CURVES)('accepts exactly the %s DER signatures derToRawSignature accepts', (curve) => {
    const random = prng(curve === 'p256' ? 0xde2256 : 0xde2256 + 1);
    const { valid, mutated } = derCorpus(random, curve);
    for (const der of valid) expect(isStrictDerEcdsaSignature(Uint8Array.from(der), curve), bytesToHex(Uint8Array.from(der))).toBe(true);
    let refused = 0;
    for (const der of [...valid, ...mutated]) {
      const bytes = Uint8Array.from(der);
      const accepted = 'result' in outcome(() => derToRawSignature(bytes, curve));
      expect(isStrictDerEcdsaSignature(bytes, curve), bytesToHex(bytes)).toBe(accepted);
      if (!accepted) refused++;
    }
    expect(refused).toBeGreaterThan(mutated.length / 2);
  });
});

describe('parseApiKeyStamp with its fast path', () => {
  const encode = (stamp: unknown): string => base64UrlEncode(utf8Encode(JSON.stringify(stamp)));
  const encodeText = (json: string): string => base64UrlEncode(utf8Encode(json));

  /** Field-level near misses of a valid stamp: types, hex case and length, key form, scheme, signature encoding. */
  function fieldMutations(random: Random, stamp: { publicKey: string; scheme: string; signature: string }, curve: ApiKeyCurve): string[] {
    const { publicKey, scheme, signature } = stamp;
    const upperOne = (hex: string): string => {
      const letters = [...hex].flatMap((char, index) => (/[a-f]/.test(char) ? [index] : []));
      if (letters.length === 0) return hex.toUpperCase();
      const at = pick(random, letters);
      return hex.slice(0, at) + hex[at]!.toUpperCase() + hex.slice(at + 1);
    };
    const otherSchemes = Object.values(API_KEY_SCHEMES).filter((other) => other !== scheme);
    const stamps: unknown[] = [
      { ...stamp, publicKey: upperOne(publicKey) },
      { ...stamp, publicKey: publicKey.toUpperCase() },
      { ...stamp, publicKey: publicKey.slice(1) },
      { ...stamp, publicKey: publicKey.slice(2) },
      { ...stamp, publicKey: `${publicKey}00` },
      { ...stamp, publicKey: `0x${publicKey}` },
      { ...stamp, publicKey: ` ${publicKey}` },
      { ...stamp, publicKey: `${publicKey.slice(0, -1)}g` },
      { ...stamp, publicKey: `04${publicKey.slice(2)}` },
      { ...stamp, publicKey: `00${publicKey.slice(2)}` },
      { ...stamp, publicKey: `${publicKey.slice(0, -1)}\u0661` },
      { ...stamp, publicKey: 7 },
      { ...stamp, publicKey: null },
      { ...stamp, publicKey: [publicKey] },
      { scheme, signature },
      { ...stamp, signature: upperOne(signature) },
      { ...stamp, signature: signature.toUpperCase() },
      { ...stamp, signature: signature.slice(1) },
      { ...stamp, signature: signature.slice(0, -2) },
      { ...stamp, signature: `${signature}00` },
      { ...stamp, signature: '' },
      { ...stamp, signature: { hex: signature } },
      { publicKey, scheme },
      { ...stamp, scheme: scheme.toLowerCase() },
      { ...stamp, scheme: `${scheme} ` },
      { ...stamp, scheme: 'SIGNATURE_SCHEME_TK_API_RSA' },
      { ...stamp, scheme: '__proto__' },
      { ...stamp, scheme: 1 },
      { publicKey, signature },
      ...otherSchemes.map((other) => ({ ...stamp, scheme: other })),
      { signature, publicKey, scheme },
      { ...stamp, extra: 'ünïcode \u{1f511}' },
      { ...stamp, publicKey: { toString: publicKey } },
    ];
    if (curve !== 'ed25519') {
      const bytes = Array.from(hexToBytes(signature, 'signature'));
      const rLength = bytes[3]!;
      const r = bytes.slice(4, 4 + rLength);
      const s = bytes.slice(6 + rLength);
      for (const der of derMutations(random, r, s)) stamps.push({ ...stamp, signature: bytesToHex(Uint8Array.from(der)) });
      const order = curveOrder[curve];
      for (const bad of invalidScalars(order)) {
        stamps.push({ ...stamp, signature: bytesToHex(Uint8Array.from(derSequence(derInteger(bad), s))) });
        stamps.push({ ...stamp, signature: bytesToHex(Uint8Array.from(derSequence(r, derInteger(bad)))) });
      }
      stamps.push({ ...stamp, signature: bytesToHex(derToRawSignature(Uint8Array.from(bytes), curve)) });
    } else {
      stamps.push({ ...stamp, signature: signature.slice(0, -2) }, { ...stamp, signature: `${signature}${signature}` });
    }
    const json = JSON.stringify(stamp);
    return [
      ...stamps.map(encode),
      encodeText(`{"publicKey":"${publicKey}","scheme":"${scheme}","signature":"${signature}","publicKey":"${publicKey.toUpperCase()}"}`),
      encodeText(`{"publicKey":"${publicKey.toUpperCase()}","scheme":"${scheme}","signature":"${signature}","publicKey":"${publicKey}"}`),
      encodeText(` \n${json.replaceAll(',', ' , ')}\t`),
      encodeText(
        json.replace(
          publicKey,
          publicKey.replace(/[a-f]/, (char) => `\\u00${char.charCodeAt(0).toString(16)}`),
        ),
      ),
      encodeText(`${json},`),
      encodeText(`[${json}]`),
      encodeText('null'),
      encodeText('"stamp"'),
      encodeText(''),
      base64UrlEncode(Uint8Array.from([...utf8Encode(json.slice(0, -1)), 0xff, 0x7d])),
    ];
  }

  /** Header-level near misses: bit flips, truncations, padding, whitespace, foreign characters. */
  function headerMutations(random: Random, header: string): string[] {
    const at = below(random, header.length);
    const flipBit = (index: number): string =>
      header.slice(0, index) + String.fromCharCode(header.charCodeAt(index) ^ (1 << below(random, 7))) + header.slice(index + 1);
    const padded = header.padEnd(Math.ceil(header.length / 4) * 4, '=');
    const bytes = base64UrlDecode(header, 'header');
    const flippedBytes = Uint8Array.from(bytes);
    flippedBytes[below(random, bytes.length)]! ^= 1 << below(random, 8);
    return [
      flipBit(at),
      flipBit(header.length - 1),
      header.slice(0, at) + pick(random, ['+', '/', '=', ' ', '.', 'é', '\u{1f511}', '\0']) + header.slice(at + 1),
      header.slice(0, -1),
      header.slice(0, -2),
      header.slice(0, -3),
      header.slice(0, at),
      header.slice(0, at) + header.slice(at + 1),
      header.slice(0, at) + header[at]! + header.slice(at),
      padded,
      `${header}=`,
      `${header}==`,
      `${header}===`,
      `${padded}=`,
      `${padded.slice(0, -1)}A`,
      ` ${header}`,
      `${header}\n`,
      `\u00a0${header}\ufeff`,
      `${header.slice(0, at)} ${header.slice(at)}`,
      header.replaceAll('-', '+').replaceAll('_', '/'),
      base64UrlEncode(flippedBytes),
      base64UrlEncode(bytes.slice(0, -1)),
      base64UrlEncode(bytes.slice(1)),
    ];
  }

  it('gives the careful parser’s result or error for valid stamps of every scheme and their mutations', async () => {
    const random = prng(0x57a3b);
    const valid: string[] = [];
    const mutated: string[] = [];
    for (const curve of API_KEY_CURVES) {
      for (let index = 0; index < 6; index++) {
        // A private key below both ECDSA orders (top bit clear), from the seeded generator.
        const privateKey = bytesToHex(Uint8Array.from([below(random, 0x80), ...randomBytes(random, 31)]));
        const signer = signerFromPrivateKey(curve, privateKey);
        const { headerValue } = await stampBody(JSON.stringify({ index, curve }), signer);
        valid.push(headerValue);
        const stamp = JSON.parse(utf8Decode(base64UrlDecode(headerValue, 'header'))) as Record<string, string>;
        mutated.push(...headerMutations(random, headerValue));
        mutated.push(...fieldMutations(random, { publicKey: stamp.publicKey!, scheme: stamp.scheme!, signature: stamp.signature! }, curve));
      }
    }
    // Signatures built from scalars at the edges of [1, n-1], beyond what signing happens to produce.
    for (const curve of ECDSA_CURVES) {
      const publicKey = signerFromPrivateKey(curve, '11'.repeat(32)).publicKey;
      for (const der of derCorpus(random, curve).valid) {
        const header = encode({ publicKey, scheme: API_KEY_SCHEMES[curve], signature: bytesToHex(Uint8Array.from(der)) });
        valid.push(header);
        mutated.push(...headerMutations(random, header));
      }
    }

    for (const header of valid) expect(wellFormedApiKeyStamp(header), header).toEqual(parseApiKeyStampCarefully(header));
    const disagreements: unknown[] = [];
    const errors = new Set<string>();
    let acceptedMutations = 0;
    for (const header of [...valid, ...mutated]) {
      const careful = outcome(() => parseApiKeyStampCarefully(header));
      const parsed = outcome(() => parseApiKeyStamp(header));
      const fast = wellFormedApiKeyStamp(header);
      if (!isDeepStrictEqual(parsed, careful) || (fast !== undefined && !isDeepStrictEqual({ result: fast }, careful))) {
        disagreements.push({ header, careful, parsed, fast });
      }
      if ('message' in careful) errors.add(careful.message.replace(/"[^"]*"|\d+|: .*/g, '…'));
      else if (!valid.includes(header)) acceptedMutations++;
    }
    expect(disagreements.slice(0, 3)).toEqual([]);
    // The corpus reaches many of the careful parser's refusals, and mutations that stay valid (padding, whitespace).
    expect(errors.size).toBeGreaterThan(10);
    expect(acceptedMutations).toBeGreaterThan(50);
  });
});
