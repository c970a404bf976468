/**
 * Hierarchical key derivation from a BIP-39 seed for the three curves Turnkey wallets use:
 * - CURVE_SECP256K1: BIP-32 (@scure/bip32);
 * - CURVE_ED25519: SLIP-10 "ed25519 seed", hardened segments only;
 * - CURVE_P256: SLIP-10 "Nist256p1 seed", with SLIP-10's retry rule for invalid child keys.
 * Paths are PATH_FORMAT_BIP32 strings such as "m/44'/60'/0'/0/0" ("h" also marks a hardened segment).
 */
import { HDKey } from '@scure/bip32';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { curve } from '../../shared/api/enums';
import { QkError } from '../../shared/errors';

/** Every `v1Curve`: the API table's enum is the one list. */
export const CURVES = curve.options;
export type Curve = (typeof CURVES)[number];

export function isCurve(value: unknown): value is Curve {
  return typeof value === 'string' && (CURVES as readonly string[]).includes(value);
}

export function assertCurve(curve: unknown): asserts curve is Curve {
  if (!isCurve(curve)) {
    throw new QkError('CURVE_UNSUPPORTED', `curve must be one of ${CURVES.join(', ')}; got ${JSON.stringify(curve)}`, { curve });
  }
}

export const HARDENED_OFFSET = 0x8000_0000;
/** BIP-32 serialises depth in one byte. */
const MAX_DEPTH = 255;

export interface DerivedKey {
  /** 32-byte secret scalar (secp256k1, P-256) or Ed25519 seed. The caller owns it and should zero it. */
  privateKey: Uint8Array;
  /** Compressed SEC1 point (33 bytes) for secp256k1 and P-256; the raw 32-byte key for Ed25519. */
  publicKey: Uint8Array;
}

interface PathSegment {
  /** Child index, with HARDENED_OFFSET added for hardened segments. */
  index: number;
  /** Character offset of the segment in the path string. */
  position: number;
  segment: string;
}

function parseSegments(path: string): PathSegment[] {
  if (typeof path !== 'string') {
    throw new QkError('PATH_INVALID', 'path must be a string such as "m/44\'/60\'/0\'/0/0"');
  }
  if (path !== 'm' && !path.startsWith('m/')) {
    throw new QkError('PATH_INVALID', `path "${path}" must start with "m/" (position 0)`, { path, position: 0 });
  }
  if (path === 'm') return [];
  const segments: PathSegment[] = [];
  let position = 2;
  for (const segment of path.slice(2).split('/')) {
    const match = /^(0|[1-9][0-9]*)(['h]?)$/.exec(segment);
    const value = match ? Number(match[1]) : NaN;
    if (!match || value >= HARDENED_OFFSET) {
      throw new QkError(
        'PATH_INVALID',
        `path "${path}" has an invalid segment "${segment}" at position ${position}: ` +
          `expected a decimal index below 2147483648 without leading zeros, optionally followed by ' or h`,
        { path, position, segment },
      );
    }
    segments.push({ index: match[2] === '' ? value : value + HARDENED_OFFSET, position, segment });
    position += segment.length + 1;
  }
  if (segments.length > MAX_DEPTH) {
    throw new QkError('PATH_INVALID', `path "${path}" has ${segments.length} levels; BIP-32 allows at most ${MAX_DEPTH}`, { path });
  }
  return segments;
}

/**
 * Parses a PATH_FORMAT_BIP32 path into child indexes (hardened ones with HARDENED_OFFSET added).
 * Accepts "m" alone (the master key). Each index is a decimal in [0, 2^31) without leading zeros, so that equal
 * keys always have equal path strings; "'" or "h" marks it hardened.
 */
export function parsePath(path: string): number[] {
  return parseSegments(path).map((segment) => segment.index);
}

/**
 * Parses `path` and checks it suits `curve`: SLIP-10 defines no public (non-hardened) derivation for Ed25519.
 */
export function parsePathForCurve(path: string, curve: Curve): number[] {
  const segments = parseSegments(path);
  if (curve === 'CURVE_ED25519') {
    const soft = segments.find((segment) => segment.index < HARDENED_OFFSET);
    if (soft) {
      throw new QkError(
        'PATH_INVALID',
        `path "${path}" has a non-hardened segment "${soft.segment}" at position ${soft.position}; ` +
          `CURVE_ED25519 (SLIP-10) derives hardened segments only, write "${soft.segment}'"`,
        { path, position: soft.position, segment: soft.segment, curve },
      );
    }
  }
  return segments.map((segment) => segment.index);
}

/** One node of a derivation tree: enough to derive its children and to hand out its key. */
interface HdNode {
  child(index: number): HdNode;
  key(): DerivedKey;
  wipe(): void;
}

class Bip32Node implements HdNode {
  constructor(private readonly hd: HDKey) {}

  child(index: number): HdNode {
    return new Bip32Node(this.hd.deriveChild(index));
  }

  key(): DerivedKey {
    const { privateKey, publicKey } = this.hd;
    if (!privateKey || !publicKey) throw new QkError('INTERNAL', 'BIP-32 node lost its private key');
    return { privateKey: privateKey.slice(), publicKey: publicKey.slice() };
  }

  wipe(): void {
    this.hd.wipePrivateData();
  }
}

const ED25519_SEED_KEY = utf8ToBytes('ed25519 seed');
const NIST256P1_SEED_KEY = utf8ToBytes('Nist256p1 seed');
const P256_ORDER = p256.Point.Fn.ORDER;

function ser32(index: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, index, false);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** HMAC-SHA512 split into (IL, IR); zeroes its input buffer, which always holds key material here. */
function hmacSplit(key: Uint8Array, data: Uint8Array): [Uint8Array, Uint8Array] {
  const digest = hmac(sha512, key, data);
  data.fill(0);
  const halves: [Uint8Array, Uint8Array] = [digest.slice(0, 32), digest.slice(32)];
  digest.fill(0);
  return halves;
}

class Ed25519Node implements HdNode {
  constructor(
    private readonly privateKey: Uint8Array,
    private readonly chainCode: Uint8Array,
  ) {}

  static fromSeed(seed: Uint8Array): Ed25519Node {
    const [key, chainCode] = hmacSplit(ED25519_SEED_KEY, seed.slice());
    return new Ed25519Node(key, chainCode);
  }

  /** Hardened only: parsePathForCurve refuses other indexes before they get here. */
  child(index: number): HdNode {
    const [key, chainCode] = hmacSplit(this.chainCode, concat(new Uint8Array([0]), this.privateKey, ser32(index)));
    return new Ed25519Node(key, chainCode);
  }

  key(): DerivedKey {
    return { privateKey: this.privateKey.slice(), publicKey: ed25519.getPublicKey(this.privateKey) };
  }

  wipe(): void {
    this.privateKey.fill(0);
    this.chainCode.fill(0);
  }
}

class P256Node implements HdNode {
  private constructor(
    private readonly privateKey: Uint8Array,
    private readonly chainCode: Uint8Array,
    private readonly publicKey: Uint8Array,
  ) {}

  private static of(privateKey: Uint8Array, chainCode: Uint8Array): P256Node {
    return new P256Node(privateKey, chainCode, p256.getPublicKey(privateKey, true));
  }

  static fromSeed(seed: Uint8Array): P256Node {
    // SLIP-10: while IL is 0 or ≥ n, re-hash the whole 64-byte output with the same curve key.
    let [il, ir] = hmacSplit(NIST256P1_SEED_KEY, seed.slice());
    for (;;) {
      const scalar = bytesToNumberBE(il);
      if (scalar !== 0n && scalar < P256_ORDER) return P256Node.of(il, ir);
      [il, ir] = hmacSplit(NIST256P1_SEED_KEY, concat(il, ir));
    }
  }

  child(index: number): HdNode {
    const parentScalar = bytesToNumberBE(this.privateKey);
    let data =
      index >= HARDENED_OFFSET
        ? concat(new Uint8Array([0]), this.privateKey, ser32(index))
        : concat(this.publicKey, ser32(index));
    for (;;) {
      const [il, ir] = hmacSplit(this.chainCode, data);
      const tweak = bytesToNumberBE(il);
      const childScalar = (tweak + parentScalar) % P256_ORDER;
      if (tweak < P256_ORDER && childScalar !== 0n) {
        il.fill(0);
        return P256Node.of(numberToBytesBE(childScalar, 32), ir);
      }
      // SLIP-10 retry rule for an invalid child: I = HMAC(c_par, 0x01 || IR || ser32(i)).
      data = concat(new Uint8Array([1]), ir, ser32(index));
      il.fill(0);
      ir.fill(0);
    }
  }

  key(): DerivedKey {
    return { privateKey: this.privateKey.slice(), publicKey: this.publicKey.slice() };
  }

  wipe(): void {
    this.privateKey.fill(0);
    this.chainCode.fill(0);
  }
}

function assertSeed(seed: Uint8Array): void {
  // BIP-32 allows 16..64-byte seeds; BIP-39 seeds are 64 bytes.
  if (!(seed instanceof Uint8Array) || seed.length < 16 || seed.length > 64) {
    throw new QkError('KEY_INVALID', 'seed must be 16 to 64 bytes (a BIP-39 seed is 64 bytes)', {
      length: seed instanceof Uint8Array ? seed.length : null,
    });
  }
}

function masterNode(seed: Uint8Array, curve: Curve): HdNode {
  assertSeed(seed);
  switch (curve) {
    case 'CURVE_SECP256K1':
      return new Bip32Node(HDKey.fromMasterSeed(seed));
    case 'CURVE_ED25519':
      return Ed25519Node.fromSeed(seed);
    case 'CURVE_P256':
      return P256Node.fromSeed(seed);
  }
}

export interface KeyDeriver {
  /** Derives the key at `path`; siblings share their cached parent, so only the last level is computed. */
  derive(path: string): DerivedKey;
  /** Zeroes every cached node's private key and chain code; the deriver cannot be used afterwards. */
  wipe(): void;
}

/**
 * A deriver for many paths under one seed (creating a wallet with many accounts). It caches every intermediate
 * node by its path prefix, so "m/44'/60'/0'/0/0" … "/0/999" cost one child derivation each after the first.
 * Call wipe() when done.
 */
export function createKeyDeriver({ seed, curve }: { seed: Uint8Array; curve: Curve }): KeyDeriver {
  assertCurve(curve);
  const nodes = new Map<string, HdNode>([['m', masterNode(seed, curve)]]);
  let wiped = false;
  return {
    derive(path: string): DerivedKey {
      if (wiped) throw new QkError('INTERNAL', 'key deriver used after wipe()');
      const indexes = parsePathForCurve(path, curve);
      const leafIndex = indexes.pop();
      let prefix = 'm';
      let parent = nodes.get(prefix) as HdNode;
      for (const index of indexes) {
        prefix += `/${index}`;
        let next = nodes.get(prefix);
        if (!next) {
          next = parent.child(index);
          nodes.set(prefix, next);
        }
        parent = next;
      }
      if (leafIndex === undefined) return parent.key();
      // Leaves are not cached: only parents are shared, and a leaf's secrets should not outlive this call.
      const leaf = parent.child(leafIndex);
      try {
        return leaf.key();
      } finally {
        leaf.wipe();
      }
    },
    wipe(): void {
      for (const node of nodes.values()) node.wipe();
      nodes.clear();
      wiped = true;
    },
  };
}

/** Derives one key; for many paths under the same seed use createKeyDeriver. */
export function deriveKey({ seed, curve, path }: { seed: Uint8Array; curve: Curve; path: string }): DerivedKey {
  const deriver = createKeyDeriver({ seed, curve });
  try {
    return deriver.derive(path);
  } finally {
    deriver.wipe();
  }
}

/** The public key of an imported private key, in the same encoding deriveKey returns. */
export function publicKeyFromPrivate(curve: Curve, privateKey: Uint8Array): Uint8Array {
  assertCurve(curve);
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) {
    throw new QkError('KEY_INVALID', `${curve} private key must be 32 bytes`, {
      length: privateKey instanceof Uint8Array ? privateKey.length : null,
    });
  }
  switch (curve) {
    case 'CURVE_ED25519':
      return ed25519.getPublicKey(privateKey);
    case 'CURVE_SECP256K1':
    case 'CURVE_P256': {
      const ecdsa = curve === 'CURVE_SECP256K1' ? secp256k1 : p256;
      if (!ecdsa.utils.isValidSecretKey(privateKey)) {
        throw new QkError('KEY_INVALID', `${curve} private key is not a scalar in [1, n-1]`);
      }
      return ecdsa.getPublicKey(privateKey, true);
    }
  }
}
