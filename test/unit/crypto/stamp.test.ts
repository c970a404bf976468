import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { rawToDerSignature, derToRawSignature } from '../../../src/shared/crypto/ecdsa';
import { base64UrlDecode, base64UrlEncode, bytesToHex, hexToBytes, utf8Decode, utf8Encode } from '../../../src/shared/crypto/encoding';
import { API_KEY_CURVES, generateApiKeyPair } from '../../../src/shared/crypto/keys';
import { fingerprintOf, parseApiKeyStamp, signerFromPrivateKey, stampBody, verifyApiKeyStamp } from '../../../src/shared/crypto/stamp';
import { expectQkError, thrownCode } from '../../support/assertions';

/** docs/formats.md#stamps: tkcli example from Turnkey's stamps documentation. */
const VECTOR_BODY = '{"payload": "hello from TKHQ"}';
const VECTOR_STAMP =
  'eyJwdWJsaWNLZXkiOiIwMzI3YTUwMDMyZTZmMDYzMWQ1NjA1YjZhZGEzMmI3NzkwNzRmMzQ2ZTgxYjY4ZTEyODAxNjQwZjFjOWVlMDNkYWUiLCJzaWduYXR1cmUiOiIzMDQ0MDIyMDM2MjNkZWZkNjE4ZWIzZTIxOTk3MDQ5NjQwN2ViZTkyNDQ3MzE3ZGFkNzVlNDEyYmQ0YTYyNjdjM2I1ZTIyMjMwMjIwMjQ1Yjc0MDg0OGE3MmQwOGI2MGQ2Yzg0ZjMzOTczN2I2M2RiM2JjYmFkYjNiZDBkY2IxYmZiODY1NzE1ZDhiNSIsInNjaGVtZSI6IlNJR05BVFVSRV9TQ0hFTUVfVEtfQVBJX1AyNTYifQ';

function encodeStamp(stamp: Record<string, unknown>): string {
  return base64UrlEncode(utf8Encode(JSON.stringify(stamp)));
}

describe('X-Stamp', () => {
  it('verifies the documented tkcli test vector', () => {
    const result = verifyApiKeyStamp(VECTOR_STAMP, utf8Encode(VECTOR_BODY));
    expect(result).toEqual({
      publicKey: '0327a50032e6f0631d5605b6ada32b779074f346e81b68e12801640f1c9ee03dae',
      scheme: 'SIGNATURE_SCHEME_TK_API_P256',
      signature: (JSON.parse(utf8Decode(base64UrlDecode(VECTOR_STAMP, 'stamp'))) as { signature: string }).signature,
      curve: 'p256',
    });
  });

  it('rejects the vector over a body that differs by one space', () => {
    expect(thrownCode(() => verifyApiKeyStamp(VECTOR_STAMP, utf8Encode('{"payload":"hello from TKHQ"}')))).toBe('SIGNATURE_INVALID');
  });

  it.each(API_KEY_CURVES)('round-trips a %s stamp in the wire form', async (curve) => {
    const keys = generateApiKeyPair(curve);
    const signer = signerFromPrivateKey(curve, keys.privateKey);
    expect(signer.publicKey).toBe(keys.publicKey);
    const body = JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_USERS', organizationId: 'org', timestampMs: '1' });
    const { headerName, headerValue } = await stampBody(body, signer);
    expect(headerName).toBe('X-Stamp');
    expect(headerValue).toMatch(/^[A-Za-z0-9_-]+$/);
    const json = JSON.parse(utf8Decode(base64UrlDecode(headerValue, 'stamp'))) as Record<string, string>;
    expect(Object.keys(json)).toEqual(['publicKey', 'scheme', 'signature']);
    expect(verifyApiKeyStamp(headerValue, utf8Encode(body)).publicKey).toBe(keys.publicKey);
    expect(thrownCode(() => verifyApiKeyStamp(headerValue, utf8Encode(`${body} `)))).toBe('SIGNATURE_INVALID');
  });

  it('produces public keys of the stamp form for each curve', () => {
    expect(generateApiKeyPair('p256').publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(generateApiKeyPair('secp256k1').publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(generateApiKeyPair('ed25519').publicKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts a high-S P-256 signature', () => {
    const keys = generateApiKeyPair('p256');
    const body = utf8Encode('{"high":"s"}');
    const low = p256.Signature.fromBytes(p256.sign(body, hexToBytes(keys.privateKey, 'key')), 'compact');
    const high = new p256.Signature(low.r, p256.Point.CURVE().n - low.s);
    expect(high.hasHighS()).toBe(true);
    const stamp = encodeStamp({
      publicKey: keys.publicKey,
      scheme: 'SIGNATURE_SCHEME_TK_API_P256',
      signature: bytesToHex(high.toBytes('der')),
    });
    expect(verifyApiKeyStamp(stamp, body).curve).toBe('p256');
  });

  it('rejects a non-canonical Ed25519 signature (s ≥ L) like OpenSSL does', () => {
    const keys = generateApiKeyPair('ed25519');
    const body = utf8Encode('x');
    const signature = ed25519.sign(body, hexToBytes(keys.privateKey, 'key'));
    // Adding the group order L to s keeps the equation true but makes the encoding non-canonical.
    const L = ed25519.Point.CURVE().n;
    const s = BigInt(`0x${bytesToHex(signature.slice(32).reverse())}`) + L;
    const sBytes = hexToBytes(s.toString(16).padStart(64, '0'), 's').reverse();
    const tampered = new Uint8Array([...signature.slice(0, 32), ...sBytes]);
    const stamp = encodeStamp({ publicKey: keys.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_ED25519', signature: bytesToHex(tampered) });
    expect(thrownCode(() => verifyApiKeyStamp(stamp, body))).toBe('SIGNATURE_INVALID');
  });

  describe('parseApiKeyStamp rejects malformed headers with STAMP_MALFORMED', () => {
    const keys = generateApiKeyPair('p256');
    const goodSignature = bytesToHex(
      rawToDerSignature(p256.sign(sha256(utf8Encode('b')), hexToBytes(keys.privateKey, 'k'), { prehash: false }), 'p256'),
    );
    const valid = { publicKey: keys.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: goodSignature };
    const cases: Array<[string, string, RegExp]> = [
      ['an empty header', '', /missing or empty/],
      ['not base64url', '***', /base64url/],
      ['not JSON', base64UrlEncode(utf8Encode('{nope')), /JSON/],
      ['an array', encodeStamp([] as unknown as Record<string, unknown>), /JSON object/],
      ['an unknown scheme', encodeStamp({ ...valid, scheme: 'SIGNATURE_SCHEME_TK_API_RSA' }), /scheme "SIGNATURE_SCHEME_TK_API_RSA"/],
      ['a missing signature', encodeStamp({ publicKey: valid.publicKey, scheme: valid.scheme }), /"signature" must be a string/],
      ['a numeric publicKey', encodeStamp({ ...valid, publicKey: 7 }), /"publicKey" must be a string/],
      ['odd-length hex', encodeStamp({ ...valid, publicKey: valid.publicKey.slice(1) }), /odd length/],
      ['uppercase hex', encodeStamp({ ...valid, publicKey: valid.publicKey.toUpperCase() }), /lowercase/],
      ['an uncompressed key', encodeStamp({ ...valid, publicKey: `04${'11'.repeat(64)}` }), /33-byte compressed/],
      [
        'a raw instead of DER signature',
        encodeStamp({ ...valid, signature: bytesToHex(derToRawSignature(hexToBytes(goodSignature, 's'), 'p256')) }),
        /DER/,
      ],
      ['trailing garbage after DER', encodeStamp({ ...valid, signature: `${goodSignature}00` }), /DER/],
      ['a short Ed25519 key', encodeStamp({ ...valid, scheme: 'SIGNATURE_SCHEME_TK_API_ED25519', publicKey: '11'.repeat(31) }), /32 bytes/],
    ];
    it.each(cases)('%s', (_label, header, message) => {
      expectQkError(() => parseApiKeyStamp(header), 'STAMP_MALFORMED', message);
    });

    it('accepts the valid baseline', () => {
      expect(parseApiKeyStamp(encodeStamp(valid)).curve).toBe('p256');
    });
  });

  it('fingerprints the exact body bytes', () => {
    expect(fingerprintOf(utf8Encode(''))).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
