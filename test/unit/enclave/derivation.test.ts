import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { createKeyDeriver, deriveKey, parsePath, publicKeyFromPrivate, type Curve } from '../../../src/service/enclave/derivation.js';
import { QkError } from '../../../src/shared/errors.js';
import { thrown, thrownCode } from '../../support/assertions';
import { BIP39_TREZOR_VECTORS } from './fixtures/bip39-trezor-vectors';

type Vector = [path: string, privateKey: string, publicKey: string];

function expectVectors(curve: Curve, seedHex: string, vectors: Vector[]): void {
  const seed = hexToBytes(seedHex);
  for (const [path, privateKey, publicKey] of vectors) {
    const key = deriveKey({ seed, curve, path });
    expect({ path, privateKey: bytesToHex(key.privateKey), publicKey: bytesToHex(key.publicKey) }).toEqual({ path, privateKey, publicKey });
  }
}

const SEED_1 = '000102030405060708090a0b0c0d0e0f';
const SEED_2 = 'fffcf9f6f3f0edeae7e4e1dedbd8d5d2cfccc9c6c3c0bdbab7b4b1aeaba8a5a29f9c999693908d8a8784817e7b7875726f6c696663605d5a5754514e4b484542';

describe('BIP-32 (CURVE_SECP256K1)', () => {
  // BIP-32 test vector 1 (bitcoin/bips bip-0032.mediawiki), private keys and compressed public keys.
  it('matches test vector 1', () => {
    expectVectors('CURVE_SECP256K1', SEED_1, [
      ['m', 'e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35', '0339a36013301597daef41fbe593a02cc513d0b55527ec2df1050e2e8ff49c85c2'],
      [
        "m/0'",
        'edb2e14f9ee77d26dd93b4ecede8d16ed408ce149b6cd80b0715a2d911a0afea',
        '035a784662a4a20a65bf6aab9ae98a6c068a81c52e4b032c0fb5400c706cfccc56',
      ],
      [
        "m/0'/1",
        '3c6cb8d0f6a264c91ea8b5030fadaa8e538b020f0a387421a12de9319dc93368',
        '03501e454bf00751f24b1b489aa925215d66af2234e3891c3b21a52bedb3cd711c',
      ],
      [
        'm/0h/1/2h',
        'cbce0d719ecf7431d88e6a89fa1483e02e35092af60c042b1df2ff59fa424dca',
        '0357bfe1e341d01c69fe5654309956cbea516822fba8a601743a012a7896ee8dc2',
      ],
      [
        "m/0'/1/2'/2",
        '0f479245fb19a38a1954c5c7c0ebab2f9bdfd96a17563ef28a6a4b1a2a764ef4',
        '02e8445082a72f29b75ca48748a914df60622a609cacfce8ed0e35804560741d29',
      ],
      [
        "m/0'/1/2'/2/1000000000",
        '471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8',
        '022a471424da5e657499d1ff51cb43c47481a03b1e77f951fe64cec9f5a48f7011',
      ],
    ]);
  });

  it('matches test vector 2', () => {
    expectVectors('CURVE_SECP256K1', SEED_2, [
      ['m', '4b03d6fc340455b363f51020ad3ecca4f0850280cf436c70c727923f6db46c3e', '03cbcaa9c98c877a26977d00825c956a238e8dddfbd322cce4f74b0b5bd6ace4a7'],
      [
        'm/0',
        'abe74a98f6c7eabee0428f53798f0ab8aa1bd37873999041703c742f15ac7e1e',
        '02fc9e5af0ac8d9b3cecfe2a888e2117ba3d089d8585886c9c826b6b22a98d12ea',
      ],
      [
        "m/0/2147483647'",
        '877c779ad9687164e9c2f4f0f4ff0340814392330693ce95a58fe18fd52e6e93',
        '03c01e7425647bdefa82b12d9bad5e3e6865bee0502694b94ca58b666abc0a5c3b',
      ],
      [
        "m/0/2147483647'/1",
        '704addf544a06e5ee4bea37098463c23613da32020d604506da8c0518e1da4b7',
        '03a7d1d856deb74c508e05031f9895dab54626251b3806e16b4bd12e781a7df5b9',
      ],
      [
        "m/0/2147483647'/1/2147483646'",
        'f1c7c871a54a804afe328b4c83a1c33b8e5ff48f5087273f04efa83b247d6a2d',
        '02d2b36900396c9282fa14628566582f206a5dd0bcc8d5e892611806cafb0301f0',
      ],
      [
        "m/0/2147483647'/1/2147483646'/2",
        'bb7d39bdb83ecf58f2fd82b6d918341cbef428661ef01ab97c28a4842125ac23',
        '024d902e1a2fc7a8755ab5b694c575fce742c48d9ff192e63df5193e4c7afe1f9c',
      ],
    ]);
  });

  // Derivation computes public keys only where BIP-32 needs them; @scure/bip32 computes every one and is the reference.
  it("agrees with @scure/bip32 on the BIP-39 vectors' seeds, hardened and non-hardened levels mixed", () => {
    const paths = ["m/44'/60'/0'/0/0", "m/44'/0'/0'/1/7", "m/84'/0'/3'", 'm/0/1/2', "m/0/2147483647'/5", "m/49'/1'/0'/0/19"];
    for (const { seed } of BIP39_TREZOR_VECTORS) {
      const root = HDKey.fromMasterSeed(hexToBytes(seed));
      const deriver = createKeyDeriver({ seed: hexToBytes(seed), curve: 'CURVE_SECP256K1' });
      for (const path of paths) {
        const reference = root.derive(path);
        const key = deriver.derive(path);
        expect({ path, privateKey: bytesToHex(key.privateKey), publicKey: bytesToHex(key.publicKey) }).toEqual({
          path,
          privateKey: bytesToHex(reference.privateKey!),
          publicKey: bytesToHex(reference.publicKey!),
        });
      }
      deriver.wipe();
    }
  });
});

describe('SLIP-10 CURVE_ED25519', () => {
  // SLIP-0010 test vector 1 for ed25519 (satoshilabs/slips slip-0010.md); SLIP-10 writes public keys as 0x00 ‖ key.
  it('matches test vector 1', () => {
    expectVectors('CURVE_ED25519', SEED_1, [
      ['m', '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7', 'a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed'],
      [
        "m/0'",
        '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3',
        '8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c',
      ],
      [
        "m/0'/1'",
        'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2',
        '1932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187',
      ],
      [
        "m/0'/1'/2'",
        '92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9',
        'ae98736566d30ed0e9d2f4486a64bc95740d89c7db33f52121f8ea8f76ff0fc1',
      ],
      [
        "m/0'/1'/2'/2'",
        '30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662',
        '8abae2d66361c879b900d204ad2cc4984fa2aa344dd7ddc46007329ac76c429c',
      ],
      [
        "m/0'/1'/2'/2'/1000000000'",
        '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793',
        '3c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a',
      ],
    ]);
  });

  it('matches test vector 2', () => {
    expectVectors('CURVE_ED25519', SEED_2, [
      [
        "m/0'/2147483647'/1'/2147483646'",
        '5837736c89570de861ebc173b1086da4f505d4adb387c6a1b1342d5e4ac9ec72',
        'e33c0f7d81d843c572275f287498e8d408654fdf0d1e065b84e2e6f157aab09b',
      ],
      [
        "m/0'/2147483647'/1'/2147483646'/2'",
        '551d333177df541ad876a60ea71f00447931c0a9da16f227c11ea080d7391b8d',
        '47150c75db263559a70d5778bf36abbab30fb061ad69f69ece61a72b0cfa4fc0',
      ],
    ]);
  });

  it('refuses a non-hardened segment with PATH_INVALID and its position', () => {
    const seed = hexToBytes(SEED_1);
    const error = thrown(() => deriveKey({ seed, curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0" }));
    expect(error.code).toBe('PATH_INVALID');
    expect(error.details).toMatchObject({ position: 14, segment: '0' });
  });
});

describe('SLIP-10 CURVE_P256 (nist256p1)', () => {
  it('matches test vector 1', () => {
    expectVectors('CURVE_P256', SEED_1, [
      ['m', '612091aaa12e22dd2abef664f8a01a82cae99ad7441b7ef8110424915c268bc2', '0266874dc6ade47b3ecd096745ca09bcd29638dd52c2c12117b11ed3e458cfa9e8'],
      [
        "m/0'",
        '6939694369114c67917a182c59ddb8cafc3004e63ca5d3b84403ba8613debc0c',
        '0384610f5ecffe8fda089363a41f56a5c7ffc1d81b59a612d0d649b2d22355590c',
      ],
      [
        "m/0'/1",
        '284e9d38d07d21e4e281b645089a94f4cf5a5a81369acf151a1c3a57f18b2129',
        '03526c63f8d0b4bbbf9c80df553fe66742df4676b241dabefdef67733e070f6844',
      ],
      [
        "m/0'/1/2'",
        '694596e8a54f252c960eb771a3c41e7e32496d03b954aeb90f61635b8e092aa7',
        '0359cf160040778a4b14c5f4d7b76e327ccc8c4a6086dd9451b7482b5a4972dda0',
      ],
      [
        "m/0'/1/2'/2",
        '5996c37fd3dd2679039b23ed6f70b506c6b56b3cb5e424681fb0fa64caf82aaa',
        '029f871f4cb9e1c97f9f4de9ccd0d4a2f2a171110c61178f84430062230833ff20',
      ],
      [
        "m/0'/1/2'/2/1000000000",
        '21c4f269ef0a5fd1badf47eeacebeeaa3de22eb8e5b0adcd0f27dd99d34d0119',
        '02216cd26d31147f72427a453c443ed2cde8a1e53c9cc44e5ddf739725413fe3f4',
      ],
    ]);
  });

  it('applies the retry rule for an invalid child key ("derivation retry for nist256p1")', () => {
    expectVectors('CURVE_P256', SEED_1, [
      [
        "m/28578'",
        '06f0db126f023755d0b8d86d4591718a5210dd8d024e3e14b6159d63f53aa669',
        '02519b5554a4872e8c9c1c847115363051ec43e93400e030ba3c36b52a3e70a5b7',
      ],
      [
        "m/28578'/33941",
        '092154eed4af83e078ff9b84322015aefe5769e31270f62c3f66c33888335f3a',
        '0235bfee614c0d5b2cae260000bb1d0d84b270099ad790022c1ae0b2e782efe120',
      ],
    ]);
  });

  it('applies the retry rule for an invalid master key ("seed retry for nist256p1")', () => {
    expectVectors('CURVE_P256', 'a7305bc8df8d0951f0cb224c0e95d7707cbdf2c6ce7e8d481fec69c7ff5e9446', [
      ['m', '3b8c18469a4634517d6d0b65448f8e6c62091b45540a1743c5846be55d47d88f', '0383619fadcde31063d8c5cb00dbfe1713f3e6fa169d8541a798752a1c1ca0cb20'],
    ]);
  });
});

describe('parsePath', () => {
  it("reads hardened segments written with ' or h", () => {
    expect(parsePath("m/44'/60h/0'/0/7")).toEqual([0x8000002c, 0x8000003c, 0x80000000, 0, 7]);
    expect(parsePath('m')).toEqual([]);
  });

  it.each([
    ['', 0],
    ['44/0', 0],
    ["M/44'", 0],
    ["m/44'/", 6],
    ['m//0', 2],
    ['m/01', 2],
    ['m/2147483648', 2],
    ["m/0'/x", 5],
    ['m/0H', 2],
    ['m/-1', 2],
    ["m/0''", 2],
  ])('refuses %j with PATH_INVALID at position %i', (path, position) => {
    let caught: unknown;
    try {
      parsePath(path);
    } catch (error) {
      caught = error;
    }
    expect((caught as QkError).code).toBe('PATH_INVALID');
    expect((caught as QkError).details).toMatchObject({ position });
  });

  it('refuses paths deeper than 255 levels', () => {
    expect(thrownCode(() => parsePath(`m${'/0'.repeat(256)}`))).toBe('PATH_INVALID');
  });
});

describe('createKeyDeriver', () => {
  it('gives the same keys as one-shot derivation, for siblings served from the cached parent', () => {
    const seed = hexToBytes(SEED_2);
    for (const curve of ['CURVE_SECP256K1', 'CURVE_P256'] as const) {
      const deriver = createKeyDeriver({ seed, curve });
      for (let i = 0; i < 3; i++) {
        const path = `m/44'/60'/0'/0/${i}`;
        expect(bytesToHex(deriver.derive(path).privateKey)).toBe(bytesToHex(deriveKey({ seed, curve, path }).privateKey));
      }
      deriver.wipe();
      expect(thrownCode(() => deriver.derive("m/44'"))).toBe('INTERNAL');
    }
  });

  it('refuses seeds outside 16..64 bytes and unknown curves', () => {
    expect(thrownCode(() => deriveKey({ seed: new Uint8Array(15), curve: 'CURVE_SECP256K1', path: 'm' }))).toBe('KEY_INVALID');
    expect(thrownCode(() => deriveKey({ seed: new Uint8Array(65), curve: 'CURVE_ED25519', path: 'm' }))).toBe('KEY_INVALID');
    expect(thrownCode(() => deriveKey({ seed: new Uint8Array(32), curve: 'CURVE_X' as Curve, path: 'm' }))).toBe('CURVE_UNSUPPORTED');
  });
});

describe('publicKeyFromPrivate', () => {
  it('matches the derived public key on every curve', () => {
    const seed = hexToBytes(SEED_1);
    for (const curve of ['CURVE_SECP256K1', 'CURVE_ED25519', 'CURVE_P256'] as const) {
      const key = deriveKey({ seed, curve, path: "m/0'" });
      expect(bytesToHex(publicKeyFromPrivate(curve, key.privateKey))).toBe(bytesToHex(key.publicKey));
    }
  });

  // P-256 and Ed25519 public keys come from OpenSSL, secp256k1's from noble with wider tables; noble's default is the reference.
  it('agrees with noble on random keys of every curve', () => {
    for (let i = 0; i < 20; i++) {
      const secp = secp256k1.utils.randomSecretKey();
      const nist = p256.utils.randomSecretKey();
      const edwards = ed25519.utils.randomSecretKey();
      expect(bytesToHex(publicKeyFromPrivate('CURVE_SECP256K1', secp))).toBe(bytesToHex(secp256k1.getPublicKey(secp, true)));
      expect(bytesToHex(publicKeyFromPrivate('CURVE_P256', nist))).toBe(bytesToHex(p256.getPublicKey(nist, true)));
      expect(bytesToHex(publicKeyFromPrivate('CURVE_ED25519', edwards))).toBe(bytesToHex(ed25519.getPublicKey(edwards)));
    }
  });

  it('gives the same key again however callers treat the copies they got (keys are remembered)', () => {
    const secret = new Uint8Array(32).fill(0x11);
    const first = publicKeyFromPrivate('CURVE_SECP256K1', secret);
    const expected = bytesToHex(secp256k1.getPublicKey(secret, true));
    expect(bytesToHex(first)).toBe(expected);
    first.fill(0);
    expect(bytesToHex(publicKeyFromPrivate('CURVE_SECP256K1', secret))).toBe(expected);
    // Same bytes on another curve: a different key, never the remembered one.
    expect(bytesToHex(publicKeyFromPrivate('CURVE_P256', secret))).toBe(bytesToHex(p256.getPublicKey(secret, true)));
  });

  it('refuses keys of the wrong length and out-of-range scalars', () => {
    expect(thrownCode(() => publicKeyFromPrivate('CURVE_ED25519', new Uint8Array(31)))).toBe('KEY_INVALID');
    expect(thrownCode(() => publicKeyFromPrivate('CURVE_SECP256K1', new Uint8Array(32)))).toBe('KEY_INVALID');
    expect(thrownCode(() => publicKeyFromPrivate('CURVE_P256', new Uint8Array(32).fill(0xff)))).toBe('KEY_INVALID');
  });
});
