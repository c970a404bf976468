/**
 * Hierarchical key derivation from a BIP-39 seed for the three curves Turnkey wallets use:
 * - CURVE_SECP256K1: BIP-32 "Bitcoin seed", the same code as P-256. Not @scure/bip32: it computes a public key (and
 *   its hash) at every level, three more point multiplications than m/44'/60'/0'/0/0 needs; the tests hold this code
 *   to BIP-32's vectors and to @scure/bip32;
 * - CURVE_ED25519: SLIP-10 "ed25519 seed", hardened segments only;
 * - CURVE_P256: SLIP-10 "Nist256p1 seed", with SLIP-10's retry rule for invalid child keys.
 * Paths are PATH_FORMAT_BIP32 strings such as "m/44'/60'/0'/0/0" ("h" also marks a hardened segment).
 */
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { curve } from '../../shared/api/enums';
import { QkError } from '../../shared/errors';
import { ed25519PublicKey, p256PublicKey } from './openssl';

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
const MAX_INDEX = 0xffff_ffff;
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
    throw new QkError('PATH_INVALID', "path must be a string such as \"m/44'/60'/0'/0/0\"");
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

// Tables for 8-bit windows (built on first use, about 1 MB) instead of noble's default 6: a secp256k1 public key
// (every non-hardened derivation step, every wallet account signature) costs about 30% less.
secp256k1.Point.BASE.precompute(8);

function secp256k1PublicKey(privateKey: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(privateKey, true);
}

const PUBLIC_KEY_OF: Record<Curve, (privateKey: Uint8Array) => Uint8Array> = {
  CURVE_SECP256K1: secp256k1PublicKey,
  CURVE_P256: p256PublicKey,
  CURVE_ED25519: ed25519PublicKey,
};

/*
 * Public keys already computed, found by an HMAC of curve and private key under a key drawn at start: the same wallet
 * account re-derives the same nodes for every signature, and this spares their point multiplications (the stored-key
 * check's too) after the first. Bounded (least recently used go first) and holding only public keys and keyed hashes,
 * which tell nothing about the private keys, so there is nothing to zero.
 */
const PUBLIC_KEY_MEMO_ENTRIES = 4096;
// Imported into OpenSSL once: an HMAC made from raw key bytes imports them again for every hash.
const publicKeyMemoKey = createSecretKey(randomBytes(32));
const publicKeyMemo = new Map<string, Uint8Array>();

function publicKeyOf(curve: Curve, privateKey: Uint8Array): Uint8Array {
  const id = createHmac('sha256', publicKeyMemoKey).update(curve).update(privateKey).digest('hex');
  let publicKey = publicKeyMemo.get(id);
  if (publicKey === undefined) {
    publicKey = PUBLIC_KEY_OF[curve](privateKey);
    if (publicKeyMemo.size >= PUBLIC_KEY_MEMO_ENTRIES) publicKeyMemo.delete(publicKeyMemo.keys().next().value!);
  } else {
    publicKeyMemo.delete(id);
  }
  publicKeyMemo.set(id, publicKey);
  return publicKey.slice();
}

const BITCOIN_SEED_KEY = utf8ToBytes('Bitcoin seed');
const ED25519_SEED_KEY = utf8ToBytes('ed25519 seed');
const NIST256P1_SEED_KEY = utf8ToBytes('Nist256p1 seed');

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
    return { privateKey: this.privateKey.slice(), publicKey: publicKeyOf('CURVE_ED25519', this.privateKey) };
  }

  wipe(): void {
    this.privateKey.fill(0);
    this.chainCode.fill(0);
  }
}

/** What tells BIP-32 on secp256k1 from SLIP-10 on P-256; the derivation itself is the same. */
interface EcdsaHdCurve {
  name: Curve;
  /** HMAC key of the master node. */
  seedKey: Uint8Array;
  order: bigint;
  /**
   * What to do with an invalid key (IL = 0 or ≥ n, odds about 2^-127): BIP-32 refuses the master key and moves on to
   * the next index for a child (as @scure/bip32 does); SLIP-10 re-hashes.
   */
  invalidKeyRule: 'bip32' | 'slip10';
}

const SECP256K1_HD: EcdsaHdCurve = {
  name: 'CURVE_SECP256K1',
  seedKey: BITCOIN_SEED_KEY,
  order: secp256k1.Point.Fn.ORDER,
  invalidKeyRule: 'bip32',
};

const P256_HD: EcdsaHdCurve = {
  name: 'CURVE_P256',
  seedKey: NIST256P1_SEED_KEY,
  order: p256.Point.Fn.ORDER,
  invalidKeyRule: 'slip10',
};

/** Whether `bytes` is a private key of `curve`: a scalar in [1, n-1]. */
function isValidScalar(bytes: Uint8Array, curve: EcdsaHdCurve): boolean {
  const scalar = bytesToNumberBE(bytes);
  return scalar !== 0n && scalar < curve.order;
}

/**
 * A BIP-32 (secp256k1) or SLIP-10 (P-256) node. Its public key is computed only when asked for: a hardened child
 * needs only its parent's private key, so along "m/44'/60'/0'/0/0" only the two parents of non-hardened children and
 * the leaf pay for a point multiplication (@scure/bip32 computes one, and its hash, at every level).
 */
class EcdsaNode implements HdNode {
  private publicKey: Uint8Array | undefined;

  private constructor(
    private readonly curve: EcdsaHdCurve,
    private readonly privateKey: Uint8Array,
    private readonly chainCode: Uint8Array,
  ) {}

  static fromSeed(curve: EcdsaHdCurve, seed: Uint8Array): EcdsaNode {
    let [il, ir] = hmacSplit(curve.seedKey, seed.slice());
    while (!isValidScalar(il, curve)) {
      const output = concat(il, ir);
      il.fill(0);
      ir.fill(0);
      if (curve.invalidKeyRule === 'bip32') {
        output.fill(0);
        throw new QkError('KEY_INVALID', `this seed gives an invalid ${curve.name} master key (BIP-32); use another seed`);
      }
      // SLIP-10: re-hash the whole 64-byte output with the same curve key.
      [il, ir] = hmacSplit(curve.seedKey, output);
    }
    return new EcdsaNode(curve, il, ir);
  }

  private ownPublicKey(): Uint8Array {
    this.publicKey ??= publicKeyOf(this.curve.name, this.privateKey);
    return this.publicKey;
  }

  child(index: number): HdNode {
    const { order } = this.curve;
    const parentScalar = bytesToNumberBE(this.privateKey);
    let data = index >= HARDENED_OFFSET ? concat(new Uint8Array([0]), this.privateKey, ser32(index)) : concat(this.ownPublicKey(), ser32(index));
    for (;;) {
      const [il, ir] = hmacSplit(this.chainCode, data);
      const tweak = bytesToNumberBE(il);
      il.fill(0);
      const childScalar = (tweak + parentScalar) % order;
      if (tweak < order && childScalar !== 0n) return new EcdsaNode(this.curve, numberToBytesBE(childScalar, 32), ir);
      if (this.curve.invalidKeyRule === 'bip32') {
        ir.fill(0);
        if (index === MAX_INDEX) throw new QkError('KEY_INVALID', `the ${this.curve.name} child at index ${index} is invalid and has no next index`);
        return this.child(index + 1);
      }
      // SLIP-10 retry rule for an invalid child: I = HMAC(c_par, 0x01 || IR || ser32(i)).
      data = concat(new Uint8Array([1]), ir, ser32(index));
      ir.fill(0);
    }
  }

  key(): DerivedKey {
    return { privateKey: this.privateKey.slice(), publicKey: this.ownPublicKey().slice() };
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
      return EcdsaNode.fromSeed(SECP256K1_HD, seed);
    case 'CURVE_ED25519':
      return Ed25519Node.fromSeed(seed);
    case 'CURVE_P256':
      return EcdsaNode.fromSeed(P256_HD, seed);
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
  if (curve !== 'CURVE_ED25519' && !isValidScalar(privateKey, curve === 'CURVE_SECP256K1' ? SECP256K1_HD : P256_HD)) {
    throw new QkError('KEY_INVALID', `${curve} private key is not a scalar in [1, n-1]`);
  }
  return publicKeyOf(curve, privateKey);
}
