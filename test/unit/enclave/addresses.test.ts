import { describe, expect, it } from 'vitest';
import { hexToBytes } from '@noble/hashes/utils.js';
import { bech32m } from '@scure/base';
import {
  ADDRESS_FORMATS,
  DEFAULT_ACCOUNTS,
  addressFor,
  isValidFormatFor,
  validFormatsFor,
  type AddressFormat,
} from '../../../src/service/enclave/addresses.js';
import { CURVES, createKeyDeriver, publicKeyFromPrivate, type Curve } from '../../../src/service/enclave/derivation.js';
import { mnemonicToSeed } from '../../../src/service/enclave/mnemonic.js';
import { thrown } from '../../support/assertions';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

async function addressOf(mnemonic: string, curve: Curve, path: string, format: AddressFormat): Promise<string> {
  const deriver = createKeyDeriver({ seed: await mnemonicToSeed(mnemonic), curve });
  try {
    return addressFor({ curve, publicKey: deriver.derive(path).publicKey, format });
  } finally {
    deriver.wipe();
  }
}

describe('addresses from "abandon … about" against published vectors', () => {
  it.each([
    // BIP-84 test vector (bitcoin/bips bip-0084.mediawiki), first receiving address.
    ["m/84'/0'/0'/0/0", 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'],
    // BIP-86 test vector (bip-0086.mediawiki), first receiving address.
    ["m/86'/0'/0'/0/0", 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR', 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr'],
    // BIP-49 test vector (bip-0049.mediawiki) is on testnet, coin type 1.
    ["m/49'/1'/0'/0/0", 'ADDRESS_FORMAT_BITCOIN_TESTNET_P2SH', '2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2'],
    // BIP-44 legacy first address, as listed by Ian Coleman's BIP-39 tool and Electrum for this mnemonic.
    ["m/44'/0'/0'/0/0", 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH', '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA'],
    // Well-known first Ethereum account of this mnemonic (MetaMask, ethers' HDNodeWallet tests).
    ["m/44'/60'/0'/0/0", 'ADDRESS_FORMAT_ETHEREUM', '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'],
    // Cosmos SDK / Keplr first account for this mnemonic (cosmjs Secp256k1HdWallet tests).
    ["m/44'/118'/0'/0/0", 'ADDRESS_FORMAT_COSMOS', 'cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4'],
    // TronWeb / Trust Wallet Core test for this mnemonic.
    ["m/44'/195'/0'/0/0", 'ADDRESS_FORMAT_TRON', 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'],
    // Trust Wallet Core HDWallet test (XRP) for this mnemonic.
    ["m/44'/144'/0'/0/0", 'ADDRESS_FORMAT_XRP', 'rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3'],
    // Trust Wallet Core HDWallet test (Dogecoin) for this mnemonic.
    ["m/44'/3'/0'/0/0", 'ADDRESS_FORMAT_DOGE_MAINNET', 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC'],
  ] as const)('%s %s', async (path, format, expected) => {
    expect(await addressOf(ABANDON, 'CURVE_SECP256K1', path, format)).toBe(expected);
  });

  it("Solana m/44'/501'/0'/0' (Phantom / solana-keygen \"abandon … about\")", async () => {
    expect(await addressOf(ABANDON, 'CURVE_ED25519', "m/44'/501'/0'/0'", 'ADDRESS_FORMAT_SOLANA')).toBe(
      'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
    );
  });
});

describe("addresses against chain libraries' own vectors", () => {
  it('Ethereum: Hardhat\'s default account 0 of "test … junk"', async () => {
    expect(
      await addressOf(
        'test test test test test test test test test test test junk',
        'CURVE_SECP256K1',
        "m/44'/60'/0'/0/0",
        'ADDRESS_FORMAT_ETHEREUM',
      ),
    ).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it('Stellar: SEP-0005 test vector 1, account 0', async () => {
    expect(
      await addressOf(
        'illness spike retreat truth genius clock brain pass fit cave bargain toe',
        'CURVE_ED25519',
        "m/44'/148'/0'",
        'ADDRESS_FORMAT_XLM',
      ),
    ).toBe('GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6');
  });

  it('Sui: @mysten/sui Ed25519Keypair deriveKeypair test case', async () => {
    const mnemonic =
      'film crazy soon outside stand loop subway crumble thrive popular green nuclear struggle pistol arm wife phrase warfare march wheat nephew ask sunny firm';
    expect(await addressOf(mnemonic, 'CURVE_ED25519', "m/44'/784'/0'/0'/0'", 'ADDRESS_FORMAT_SUI')).toBe(
      '0xa2d14fad60c56049ecf75246a481934691214ce413e6a8ae2fe6834c173a6133',
    );
  });

  it('Aptos: aptos-labs ts-sdk Ed25519 derivation test wallet', async () => {
    const mnemonic = 'shoot island position soft burden budget tooth cruel issue economy destroy above';
    expect(await addressOf(mnemonic, 'CURVE_ED25519', "m/44'/637'/0'/0'/0'", 'ADDRESS_FORMAT_APTOS')).toBe(
      '0x07968dab936c1bad187c60ce4082f307d030d780e91e694ae03aef16aba73f30',
    );
  });

  it('TON V4R2: okx/go-wallet-sdk coins/ton/ton/wallet/address_test.go (from tonutils-go)', () => {
    const publicKey = hexToBytes('dcc39550bb494f4b493e7efe1aa18ea31470f33a2553c568cb74a17ed56790c1');
    expect(addressFor({ curve: 'CURVE_ED25519', publicKey, format: 'ADDRESS_FORMAT_TON_V4R2' })).toBe(
      'UQAwwdowWbBKkrnRlbY8CUEzy_pgK9pIvOKP2eqcD01EWl2U',
    );
  });

  it('TON V5R1: trustwallet/wallet-core tw_ton test_ton_v5r1_address_derive', () => {
    const publicKey = publicKeyFromPrivate('CURVE_ED25519', hexToBytes('3570e35f54cfb843f2cfaf2b8cae7ceeb7b32225d7dbbd86f611056d74d9073e'));
    expect(addressFor({ curve: 'CURVE_ED25519', publicKey, format: 'ADDRESS_FORMAT_TON_V5R1' })).toBe(
      'UQAU3o5-Sp1MYRpw3U7b_wmARxqI49LxiFhEoVCxpUKjTYXk',
    );
  });

  it('TON V3R2: a different contract (and address) than V4R2 and V5R1 for the same key', () => {
    const publicKey = hexToBytes('dcc39550bb494f4b493e7efe1aa18ea31470f33a2553c568cb74a17ed56790c1');
    const v3 = addressFor({ curve: 'CURVE_ED25519', publicKey, format: 'ADDRESS_FORMAT_TON_V3R2' });
    expect(v3).toMatch(/^UQ[A-Za-z0-9_-]{46}$/);
    expect(v3).not.toBe('UQAwwdowWbBKkrnRlbY8CUEzy_pgK9pIvOKP2eqcD01EWl2U');
  });

  it('Spark: bech32m of the SparkAddress protobuf (buildonspark spark-sdk address.ts), "spark"/"sparkrt"', async () => {
    const deriver = createKeyDeriver({ seed: await mnemonicToSeed(ABANDON), curve: 'CURVE_SECP256K1' });
    const { publicKey } = deriver.derive("m/86'/0'/0'/0/0");
    deriver.wipe();
    for (const [format, hrp] of [
      ['ADDRESS_FORMAT_SPARK_MAINNET', 'spark'],
      ['ADDRESS_FORMAT_SPARK_REGTEST', 'sparkrt'],
    ] as const) {
      const address = addressFor({ curve: 'CURVE_SECP256K1', publicKey, format });
      // The SDK's own tests expect regtest addresses to start "sparkrt1p" (tag byte 0x0a → first word "p").
      expect(address.startsWith(`${hrp}1p`)).toBe(true);
      const decoded = bech32m.decode(address as `${string}1${string}`, 200);
      expect(decoded.prefix).toBe(hrp);
      expect(Array.from(bech32m.fromWords(decoded.words))).toEqual([0x0a, 0x21, ...publicKey]);
    }
  });
});

describe('Bitcoin networks and script types', () => {
  it("uses each network's prefixes for every script type", async () => {
    const prefixes: Record<string, Record<string, RegExp>> = {
      MAINNET: { P2PKH: /^1/, P2SH: /^3/, P2WPKH: /^bc1q.{38}$/, P2WSH: /^bc1q.{58}$/, P2TR: /^bc1p/ },
      TESTNET: { P2PKH: /^[mn]/, P2SH: /^2/, P2WPKH: /^tb1q.{38}$/, P2WSH: /^tb1q.{58}$/, P2TR: /^tb1p/ },
      SIGNET: { P2PKH: /^[mn]/, P2SH: /^2/, P2WPKH: /^tb1q.{38}$/, P2WSH: /^tb1q.{58}$/, P2TR: /^tb1p/ },
      REGTEST: { P2PKH: /^[mn]/, P2SH: /^2/, P2WPKH: /^bcrt1q.{38}$/, P2WSH: /^bcrt1q.{58}$/, P2TR: /^bcrt1p/ },
    };
    const deriver = createKeyDeriver({ seed: await mnemonicToSeed(ABANDON), curve: 'CURVE_SECP256K1' });
    const { publicKey } = deriver.derive("m/84'/0'/0'/0/0");
    deriver.wipe();
    for (const [network, scripts] of Object.entries(prefixes)) {
      for (const [script, pattern] of Object.entries(scripts)) {
        const format = `ADDRESS_FORMAT_BITCOIN_${network}_${script}` as AddressFormat;
        expect(addressFor({ curve: 'CURVE_SECP256K1', publicKey, format }), format).toMatch(pattern);
      }
    }
  });

  it('P2WSH is the witness-script hash of the 1-of-1 multisig OP_1 <pub> OP_1 OP_CHECKMULTISIG', async () => {
    const { sha256 } = await import('@noble/hashes/sha2.js');
    const { bech32 } = await import('@scure/base');
    const publicKey = publicKeyFromPrivate('CURVE_SECP256K1', hexToBytes('11'.repeat(32)));
    const script = Uint8Array.from([0x51, 0x21, ...publicKey, 0x51, 0xae]);
    const expected = bech32.encode('bc', [0, ...bech32.toWords(sha256(script))]);
    expect(addressFor({ curve: 'CURVE_SECP256K1', publicKey, format: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH' })).toBe(expected);
  });
});

describe('determinism and key encodings', () => {
  it('gives the same address for the same mnemonic and path', async () => {
    const first = await addressOf(ABANDON, 'CURVE_ED25519', "m/44'/501'/7'/0'", 'ADDRESS_FORMAT_SOLANA');
    expect(await addressOf(ABANDON, 'CURVE_ED25519', "m/44'/501'/7'/0'", 'ADDRESS_FORMAT_SOLANA')).toBe(first);
    expect(await addressOf(ABANDON, 'CURVE_ED25519', "m/44'/501'/8'/0'", 'ADDRESS_FORMAT_SOLANA')).not.toBe(first);
  });

  it('accepts compressed or uncompressed SEC1 keys alike, and emits both forms', () => {
    const compressed = publicKeyFromPrivate('CURVE_P256', hexToBytes('22'.repeat(32)));
    const uncompressed = addressFor({ curve: 'CURVE_P256', publicKey: compressed, format: 'ADDRESS_FORMAT_UNCOMPRESSED' });
    expect(uncompressed).toMatch(/^04[0-9a-f]{128}$/);
    expect(addressFor({ curve: 'CURVE_P256', publicKey: hexToBytes(uncompressed), format: 'ADDRESS_FORMAT_COMPRESSED' })).toBe(
      Buffer.from(compressed).toString('hex'),
    );
  });

  it('uses the Sui scheme flag of each curve', () => {
    const keys = CURVES.map((curve) =>
      addressFor({ curve, publicKey: publicKeyFromPrivate(curve, hexToBytes('33'.repeat(32))), format: 'ADDRESS_FORMAT_SUI' }),
    );
    for (const key of keys) expect(key).toMatch(/^0x[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(3);
  });

  it('refuses a public key that is not a point on the curve', () => {
    // x = 2^256 - 1 exceeds the field prime, so no point has it.
    expect(() =>
      addressFor({
        curve: 'CURVE_SECP256K1',
        publicKey: Uint8Array.from([0x02, ...new Uint8Array(32).fill(0xff)]),
        format: 'ADDRESS_FORMAT_ETHEREUM',
      }),
    ).toThrow(expect.objectContaining({ code: 'KEY_INVALID' }));
    expect(() => addressFor({ curve: 'CURVE_ED25519', publicKey: new Uint8Array(33), format: 'ADDRESS_FORMAT_SOLANA' })).toThrow(
      expect.objectContaining({ code: 'KEY_INVALID' }),
    );
  });
});

describe('curve/format validity', () => {
  const sampleKeys: Record<Curve, Uint8Array> = {
    CURVE_SECP256K1: publicKeyFromPrivate('CURVE_SECP256K1', hexToBytes('44'.repeat(32))),
    CURVE_ED25519: publicKeyFromPrivate('CURVE_ED25519', hexToBytes('44'.repeat(32))),
    CURVE_P256: publicKeyFromPrivate('CURVE_P256', hexToBytes('44'.repeat(32))),
  };

  it('lists the expected formats per curve', () => {
    expect(validFormatsFor('CURVE_ED25519')).toEqual([
      'ADDRESS_FORMAT_COMPRESSED',
      'ADDRESS_FORMAT_SOLANA',
      'ADDRESS_FORMAT_SUI',
      'ADDRESS_FORMAT_APTOS',
      'ADDRESS_FORMAT_XLM',
      'ADDRESS_FORMAT_TON_V3R2',
      'ADDRESS_FORMAT_TON_V4R2',
      'ADDRESS_FORMAT_TON_V5R1',
    ]);
    expect(validFormatsFor('CURVE_P256')).toEqual(['ADDRESS_FORMAT_UNCOMPRESSED', 'ADDRESS_FORMAT_COMPRESSED', 'ADDRESS_FORMAT_SUI']);
    expect(validFormatsFor('CURVE_SECP256K1')).toHaveLength(ADDRESS_FORMATS.length - 6);
  });

  it('has 38 formats, twenty of them Bitcoin', () => {
    expect(ADDRESS_FORMATS).toHaveLength(38);
    expect(ADDRESS_FORMATS.filter((format) => format.startsWith('ADDRESS_FORMAT_BITCOIN_'))).toHaveLength(20);
  });

  for (const curve of CURVES) {
    it(`${curve}: encodes every valid format and refuses every other with ADDRESS_FORMAT_INVALID`, () => {
      for (const format of ADDRESS_FORMATS) {
        const run = () => addressFor({ curve, publicKey: sampleKeys[curve], format });
        if (isValidFormatFor(curve, format)) {
          expect(run(), format).toMatch(/\S{20,}/);
        } else {
          const error = thrown(run);
          expect(error.code, format).toBe('ADDRESS_FORMAT_INVALID');
          expect(error.message).toContain(curve);
        }
      }
    });
  }

  it('refuses an unknown format name', () => {
    expect(() =>
      addressFor({ curve: 'CURVE_SECP256K1', publicKey: sampleKeys.CURVE_SECP256K1, format: 'ADDRESS_FORMAT_DOGE' as AddressFormat }),
    ).toThrow(expect.objectContaining({ code: 'ADDRESS_FORMAT_INVALID' }));
  });

  it('gives every default account a curve the format accepts', () => {
    for (const [format, account] of Object.entries(DEFAULT_ACCOUNTS)) {
      expect(isValidFormatFor(account.curve, format as AddressFormat), format).toBe(true);
    }
    expect(DEFAULT_ACCOUNTS.ADDRESS_FORMAT_ETHEREUM).toEqual({ curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" });
  });
});
