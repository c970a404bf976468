/**
 * Addresses of wallet accounts and private keys for every Turnkey ADDRESS_FORMAT_*, computed from a public key
 * in the encoding derivation.ts returns (compressed SEC1 for secp256k1/P-256, raw 32 bytes for Ed25519).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256, sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { base32nopad, base58, base58xrp, bech32, bech32m, createBase58check } from '@scure/base';
import { NETWORK, TEST_NETWORK, p2ms, p2pkh, p2sh, p2tr, p2wpkh, p2wsh } from '@scure/btc-signer';
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { addressFormat } from '../../shared/api/enums';
import { eip55 } from '../../shared/crypto/ethereum-address';
import { QkError } from '../../shared/errors';
import { assertCurve, type Curve } from './derivation';

type BitcoinNetwork = 'MAINNET' | 'TESTNET' | 'SIGNET' | 'REGTEST';
type BitcoinScript = 'P2PKH' | 'P2SH' | 'P2WPKH' | 'P2WSH' | 'P2TR';

/** Every `v1AddressFormat`, in swagger order: the API table's enum is the one list. */
export const ADDRESS_FORMATS = addressFormat.options;
export type AddressFormat = (typeof ADDRESS_FORMATS)[number];

export function isAddressFormat(value: unknown): value is AddressFormat {
  return typeof value === 'string' && (ADDRESS_FORMATS as readonly string[]).includes(value);
}

/** A validated public key in every encoding an address format needs. */
interface PublicKeyForms {
  curve: Curve;
  /** Compressed SEC1 (33 bytes) for secp256k1/P-256; the 32-byte key for Ed25519. */
  compact: Uint8Array;
  /** Uncompressed SEC1 (65 bytes, 0x04 prefix); only for secp256k1/P-256. */
  uncompressed: Uint8Array | null;
}

interface FormatSpec {
  curves: readonly Curve[];
  encode(key: PublicKeyForms): string;
}

const ALL_CURVES: readonly Curve[] = ['CURVE_SECP256K1', 'CURVE_ED25519', 'CURVE_P256'];
const SECP256K1_ONLY: readonly Curve[] = ['CURVE_SECP256K1'];
const ED25519_ONLY: readonly Curve[] = ['CURVE_ED25519'];

const base58check = createBase58check(sha256);
const hash160 = (data: Uint8Array): Uint8Array => ripemd160(sha256(data));

function uncompressedOf(key: PublicKeyForms): Uint8Array {
  if (!key.uncompressed) throw new QkError('INTERNAL', `${key.curve} has no uncompressed point form`);
  return key.uncompressed;
}

/** The 20-byte Ethereum/Tron account: the last 20 bytes of keccak256 over the 64-byte point (no 0x04 prefix). */
function keccakAccount(key: PublicKeyForms): Uint8Array {
  return keccak_256(uncompressedOf(key).subarray(1)).subarray(12);
}

const BITCOIN_NETWORKS = {
  MAINNET: NETWORK,
  TESTNET: TEST_NETWORK,
  // Signet shares testnet's prefixes (tb, 0x6f, 0xc4).
  SIGNET: TEST_NETWORK,
  REGTEST: { ...TEST_NETWORK, bech32: 'bcrt' },
} as const;

function bitcoinAddress(network: BitcoinNetwork, script: BitcoinScript, pub: Uint8Array): string {
  const net = BITCOIN_NETWORKS[network];
  let address: string | undefined;
  switch (script) {
    case 'P2PKH':
      address = p2pkh(pub, net).address;
      break;
    case 'P2SH':
      // BIP-49 nested segwit: P2SH wrapping P2WPKH.
      address = p2sh(p2wpkh(pub, net), net).address;
      break;
    case 'P2WPKH':
      address = p2wpkh(pub, net).address;
      break;
    case 'P2WSH':
      // No public source states Turnkey's witness script; its default path for this format is BIP-48 script type 2
      // (native-segwit multisig), so the witness script is the 1-of-1 multisig `OP_1 <pub> OP_1 OP_CHECKMULTISIG`.
      address = p2wsh(p2ms(1, [pub]), net).address;
      break;
    case 'P2TR':
      // BIP-86 key-path spend: the x-only internal key tweaked with an empty script tree.
      address = p2tr(pub.subarray(1), undefined, net).address;
      break;
  }
  if (address === undefined) throw new QkError('INTERNAL', `@scure/btc-signer produced no ${network} ${script} address`);
  return address;
}

/** Base58Check with the Ripple alphabet (XRP account ids start with "r"). */
function base58checkXrp(payload: Uint8Array): string {
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  return base58xrp.encode(concatBytes(payload, checksum));
}

/** CRC-16/XMODEM (poly 0x1021, init 0), the checksum of Stellar StrKey. */
function crc16Xmodem(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** Stellar StrKey account id ("G…"): base32(version 6<<3 ‖ key ‖ CRC16-XMODEM little-endian). */
function stellarAccountId(pub: Uint8Array): string {
  const payload = concatBytes(new Uint8Array([6 << 3]), pub);
  const crc = crc16Xmodem(payload);
  return base32nopad.encode(concatBytes(payload, new Uint8Array([crc & 0xff, crc >> 8])));
}

/** Sui signature-scheme flags prefixed to the public key before hashing. */
const SUI_FLAGS: Record<Curve, number> = { CURVE_ED25519: 0x00, CURVE_SECP256K1: 0x01, CURVE_P256: 0x02 };

/**
 * Spark address: bech32m over the protobuf `SparkAddress{bytes identity_public_key = 1}` (tag 0x0a, length 0x21,
 * the 33-byte compressed key), hrp "spark" / "sparkrt". Source: buildonspark/spark,
 * sdks/js/packages/spark-sdk/src/address/address.ts (encodeSparkAddressNew, SparkAddressNetworkPrefix).
 */
function sparkAddress(hrp: 'spark' | 'sparkrt', pub: Uint8Array): string {
  const proto = concatBytes(new Uint8Array([0x0a, pub.length]), pub);
  return bech32m.encode(hrp, bech32m.toWords(proto), 200);
}

/**
 * TON wallet-contract address (workchain 0, default wallet id) in the user-friendly url-safe non-bounceable
 * mainnet form ("UQ…"), which TON's wallet guidelines (TEP-2, "addresses workflow") prescribe for wallets.
 */
function tonAddress(version: 'V3R2' | 'V4R2' | 'V5R1', pub: Uint8Array): string {
  const publicKey = Buffer.from(pub);
  const contract =
    version === 'V3R2'
      ? WalletContractV3R2.create({ workchain: 0, publicKey })
      : version === 'V4R2'
        ? WalletContractV4.create({ workchain: 0, publicKey })
        : WalletContractV5R1.create({ publicKey });
  return contract.address.toString({ urlSafe: true, bounceable: false, testOnly: false });
}

function bitcoinSpecs(): Record<`ADDRESS_FORMAT_BITCOIN_${BitcoinNetwork}_${BitcoinScript}`, FormatSpec> {
  const specs = {} as Record<`ADDRESS_FORMAT_BITCOIN_${BitcoinNetwork}_${BitcoinScript}`, FormatSpec>;
  for (const network of ['MAINNET', 'TESTNET', 'SIGNET', 'REGTEST'] as const) {
    for (const script of ['P2PKH', 'P2SH', 'P2WPKH', 'P2WSH', 'P2TR'] as const) {
      specs[`ADDRESS_FORMAT_BITCOIN_${network}_${script}`] = {
        curves: SECP256K1_ONLY,
        encode: (key) => bitcoinAddress(network, script, key.compact),
      };
    }
  }
  return specs;
}

const FORMAT_SPECS: Record<AddressFormat, FormatSpec> = {
  ADDRESS_FORMAT_UNCOMPRESSED: { curves: ['CURVE_SECP256K1', 'CURVE_P256'], encode: (key) => bytesToHex(uncompressedOf(key)) },
  ADDRESS_FORMAT_COMPRESSED: { curves: ALL_CURVES, encode: (key) => bytesToHex(key.compact) },
  ADDRESS_FORMAT_ETHEREUM: { curves: SECP256K1_ONLY, encode: (key) => eip55(bytesToHex(keccakAccount(key))) },
  ADDRESS_FORMAT_SOLANA: { curves: ED25519_ONLY, encode: (key) => base58.encode(key.compact) },
  ADDRESS_FORMAT_COSMOS: { curves: SECP256K1_ONLY, encode: (key) => bech32.encode('cosmos', bech32.toWords(hash160(key.compact))) },
  ADDRESS_FORMAT_TRON: {
    curves: SECP256K1_ONLY,
    encode: (key) => base58check.encode(concatBytes(new Uint8Array([0x41]), keccakAccount(key))),
  },
  ADDRESS_FORMAT_SUI: {
    curves: ALL_CURVES,
    encode: (key) => `0x${bytesToHex(blake2b(concatBytes(new Uint8Array([SUI_FLAGS[key.curve]]), key.compact), { dkLen: 32 }))}`,
  },
  // Aptos single-key Ed25519 authentication key: sha3-256(pub ‖ 0x00 scheme byte).
  ADDRESS_FORMAT_APTOS: { curves: ED25519_ONLY, encode: (key) => `0x${bytesToHex(sha3_256(concatBytes(key.compact, new Uint8Array([0]))))}` },
  ...bitcoinSpecs(),
  ADDRESS_FORMAT_SEI: { curves: SECP256K1_ONLY, encode: (key) => bech32.encode('sei', bech32.toWords(hash160(key.compact))) },
  ADDRESS_FORMAT_XLM: { curves: ED25519_ONLY, encode: (key) => stellarAccountId(key.compact) },
  ADDRESS_FORMAT_DOGE_MAINNET: {
    curves: SECP256K1_ONLY,
    encode: (key) => base58check.encode(concatBytes(new Uint8Array([0x1e]), hash160(key.compact))),
  },
  ADDRESS_FORMAT_DOGE_TESTNET: {
    curves: SECP256K1_ONLY,
    encode: (key) => base58check.encode(concatBytes(new Uint8Array([0x71]), hash160(key.compact))),
  },
  ADDRESS_FORMAT_TON_V3R2: { curves: ED25519_ONLY, encode: (key) => tonAddress('V3R2', key.compact) },
  ADDRESS_FORMAT_TON_V4R2: { curves: ED25519_ONLY, encode: (key) => tonAddress('V4R2', key.compact) },
  ADDRESS_FORMAT_TON_V5R1: { curves: ED25519_ONLY, encode: (key) => tonAddress('V5R1', key.compact) },
  // Classic XRP account: base58check(0x00 ‖ RIPEMD160(SHA256(compressed pub))) in the Ripple alphabet.
  ADDRESS_FORMAT_XRP: {
    curves: SECP256K1_ONLY,
    encode: (key) => base58checkXrp(concatBytes(new Uint8Array([0x00]), hash160(key.compact))),
  },
  ADDRESS_FORMAT_SPARK_MAINNET: { curves: SECP256K1_ONLY, encode: (key) => sparkAddress('spark', key.compact) },
  ADDRESS_FORMAT_SPARK_REGTEST: { curves: SECP256K1_ONLY, encode: (key) => sparkAddress('sparkrt', key.compact) },
};

/** The address formats a key on `curve` can have. */
export function validFormatsFor(curve: Curve): AddressFormat[] {
  assertCurve(curve);
  return ADDRESS_FORMATS.filter((format) => FORMAT_SPECS[format].curves.includes(curve));
}

export function isValidFormatFor(curve: Curve, format: AddressFormat): boolean {
  return isAddressFormat(format) && FORMAT_SPECS[format].curves.includes(curve);
}

/** Throws ADDRESS_FORMAT_INVALID unless `format` is a known format valid for `curve`. */
export function assertFormatForCurve(curve: Curve, format: unknown): asserts format is AddressFormat {
  assertCurve(curve);
  if (!isAddressFormat(format)) {
    throw new QkError('ADDRESS_FORMAT_INVALID', `addressFormat ${JSON.stringify(format)} is not a known ADDRESS_FORMAT_* value`, {
      addressFormat: format,
    });
  }
  const spec = FORMAT_SPECS[format];
  if (!spec.curves.includes(curve)) {
    throw new QkError('ADDRESS_FORMAT_INVALID', `addressFormat ${format} is not valid for ${curve}; it needs ${spec.curves.join(' or ')}`, {
      addressFormat: format,
      curve,
      validCurves: spec.curves,
    });
  }
}

function publicKeyForms(curve: Curve, publicKey: Uint8Array): PublicKeyForms {
  if (!(publicKey instanceof Uint8Array)) {
    throw new QkError('KEY_INVALID', `${curve} public key must be bytes`);
  }
  try {
    if (curve === 'CURVE_ED25519') {
      if (publicKey.length !== 32) throw new Error(`expected 32 bytes, got ${publicKey.length}`);
      ed25519.Point.fromBytes(publicKey);
      return { curve, compact: publicKey, uncompressed: null };
    }
    const point = (curve === 'CURVE_SECP256K1' ? secp256k1 : p256).Point.fromBytes(publicKey);
    return { curve, compact: point.toBytes(true), uncompressed: point.toBytes(false) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new QkError('KEY_INVALID', `${curve} public key is not a valid point encoding: ${reason}`, { length: publicKey.length });
  }
}

/** The address of `publicKey` (compressed or uncompressed SEC1, or 32-byte Ed25519) in `format`. */
export function addressFor({ curve, publicKey, format }: { curve: Curve; publicKey: Uint8Array; format: AddressFormat }): string {
  assertFormatForCurve(curve, format);
  return FORMAT_SPECS[format].encode(publicKeyForms(curve, publicKey));
}

export interface DefaultAccount {
  curve: Curve;
  /** The first account's path; Turnkey's SDK increments the account segment (the third) for further accounts. */
  path: string;
}

/**
 * Default curve and derivation path per format, as Turnkey's SDK presets them (@turnkey/sdk-server
 * `DEFAULT_*_ACCOUNTS` in turnkey-helpers). Formats Turnkey gives no default (UNCOMPRESSED, COMPRESSED, TON_V5R1)
 * are absent.
 */
export const DEFAULT_ACCOUNTS: Partial<Record<AddressFormat, DefaultAccount>> = {
  ADDRESS_FORMAT_ETHEREUM: { curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" },
  ADDRESS_FORMAT_COSMOS: { curve: 'CURVE_SECP256K1', path: "m/44'/118'/0'/0/0" },
  ADDRESS_FORMAT_TRON: { curve: 'CURVE_SECP256K1', path: "m/44'/195'/0'" },
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH: { curve: 'CURVE_SECP256K1', path: "m/44'/0'/0'/0/0" },
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH: { curve: 'CURVE_SECP256K1', path: "m/44'/0'/0'/0/0" },
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH: { curve: 'CURVE_SECP256K1', path: "m/84'/0'/0'/0/0" },
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH: { curve: 'CURVE_SECP256K1', path: "m/48'/0'/0'/2'/0/0" },
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR: { curve: 'CURVE_SECP256K1', path: "m/86'/0'/0'/0/0" },
  ...Object.fromEntries(
    (['TESTNET', 'SIGNET', 'REGTEST'] as const).flatMap((network) => [
      [`ADDRESS_FORMAT_BITCOIN_${network}_P2PKH`, { curve: 'CURVE_SECP256K1', path: "m/44'/1'/0'/0/0" }],
      [`ADDRESS_FORMAT_BITCOIN_${network}_P2SH`, { curve: 'CURVE_SECP256K1', path: "m/44'/1'/0'/0/0" }],
      [`ADDRESS_FORMAT_BITCOIN_${network}_P2WPKH`, { curve: 'CURVE_SECP256K1', path: "m/84'/1'/0'/0/0" }],
      [`ADDRESS_FORMAT_BITCOIN_${network}_P2WSH`, { curve: 'CURVE_SECP256K1', path: "m/48'/1'/0'/2'/0/0" }],
      [`ADDRESS_FORMAT_BITCOIN_${network}_P2TR`, { curve: 'CURVE_SECP256K1', path: "m/86'/1'/0'/0/0" }],
    ]),
  ),
  ADDRESS_FORMAT_DOGE_MAINNET: { curve: 'CURVE_SECP256K1', path: "m/44'/3'/0'/0/0" },
  ADDRESS_FORMAT_DOGE_TESTNET: { curve: 'CURVE_SECP256K1', path: "m/44'/3'/0'/0/0" },
  ADDRESS_FORMAT_SEI: { curve: 'CURVE_SECP256K1', path: "m/44'/118'/0'/0'/0'" },
  ADDRESS_FORMAT_XRP: { curve: 'CURVE_SECP256K1', path: "m/44'/144'/0'/0'/0'" },
  ADDRESS_FORMAT_SOLANA: { curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" },
  ADDRESS_FORMAT_SUI: { curve: 'CURVE_ED25519', path: "m/44'/784'/0'/0'/0'" },
  ADDRESS_FORMAT_APTOS: { curve: 'CURVE_ED25519', path: "m/44'/637'/0'/0'/0'" },
  ADDRESS_FORMAT_XLM: { curve: 'CURVE_ED25519', path: "m/44'/148'/0'" },
  ADDRESS_FORMAT_TON_V3R2: { curve: 'CURVE_ED25519', path: "m/44'/607'/0'/0'/0'" },
  ADDRESS_FORMAT_TON_V4R2: { curve: 'CURVE_ED25519', path: "m/44'/607'/0'/0'/0'" },
  ADDRESS_FORMAT_SPARK_MAINNET: { curve: 'CURVE_SECP256K1', path: "m/86'/0'/0'/0/0" },
  ADDRESS_FORMAT_SPARK_REGTEST: { curve: 'CURVE_SECP256K1', path: "m/86'/1'/0'/0/0" },
};
