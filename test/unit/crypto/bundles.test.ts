import { p256 } from '@noble/curves/nist.js';
import { base58 } from '@scure/base';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist as japanese } from '@scure/bip39/wordlists/japanese.js';
import { describe, expect, it } from 'vitest';
import { QkError } from '../../../src/shared/errors';
import {
  buildExportBundle,
  buildImportBundle,
  decodeWalletImportPlaintext,
  decodeWalletPlaintext,
  decryptExportBundle,
  encodeWalletImportPlaintext,
  encryptToImportBundle,
  formatPrivateKey,
  openImportCiphertext,
  parsePrivateKey,
  verifyExportBundle,
  verifyImportBundle,
} from '../../../src/shared/crypto/bundles';
import { ecdsaSign } from '../../../src/shared/crypto/ecdsa';
import { bytesToHex, hexToBytes, utf8Decode, utf8Encode } from '../../../src/shared/crypto/encoding';
import { hpkeOpen, hpkeSeal } from '../../../src/shared/crypto/hpke';
import { generateEncryptionKeyPair } from '../../../src/shared/crypto/keys';
import { rejection, thrownCode } from '../../support/assertions';

const ORG = '7ff189fb-1111-4222-8333-944455556666';
const USER = 'eb39b199-aaaa-4bbb-8ccc-dddddddddddd';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

const enclave = generateEncryptionKeyPair();
const signWithEnclave = (data: Uint8Array) => ecdsaSign('p256', data, hexToBytes(enclave.privateKey, 'k'), 'der');

function flipHexChar(hex: string, index: number): string {
  const flipped = hex[index] === '0' ? '1' : '0';
  return hex.slice(0, index) + flipped + hex.slice(index + 1);
}

function mutateEnvelope(bundle: string, change: (envelope: Record<string, string>) => void): string {
  const envelope = JSON.parse(bundle) as Record<string, string>;
  change(envelope);
  return JSON.stringify(envelope);
}

async function exportBundleFor(plaintext: Uint8Array, target = generateEncryptionKeyPair(), organizationId = ORG) {
  const bundle = await buildExportBundle({
    plaintext,
    targetPublicKey: target.publicKey,
    organizationId,
    sign: signWithEnclave,
    enclaveSignerPublicKey: enclave.publicKey,
  });
  return { bundle, target };
}

describe('HPKE', () => {
  it('round-trips and binds the recipient key into the AAD', async () => {
    const recipient = generateEncryptionKeyPair();
    const sealed = await hpkeSeal({ plaintext: utf8Encode('secret'), recipientPublicKey: hexToBytes(recipient.publicKey, 'pk') });
    expect(sealed.encappedPublic).toHaveLength(65);
    expect(sealed.ciphertext).toHaveLength(6 + 16);
    const opened = await hpkeOpen({ ...sealed, recipientPrivateKey: hexToBytes(recipient.privateKey, 'sk') });
    expect(utf8Decode(opened)).toBe('secret');

    const other = generateEncryptionKeyPair();
    expect((await rejection(hpkeOpen({ ...sealed, recipientPrivateKey: hexToBytes(other.privateKey, 'sk') }))).code).toBe('DECRYPTION_FAILED');
    const tampered = sealed.ciphertext.slice();
    tampered[0]! ^= 1;
    expect((await rejection(hpkeOpen({ ...sealed, ciphertext: tampered, recipientPrivateKey: hexToBytes(recipient.privateKey, 'sk') }))).code).toBe(
      'DECRYPTION_FAILED',
    );
  });

  it('rejects an encapsulated key that is not 65 uncompressed bytes', async () => {
    const recipient = generateEncryptionKeyPair();
    const error = await rejection(
      hpkeOpen({ encappedPublic: new Uint8Array(33), ciphertext: new Uint8Array(32), recipientPrivateKey: hexToBytes(recipient.privateKey, 'sk') }),
    );
    expect(error.code).toBe('DECRYPTION_FAILED');
    expect(error.message).toMatch(/65-byte/);
  });
});

describe('export bundles', () => {
  it('have the v1.0.0 envelope with compact signed data in serde order', async () => {
    const { bundle } = await exportBundleFor(utf8Encode(MNEMONIC));
    const envelope = JSON.parse(bundle) as Record<string, string>;
    expect(Object.keys(envelope)).toEqual(['version', 'data', 'dataSignature', 'enclaveQuorumPublic']);
    expect(envelope.version).toBe('v1.0.0');
    expect(envelope.enclaveQuorumPublic).toBe(enclave.publicKey);
    const signed = utf8Decode(hexToBytes(envelope.data!, 'data'));
    expect(signed).toMatch(/^\{"encappedPublic":"04[0-9a-f]{128}","ciphertext":"[0-9a-f]+","organizationId":"[^"]+"\}$/);
  });

  it('decrypt to the exact plaintext and decode wallets with passphrases', async () => {
    const { bundle, target } = await exportBundleFor(utf8Encode(`${MNEMONIC}\nmy pass`));
    const plaintext = await decryptExportBundle(bundle, {
      signerPublicKey: enclave.publicKey,
      organizationId: ORG,
      targetPrivateKey: target.privateKey,
    });
    expect(decodeWalletPlaintext(plaintext)).toEqual({ mnemonic: MNEMONIC, passphrase: 'my pass' });
    expect(decodeWalletPlaintext(utf8Encode(MNEMONIC))).toEqual({ mnemonic: MNEMONIC });
    expect(thrownCode(() => decodeWalletPlaintext(new Uint8Array([0xff, 0xfe])))).toBe('ENCODING_INVALID');
  });

  it('accept a high-S enclave signature', async () => {
    const { bundle } = await exportBundleFor(utf8Encode(MNEMONIC));
    const highS = mutateEnvelope(bundle, (envelope) => {
      const signature = p256.Signature.fromBytes(hexToBytes(envelope.dataSignature!, 's'), 'der');
      envelope.dataSignature = bytesToHex(new p256.Signature(signature.r, p256.Point.CURVE().n - signature.s).toBytes('der'));
    });
    expect(verifyExportBundle(highS, { signerPublicKey: enclave.publicKey, organizationId: ORG }).organizationId).toBe(ORG);
  });

  describe('tampering gives the specific code and never a plaintext', () => {
    const cases: Array<[string, (bundle: string) => string, string, string?]> = [
      ['a flipped byte in data', (b) => mutateEnvelope(b, (e) => (e.data = flipHexChar(e.data!, 20))), 'BUNDLE_SIGNATURE_INVALID'],
      [
        'a flipped byte in the signature',
        (b) => mutateEnvelope(b, (e) => (e.dataSignature = flipHexChar(e.dataSignature!, 20))),
        'BUNDLE_SIGNATURE_INVALID',
      ],
      ['another version', (b) => mutateEnvelope(b, (e) => (e.version = 'v2.0.0')), 'BUNDLE_VERSION_UNSUPPORTED'],
      ['no version (legacy V0)', (b) => mutateEnvelope(b, (e) => delete e.version), 'BUNDLE_VERSION_UNSUPPORTED'],
      [
        'another signer key',
        (b) => mutateEnvelope(b, (e) => (e.enclaveQuorumPublic = generateEncryptionKeyPair().publicKey)),
        'BUNDLE_SIGNER_MISMATCH',
      ],
      [
        'an uppercase signer key',
        (b) => mutateEnvelope(b, (e) => (e.enclaveQuorumPublic = e.enclaveQuorumPublic!.toUpperCase())),
        'BUNDLE_SIGNER_MISMATCH',
      ],
      ['a missing dataSignature', (b) => mutateEnvelope(b, (e) => delete e.dataSignature), 'BUNDLE_MALFORMED'],
      ['non-hex data', (b) => mutateEnvelope(b, (e) => (e.data = 'zz')), 'BUNDLE_MALFORMED'],
      ['not JSON', (b) => b.slice(1), 'BUNDLE_MALFORMED'],
    ];
    it.each(cases)('%s', async (_label, tamper, code) => {
      const { bundle, target } = await exportBundleFor(utf8Encode(MNEMONIC));
      const error = await rejection(
        decryptExportBundle(tamper(bundle), { signerPublicKey: enclave.publicKey, organizationId: ORG, targetPrivateKey: target.privateKey }),
      );
      expect(error.code).toBe(code);
    });

    it('a bundle for another organization', async () => {
      const { bundle, target } = await exportBundleFor(utf8Encode(MNEMONIC));
      const error = await rejection(
        decryptExportBundle(bundle, { signerPublicKey: enclave.publicKey, organizationId: flipHexChar(ORG, 0), targetPrivateKey: target.privateKey }),
      );
      expect(error.code).toBe('BUNDLE_ORGANIZATION_MISMATCH');
      expect(error.message).toContain(`Found: ${ORG}.`);
    });

    it('a ciphertext altered and re-signed by the enclave', async () => {
      const { bundle, target } = await exportBundleFor(utf8Encode(MNEMONIC));
      const resigned = await (async () => {
        const envelope = JSON.parse(bundle) as Record<string, string>;
        const signed = JSON.parse(utf8Decode(hexToBytes(envelope.data!, 'd'))) as Record<string, string>;
        signed.ciphertext = flipHexChar(signed.ciphertext!, 0);
        const data = utf8Encode(JSON.stringify(signed));
        envelope.data = bytesToHex(data);
        envelope.dataSignature = bytesToHex(signWithEnclave(data));
        return JSON.stringify(envelope);
      })();
      const error = await rejection(
        decryptExportBundle(resigned, { signerPublicKey: enclave.publicKey, organizationId: ORG, targetPrivateKey: target.privateKey }),
      );
      expect(error.code).toBe('DECRYPTION_FAILED');
    });

    it('the wrong target private key', async () => {
      const { bundle } = await exportBundleFor(utf8Encode(MNEMONIC));
      const error = await rejection(
        decryptExportBundle(bundle, {
          signerPublicKey: enclave.publicKey,
          organizationId: ORG,
          targetPrivateKey: generateEncryptionKeyPair().privateKey,
        }),
      );
      expect(error.code).toBe('DECRYPTION_FAILED');
    });
  });

  it('refuse a compressed target key', async () => {
    const target = generateEncryptionKeyPair();
    const compressed = p256.Point.fromHex(target.publicKey).toHex(true);
    const error = await rejection(
      buildExportBundle({
        plaintext: new Uint8Array(32),
        targetPublicKey: compressed,
        organizationId: ORG,
        sign: signWithEnclave,
        enclaveSignerPublicKey: enclave.publicKey,
      }),
    );
    expect(error.code).toBe('KEY_INVALID');
  });
});

describe('import bundles', () => {
  async function importBundle() {
    const target = generateEncryptionKeyPair();
    const bundle = await buildImportBundle({
      targetPublicKey: target.publicKey,
      organizationId: ORG,
      userId: USER,
      sign: signWithEnclave,
      enclaveSignerPublicKey: enclave.publicKey,
    });
    return { bundle, target };
  }

  it('carry targetPublic, organizationId and userId in serde order', async () => {
    const { bundle, target } = await importBundle();
    const signed = utf8Decode(hexToBytes((JSON.parse(bundle) as { data: string }).data, 'data'));
    expect(signed).toBe(JSON.stringify({ targetPublic: target.publicKey, organizationId: ORG, userId: USER }));
    expect(verifyImportBundle(bundle, { signerPublicKey: enclave.publicKey, organizationId: ORG, userId: USER })).toEqual({
      targetPublic: target.publicKey,
    });
  });

  it('check the user', async () => {
    const { bundle } = await importBundle();
    expect(thrownCode(() => verifyImportBundle(bundle, { signerPublicKey: enclave.publicKey, organizationId: ORG, userId: 'someone-else' }))).toBe(
      'BUNDLE_USER_MISMATCH',
    );
  });

  it('round-trip a wallet with a passphrase and a private key', async () => {
    const { bundle, target } = await importBundle();
    const expected = { signerPublicKey: enclave.publicKey, organizationId: ORG, userId: USER };
    const encryptedWallet = await encryptToImportBundle({
      ...expected,
      importBundle: bundle,
      plaintext: encodeWalletImportPlaintext(MNEMONIC, 'pw'),
    });
    expect(Object.keys(JSON.parse(encryptedWallet) as object)).toEqual(['encappedPublic', 'ciphertext']);
    const opened = await openImportCiphertext({
      encryptedBundle: encryptedWallet,
      targetPrivateKey: target.privateKey,
      targetPublicKey: target.publicKey,
    });
    expect(utf8Decode(opened)).toBe(`${MNEMONIC}\n--PASS--\npw`);
    expect(decodeWalletImportPlaintext(opened)).toEqual({ mnemonic: MNEMONIC, passphrase: 'pw' });

    const key = hexToBytes('11'.repeat(32), 'key');
    const encryptedKey = await encryptToImportBundle({ ...expected, importBundle: bundle, plaintext: key });
    expect(
      await openImportCiphertext({ encryptedBundle: encryptedKey, targetPrivateKey: target.privateKey, targetPublicKey: target.publicKey }),
    ).toEqual(key);
  });

  it('reject a ciphertext with a flipped byte, a mismatched target key pair and malformed JSON', async () => {
    const { bundle, target } = await importBundle();
    const encrypted = JSON.parse(
      await encryptToImportBundle({
        importBundle: bundle,
        plaintext: new Uint8Array(32),
        signerPublicKey: enclave.publicKey,
        organizationId: ORG,
        userId: USER,
      }),
    ) as Record<string, string>;
    const flipped = JSON.stringify({ ...encrypted, ciphertext: flipHexChar(encrypted.ciphertext!, 3) });
    expect(
      (await rejection(openImportCiphertext({ encryptedBundle: flipped, targetPrivateKey: target.privateKey, targetPublicKey: target.publicKey })))
        .code,
    ).toBe('DECRYPTION_FAILED');
    const other = generateEncryptionKeyPair();
    expect(
      (
        await rejection(
          openImportCiphertext({ encryptedBundle: JSON.stringify(encrypted), targetPrivateKey: other.privateKey, targetPublicKey: target.publicKey }),
        )
      ).code,
    ).toBe('KEY_INVALID');
    expect(
      (
        await rejection(
          openImportCiphertext({
            encryptedBundle: '{"encappedPublic":"04"}',
            targetPrivateKey: target.privateKey,
            targetPublicKey: target.publicKey,
          }),
        )
      ).code,
    ).toBe('BUNDLE_MALFORMED');
  });

  it('validate mnemonics across Turnkey languages', () => {
    const japaneseMnemonic = entropyToMnemonic(new Uint8Array(16).fill(7), japanese);
    expect(utf8Decode(encodeWalletImportPlaintext(japaneseMnemonic))).toBe(japaneseMnemonic);
    expect(thrownCode(() => encodeWalletImportPlaintext(MNEMONIC.replace('about', 'abandon')))).toBe('MNEMONIC_INVALID');
    expect(thrownCode(() => encodeWalletImportPlaintext(`${MNEMONIC}\nx`))).toBe('MNEMONIC_INVALID');
    expect(thrownCode(() => decodeWalletImportPlaintext(utf8Encode('not a mnemonic')))).toBe('MNEMONIC_INVALID');
  });
});

describe('private key formats', () => {
  const key = hexToBytes('0c28fca386c7a227600b2fe50b7cae11ec86d3bf1fbe471be89827e19d72aa1d', 'key');

  it('match known encodings', () => {
    // Bitcoin wiki WIF example key; compressed forms.
    expect(formatPrivateKey(key, 'wif-mainnet')).toBe('KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617');
    expect(formatPrivateKey(key, 'wif-testnet')).toBe('cMzLdeGd5vEqxB8B6VFQoRopQ3sLAAvEzDAoQgvX54xwofSWj1fx');
    expect(formatPrivateKey(key, 'hexadecimal')).toBe(bytesToHex(key));
  });

  it.each(['hexadecimal', 'solana', 'wif-mainnet', 'wif-testnet'] as const)('%s round-trips', (format) => {
    expect(parsePrivateKey(formatPrivateKey(key, format), format)).toEqual(key);
  });

  it('accept 0x-prefixed hex', () => {
    expect(parsePrivateKey(`0x${bytesToHex(key)}`, 'hexadecimal')).toEqual(key);
  });

  const malformed: Array<[string, string, 'hexadecimal' | 'solana' | 'wif-mainnet' | 'wif-testnet', RegExp]> = [
    ['short hex', '11'.repeat(31), 'hexadecimal', /32 bytes/],
    ['non-hex', 'zz'.repeat(32), 'hexadecimal', /not valid hex/],
    ['a Solana key with a foreign public half', base58.encode(new Uint8Array([...key, ...new Uint8Array(32).fill(9)])), 'solana', /public half/],
    ['a 32-byte Solana string', '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi', 'solana', /64 bytes/],
    ['a testnet WIF read as mainnet', 'cMzLdeGd5vEqxB8B6VFQoRopQ3sLAAvEzDAoQgvX54xwofSWj1fx', 'wif-mainnet', /version byte/],
    ['an uncompressed WIF', '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ', 'wif-mainnet', /uncompressed/],
    ['a WIF with a bad checksum', 'KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98618', 'wif-mainnet', /checksum/],
  ];
  it.each(malformed)('reject %s', (_label, text, format, message) => {
    try {
      parsePrivateKey(text, format);
      expect.unreachable();
    } catch (error) {
      expect((error as QkError).code).toBe('KEY_FORMAT_INVALID');
      expect((error as QkError).message).toMatch(message);
    }
  });
});
