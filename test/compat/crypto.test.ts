/**
 * Interop with Turnkey's official packages, used as oracles: anything they produce we must accept, and anything we
 * produce they must accept, byte for byte where the format is deterministic.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import {
  decryptExportBundle as turnkeyDecryptExportBundle,
  encryptPrivateKeyToBundle,
  encryptWalletToBundle,
  hpkeDecrypt,
  hpkeEncrypt,
  uncompressRawPublicKey,
  verifyAppProofSignature,
  verifyOtpVerificationToken,
  verifySessionJwtSignature,
  verifyStampSignature,
} from '@turnkey/crypto';
import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import { createNodeStampSigner, createNodeStampVerifier } from '../../src/node/stamp-backend';
import { signAppProof } from '../../src/shared/crypto/app-proof';
import { AWS_NITRO_ROOT_SHA256 } from '../../src/shared/crypto/attestation';
import {
  buildExportBundle,
  buildImportBundle,
  decodeWalletImportPlaintext,
  formatPrivateKey,
  openImportCiphertext,
  parsePrivateKey,
} from '../../src/shared/crypto/bundles';
import { ecdsaSign } from '../../src/shared/crypto/ecdsa';
import { base64UrlDecode, bytesToHex, hexToBytes, utf8Decode, utf8Encode } from '../../src/shared/crypto/encoding';
import { hpkeOpen, hpkeSeal } from '../../src/shared/crypto/hpke';
import { generateApiKeyPair, generateEncryptionKeyPair } from '../../src/shared/crypto/keys';
import { nobleStampVerifier, signerFromPrivateKey, stampBody, verifyApiKeyStamp } from '../../src/shared/crypto/stamp';
import { digestSignerFromPrivateKey, encodeSessionJwt, encodeVerificationToken } from '../../src/shared/crypto/tokens';

const ORG = 'b3b3a6b8-2a7d-4c9e-9d1f-3f2b6c1e0a11';
const USER = '4a3c2b1d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const BODY = JSON.stringify({
  type: 'ACTIVITY_TYPE_CREATE_WALLET',
  timestampMs: '1767225600000',
  organizationId: ORG,
  parameters: { walletName: 'Treasury ✓', accounts: [] },
});

const enclave = generateEncryptionKeyPair();
const signWithEnclave = (data: Uint8Array) => ecdsaSign('p256', data, hexToBytes(enclave.privateKey, 'k'), 'der');

function stampJson(headerValue: string): Record<string, string> {
  return JSON.parse(utf8Decode(base64UrlDecode(headerValue, 'X-Stamp'))) as Record<string, string>;
}

describe('X-Stamp interop with @turnkey/api-key-stamper', () => {
  const apiKey = generateApiKeyPair('p256');
  const verifiers = { noble: nobleStampVerifier, node: createNodeStampVerifier() };

  it.each(['node', 'purejs'] as const)('a stamp by ApiKeyStamper (%s runtime) verifies with ours', async (runtime) => {
    const stamper = new ApiKeyStamper({ apiPublicKey: apiKey.publicKey, apiPrivateKey: apiKey.privateKey, runtimeOverride: runtime });
    const { stampHeaderName, stampHeaderValue } = await stamper.stamp(BODY);
    expect(stampHeaderName).toBe('X-Stamp');
    for (const verifier of Object.values(verifiers)) {
      expect(verifyApiKeyStamp(stampHeaderValue, utf8Encode(BODY), verifier)).toEqual({
        publicKey: apiKey.publicKey,
        scheme: 'SIGNATURE_SCHEME_TK_API_P256',
        signature: stampJson(stampHeaderValue).signature,
        curve: 'p256',
      });
      expect(() => verifyApiKeyStamp(stampHeaderValue, utf8Encode(BODY.replace('Treasury', 'Treasurx')), verifier)).toThrow(
        expect.objectContaining({ code: 'SIGNATURE_INVALID' }),
      );
    }
  });

  it('our pure stamp equals the purejs ApiKeyStamper one up to S normalisation (both RFC 6979)', async () => {
    const stamper = new ApiKeyStamper({ apiPublicKey: apiKey.publicKey, apiPrivateKey: apiKey.privateKey, runtimeOverride: 'purejs' });
    const theirs = stampJson((await stamper.stamp(BODY)).stampHeaderValue);
    const ours = stampJson((await stampBody(BODY, signerFromPrivateKey('p256', apiKey.privateKey))).headerValue);
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    expect({ ...ours, signature: undefined }).toEqual({ ...theirs, signature: undefined });
    // Same nonce, so same r; the stamper leaves S as computed (high half for about half the keys), we emit low-S.
    const n = p256.Point.CURVE().n;
    const lowS = (derHex: string) => {
      const { r, s } = p256.Signature.fromBytes(hexToBytes(derHex, 'signature'), 'der');
      return new p256.Signature(r, s > n / 2n ? n - s : s).toHex('der');
    };
    expect(lowS(ours.signature!)).toBe(ours.signature);
    expect(lowS(theirs.signature!)).toBe(ours.signature);
  });

  it('our node:crypto stamp has the same wire form and verifies with verifyStampSignature', async () => {
    const stamper = new ApiKeyStamper({ apiPublicKey: apiKey.publicKey, apiPrivateKey: apiKey.privateKey, runtimeOverride: 'node' });
    const theirs = stampJson((await stamper.stamp(BODY)).stampHeaderValue);
    const oursHeader = (await stampBody(BODY, createNodeStampSigner('p256', apiKey.privateKey))).headerValue;
    expect(oursHeader).toMatch(/^[A-Za-z0-9_-]+$/);
    const ours = stampJson(oursHeader);
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    expect({ ...ours, signature: undefined }).toEqual({ ...theirs, signature: undefined });
    expect(ours.signature).toMatch(/^30[0-9a-f]+$/);
    expect(await verifyStampSignature(ours.publicKey!, ours.signature!, BODY)).toBe(true);
    expect(await verifyStampSignature(ours.publicKey!, ours.signature!, `${BODY} `)).toBe(false);
  });
});

describe('HPKE interop with @turnkey/crypto', () => {
  it('their hpkeEncrypt opens with our hpkeOpen, and our hpkeSeal opens with their hpkeDecrypt', async () => {
    const receiver = generateEncryptionKeyPair();
    const plaintext = utf8Encode('interop ✓');
    const theirs = hpkeEncrypt({ plainTextBuf: plaintext, targetKeyBuf: hexToBytes(receiver.publicKey, 'pk') });
    // @turnkey/crypto emits compressed enc (33 bytes) ‖ ciphertext.
    const encappedPublic = uncompressRawPublicKey(theirs.slice(0, 33));
    const opened = await hpkeOpen({ encappedPublic, ciphertext: theirs.slice(33), recipientPrivateKey: hexToBytes(receiver.privateKey, 'sk') });
    expect(opened).toEqual(plaintext);

    const ours = await hpkeSeal({ plaintext, recipientPublicKey: hexToBytes(receiver.publicKey, 'pk') });
    const decrypted = hpkeDecrypt({ ciphertextBuf: ours.ciphertext, encappedKeyBuf: ours.encappedPublic, receiverPriv: receiver.privateKey });
    expect(decrypted).toEqual(plaintext);
  });
});

describe('export bundles decrypt with @turnkey/crypto decryptExportBundle', () => {
  async function ourBundle(plaintext: Uint8Array) {
    const target = generateEncryptionKeyPair();
    const exportBundle = await buildExportBundle({
      plaintext,
      targetPublicKey: target.publicKey,
      organizationId: ORG,
      sign: signWithEnclave,
      enclaveSignerPublicKey: enclave.publicKey,
    });
    return { exportBundle, embeddedKey: target.privateKey, organizationId: ORG, dangerouslyOverrideSignerPublicKey: enclave.publicKey };
  }

  it('to the same mnemonic', async () => {
    const params = await ourBundle(utf8Encode(MNEMONIC));
    expect(await turnkeyDecryptExportBundle({ ...params, returnMnemonic: true })).toBe(MNEMONIC);
  });

  it('to the same private key, in hexadecimal and Solana formats', async () => {
    const key = hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'key');
    const params = await ourBundle(key);
    expect(await turnkeyDecryptExportBundle({ ...params, returnMnemonic: false })).toBe(formatPrivateKey(key, 'hexadecimal'));
    expect(await turnkeyDecryptExportBundle({ ...params, returnMnemonic: false, keyFormat: 'SOLANA' })).toBe(formatPrivateKey(key, 'solana'));
  });

  it('and they refuse our bundle for another organization or signer', async () => {
    const params = await ourBundle(utf8Encode(MNEMONIC));
    await expect(turnkeyDecryptExportBundle({ ...params, organizationId: USER, returnMnemonic: true })).rejects.toThrow(/organization id/);
    await expect(
      turnkeyDecryptExportBundle({ ...params, dangerouslyOverrideSignerPublicKey: generateEncryptionKeyPair().publicKey, returnMnemonic: true }),
    ).rejects.toThrow();
  });
});

describe('import: @turnkey/crypto encrypts to our import bundle, we open it', () => {
  async function ourImportBundle() {
    const target = generateEncryptionKeyPair();
    const importBundle = await buildImportBundle({
      targetPublicKey: target.publicKey,
      organizationId: ORG,
      userId: USER,
      sign: signWithEnclave,
      enclaveSignerPublicKey: enclave.publicKey,
    });
    return { importBundle, target };
  }

  it('encryptWalletToBundle', async () => {
    const { importBundle, target } = await ourImportBundle();
    const encryptedBundle = await encryptWalletToBundle({
      mnemonic: MNEMONIC,
      importBundle,
      userId: USER,
      organizationId: ORG,
      dangerouslyOverrideSignerPublicKey: enclave.publicKey,
    });
    const plaintext = await openImportCiphertext({ encryptedBundle, targetPrivateKey: target.privateKey, targetPublicKey: target.publicKey });
    expect(decodeWalletImportPlaintext(plaintext)).toEqual({ mnemonic: MNEMONIC });
  });

  it.each([
    ['HEXADECIMAL', 'hexadecimal'],
    ['SOLANA', 'solana'],
  ] as const)('encryptPrivateKeyToBundle (%s)', async (turnkeyFormat, ourFormat) => {
    const { importBundle, target } = await ourImportBundle();
    const key = hexToBytes('c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721', 'key');
    const privateKey = formatPrivateKey(key, ourFormat);
    const encryptedBundle = await encryptPrivateKeyToBundle({
      privateKey,
      keyFormat: turnkeyFormat,
      importBundle,
      userId: USER,
      organizationId: ORG,
      dangerouslyOverrideSignerPublicKey: enclave.publicKey,
    });
    const opened = await openImportCiphertext({ encryptedBundle, targetPrivateKey: target.privateKey, targetPublicKey: target.publicKey });
    expect(bytesToHex(opened)).toBe(bytesToHex(parsePrivateKey(privateKey, ourFormat)));
  });

  it('and they refuse our import bundle for another user', async () => {
    const { importBundle } = await ourImportBundle();
    await expect(
      encryptWalletToBundle({
        mnemonic: MNEMONIC,
        importBundle,
        userId: ORG,
        organizationId: ORG,
        dangerouslyOverrideSignerPublicKey: enclave.publicKey,
      }),
    ).rejects.toThrow(/user id/);
  });
});

describe('tokens and app proofs verify with @turnkey/crypto', () => {
  const notarizer = generateEncryptionKeyPair();
  const sign = digestSignerFromPrivateKey(notarizer.privateKey);

  it('session JWT: verifySessionJwtSignature accepts ours and rejects an altered one', async () => {
    const jwt = await encodeSessionJwt(
      {
        exp: 1_900_000_000,
        public_key: generateApiKeyPair('p256').publicKey,
        session_type: 'SESSION_TYPE_READ_WRITE',
        user_id: USER,
        organization_id: ORG,
      },
      sign,
    );
    expect(await verifySessionJwtSignature(jwt, notarizer.publicKey)).toBe(true);
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const alteredPayload = payload.slice(0, -2) + (payload.at(-2) === 'A' ? 'B' : 'A') + payload.slice(-1);
    expect(await verifySessionJwtSignature(`${header}.${alteredPayload}.${signature}`, notarizer.publicKey)).toBe(false);
    expect(await verifySessionJwtSignature(jwt, generateEncryptionKeyPair().publicKey)).toBe(false);
  });

  it('OTP verification token: verifyOtpVerificationToken accepts ours and rejects an altered one', async () => {
    // verifyOtpVerificationToken reads the wall clock, so the token must expire in the real future.
    const claims = {
      exp: String(Date.now() + 3_600_000),
      id: 'c0ffee00-0000-4000-8000-000000000001',
      organization_id: ORG,
      verification_type: 'OTP_TYPE_EMAIL',
      contact: 'operator@example.com',
      public_key: generateApiKeyPair('p256').publicKey,
    };
    const jwt = await encodeVerificationToken(claims, sign);
    expect(await verifyOtpVerificationToken(jwt, notarizer.publicKey)).toEqual(claims);
    const altered = await encodeVerificationToken({ ...claims, contact: 'attacker@example.com' }, sign);
    const spliced = [jwt.split('.')[0], altered.split('.')[1], jwt.split('.')[2]].join('.');
    await expect(verifyOtpVerificationToken(spliced, notarizer.publicKey)).rejects.toThrow(/signature is invalid/);
  });

  it('app proof: verifyAppProofSignature accepts ours and rejects an altered payload', async () => {
    const encryptionHalf = generateEncryptionKeyPair();
    const signingHalf = generateEncryptionKeyPair();
    const proof = await signAppProof(
      {
        type: 'APP_PROOF_TYPE_ADDRESS_DERIVATION',
        timestampMs: '1767225600000',
        addressDerivationProof: { organizationId: ORG, walletId: 'w', derivationPath: "m/44'/60'/0'/0/0", address: '0x0' },
      },
      { publicKey130Hex: encryptionHalf.publicKey + signingHalf.publicKey, signRaw: digestSignerFromPrivateKey(signingHalf.privateKey) },
    );
    expect(() => verifyAppProofSignature(proof)).not.toThrow();
    expect(() => verifyAppProofSignature({ ...proof, proofPayload: proof.proofPayload.replace('0x0', '0x1') })).toThrow();
  });
});

describe('the pinned AWS Nitro Enclaves root', () => {
  // @turnkey/crypto keeps its root certificate and its fingerprint unexported, in its constants module.
  const constants = readFileSync(join(dirname(createRequire(import.meta.url).resolve('@turnkey/crypto')), 'constants.js'), 'utf8');

  it("is the SHA-256 of the certificate Turnkey's verifier pins, as Turnkey states it", () => {
    const pem = /AWS_ROOT_CERT_PEM = `(-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----)/.exec(constants)?.[1];
    const stated = /AWS_ROOT_CERT_SHA256 = "([0-9A-F]{64})"/.exec(constants)?.[1];
    expect(pem).toBeDefined();
    expect(new X509Certificate(pem!).fingerprint256.replaceAll(':', '').toLowerCase()).toBe(AWS_NITRO_ROOT_SHA256);
    expect(stated?.toLowerCase()).toBe(AWS_NITRO_ROOT_SHA256);
  });
});
