import { encodeCBOR } from '@levischuck/tiny-cbor';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { derToRawSignature, ecdsaSign, rawToDerSignature } from '../../../src/shared/crypto/ecdsa';
import { base64UrlDecode, base64UrlEncode, bytesToHex, concatBytes, hexToBytes, utf8Decode, utf8Encode } from '../../../src/shared/crypto/encoding';
import {
  apiPublicKeyFromPrivate,
  compressP256,
  generateEncryptionKeyPair,
  p256PublicKeyFromPrivate,
  uncompressP256,
  zeroize,
} from '../../../src/shared/crypto/keys';
import { coseKeyToP256PublicKey, parseWebAuthnStamp, verifyWebAuthnStamp, webAuthnChallengeFor } from '../../../src/shared/crypto/webauthn';
import { thrown } from '../../support/assertions';

const passkey = generateEncryptionKeyPair();
const RP_ID = 'app.example.com';
const ORIGIN = 'https://app.example.com';

/** A WebAuthn assertion over `body` as a platform authenticator would produce it. */
function assertionFor(body: string, overrides: { type?: string; flags?: number; challengeBody?: string; origin?: string } = {}) {
  const authenticatorData = concatBytes(sha256(utf8Encode(RP_ID)), Uint8Array.of(overrides.flags ?? 0x05), Uint8Array.of(0, 0, 0, 42));
  const clientDataJson = utf8Encode(
    JSON.stringify({
      type: overrides.type ?? 'webauthn.get',
      challenge: base64UrlEncode(webAuthnChallengeFor(utf8Encode(overrides.challengeBody ?? body))),
      origin: overrides.origin ?? ORIGIN,
      crossOrigin: false,
    }),
  );
  const signature = ecdsaSign('p256', concatBytes(authenticatorData, sha256(clientDataJson)), hexToBytes(passkey.privateKey, 'k'), 'der');
  return JSON.stringify({
    authenticatorData: base64UrlEncode(authenticatorData),
    clientDataJson: base64UrlEncode(clientDataJson),
    credentialId: base64UrlEncode(utf8Encode('credential-1')),
    signature: base64UrlEncode(signature),
  });
}

describe('X-Stamp-WebAuthn', () => {
  const body = '{"type":"ACTIVITY_TYPE_CREATE_WALLET"}';

  it('verifies with a compressed or uncompressed credential key', () => {
    const stamp = parseWebAuthnStamp(assertionFor(body));
    const result = verifyWebAuthnStamp(stamp, utf8Encode(body), passkey.publicKey, { allowedOrigins: [ORIGIN], rpId: RP_ID });
    expect(result).toEqual({ credentialId: base64UrlEncode(utf8Encode('credential-1')), origin: ORIGIN, userVerified: true, signCount: 42 });
    expect(verifyWebAuthnStamp(stamp, utf8Encode(body), compressP256(passkey.publicKey)).signCount).toBe(42);
  });

  it('uses the UTF-8 of hex(SHA-256(body)) as challenge', () => {
    expect(utf8Decode(webAuthnChallengeFor(utf8Encode('')))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  const failures: Array<[string, () => unknown, RegExp]> = [
    [
      'another body',
      () => verifyWebAuthnStamp(parseWebAuthnStamp(assertionFor(body, { challengeBody: '{}' })), utf8Encode(body), passkey.publicKey),
      /challenge/,
    ],
    [
      'a registration ceremony',
      () => verifyWebAuthnStamp(parseWebAuthnStamp(assertionFor(body, { type: 'webauthn.create' })), utf8Encode(body), passkey.publicKey),
      /type/,
    ],
    [
      'no user presence',
      () => verifyWebAuthnStamp(parseWebAuthnStamp(assertionFor(body, { flags: 0x04 })), utf8Encode(body), passkey.publicKey),
      /user-present/,
    ],
    [
      'a foreign origin',
      () =>
        verifyWebAuthnStamp(parseWebAuthnStamp(assertionFor(body, { origin: 'https://evil.example' })), utf8Encode(body), passkey.publicKey, {
          allowedOrigins: [ORIGIN],
        }),
      /origin/,
    ],
    [
      'another rpId',
      () => verifyWebAuthnStamp(parseWebAuthnStamp(assertionFor(body)), utf8Encode(body), passkey.publicKey, { rpId: 'other.example' }),
      /rpIdHash/,
    ],
    [
      'another credential key',
      () => verifyWebAuthnStamp(parseWebAuthnStamp(assertionFor(body)), utf8Encode(body), generateEncryptionKeyPair().publicKey),
      /ES256 signature/,
    ],
  ];
  it.each(failures)('rejects %s with SIGNATURE_INVALID', (_label, action, message) => {
    const error = thrown(action);
    expect(error.code).toBe('SIGNATURE_INVALID');
    expect(error.message).toMatch(message);
  });

  it('allows every origin when "*" is configured', () => {
    const stamp = parseWebAuthnStamp(assertionFor(body, { origin: 'https://other.example' }));
    expect(verifyWebAuthnStamp(stamp, utf8Encode(body), passkey.publicKey, { allowedOrigins: ['*'] }).origin).toBe('https://other.example');
  });

  it.each([
    ['base64url instead of JSON', base64UrlEncode(utf8Encode('{}')), /not JSON/],
    ['a missing signature', JSON.stringify({ authenticatorData: 'AA', clientDataJson: 'AA', credentialId: 'AA' }), /"signature"/],
    [
      'short authenticator data',
      JSON.stringify({ authenticatorData: 'AAAA', clientDataJson: 'AA', credentialId: 'AA', signature: 'AA' }),
      /at least 37/,
    ],
    [
      'a bad base64url member',
      JSON.stringify({ authenticatorData: 'A+/A', clientDataJson: 'AA', credentialId: 'AA', signature: 'AA' }),
      /authenticatorData/,
    ],
  ])('parse rejects %s with STAMP_MALFORMED', (_label, header, message) => {
    const error = thrown(() => parseWebAuthnStamp(header));
    expect(error.code).toBe('STAMP_MALFORMED');
    expect(error.message).toMatch(message);
  });

  it('converts an ES256 COSE key and rejects other algorithms', () => {
    const point = hexToBytes(passkey.publicKey, 'pk');
    const cose = (alg: number) =>
      encodeCBOR(
        new Map<number, number | Uint8Array>([
          [1, 2],
          [3, alg],
          [-1, 1],
          [-2, point.slice(1, 33)],
          [-3, point.slice(33)],
        ]),
      );
    expect(coseKeyToP256PublicKey(cose(-7))).toBe(passkey.publicKey);
    expect(thrown(() => coseKeyToP256PublicKey(cose(-8))).message).toMatch(/alg/);
    expect(thrown(() => coseKeyToP256PublicKey(Uint8Array.of(0xff))).code).toBe('KEY_INVALID');
  });
});

describe('keys and encodings', () => {
  it('derive known public keys', () => {
    // RFC 6979 A.2.5 P-256 test key.
    const privateKey = 'c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721';
    expect(p256PublicKeyFromPrivate(privateKey, false)).toBe(
      '0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299',
    );
    expect(apiPublicKeyFromPrivate('p256', privateKey)).toBe('0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6');
    // RFC 8032 §7.1 test 1.
    expect(apiPublicKeyFromPrivate('ed25519', '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60')).toBe(
      'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    );
  });

  it('compress and uncompress validated points', () => {
    const { publicKey } = generateEncryptionKeyPair();
    expect(uncompressP256(compressP256(publicKey))).toBe(publicKey);
    expect(thrown(() => compressP256(`04${'00'.repeat(64)}`)).code).toBe('KEY_INVALID');
  });

  it.each([
    ['a zero scalar', '00'.repeat(32), /scalar/],
    ['the P-256 group order', 'ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551', /scalar/],
    ['31 bytes', '11'.repeat(31), /32 bytes/],
    ['non-hex', 'xy'.repeat(32), /not valid hex/],
  ])('reject %s as a private key', (_label, privateKey, message) => {
    const error = thrown(() => apiPublicKeyFromPrivate('p256', privateKey));
    expect(error.code).toBe('KEY_INVALID');
    expect(error.message).toMatch(message);
  });

  it('decode hex and base64url strictly, naming the field', () => {
    expect(bytesToHex(hexToBytes('0A0b', 'x'))).toBe('0a0b');
    expect(thrown(() => hexToBytes('0x0a', 'targetPublicKey')).message).toMatch(/targetPublicKey.*position 1/);
    expect(thrown(() => hexToBytes('abc', 'data')).message).toMatch(/odd length/);
    expect(base64UrlDecode('_-8=', 'x')).toEqual(Uint8Array.of(0xff, 0xef));
    expect(thrown(() => base64UrlDecode('/+8', 'x')).code).toBe('ENCODING_INVALID');
    expect(thrown(() => base64UrlDecode('A=', 'x')).message).toMatch(/padding/);
    expect(thrown(() => utf8Decode(Uint8Array.of(0xc3, 0x28), 'mnemonic')).message).toBe('mnemonic is not valid UTF-8');
  });

  it('convert signatures between DER and raw strictly', () => {
    const raw = p256.sign(utf8Encode('m'), hexToBytes(passkey.privateKey, 'k'));
    const der = rawToDerSignature(raw, 'p256');
    const longForm = concatBytes(Uint8Array.of(0x30, 0x81, der[1]!), der.subarray(2));
    expect(thrown(() => rawToDerSignature(new Uint8Array(64), 'p256')).code).toBe('ENCODING_INVALID');
    expect(thrown(() => rawToDerSignature(new Uint8Array(63), 'p256')).message).toMatch(/64 bytes/);
    expect(derToRawSignature(der, 'p256')).toEqual(raw);
    expect(thrown(() => derToRawSignature(longForm, 'p256')).message).toMatch(/not minimal/);
    expect(thrown(() => derToRawSignature(concatBytes(der, Uint8Array.of(0)), 'p256')).code).toBe('ENCODING_INVALID');
  });

  it('zeroize overwrites secrets', () => {
    const secret = Uint8Array.of(1, 2, 3);
    zeroize(secret);
    expect(secret).toEqual(new Uint8Array(3));
  });
});
