import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ed25519PublicKey, ed25519Sign, p256PublicKey } from '../../../src/service/enclave/openssl.js';

// OpenSSL stands in for noble only where the result is the same byte for byte; noble is the reference.
describe('OpenSSL against noble', () => {
  it('gives the same P-256 and Ed25519 public keys', () => {
    for (let i = 0; i < 20; i++) {
      const nist = p256.utils.randomSecretKey();
      const edwards = ed25519.utils.randomSecretKey();
      expect(bytesToHex(p256PublicKey(nist))).toBe(bytesToHex(p256.getPublicKey(nist, true)));
      expect(bytesToHex(ed25519PublicKey(edwards))).toBe(bytesToHex(ed25519.getPublicKey(edwards)));
    }
  });

  it('gives the same Ed25519 signatures (RFC 8032 is deterministic), empty and long messages included', () => {
    for (const length of [0, 1, 32, 200, 1232, 5000]) {
      const secret = ed25519.utils.randomSecretKey();
      const message = new Uint8Array(length).map((_, index) => (index * 31 + length) & 0xff);
      expect(bytesToHex(ed25519Sign(secret, message))).toBe(bytesToHex(ed25519.sign(message, secret)));
    }
  });

  it('matches RFC 8032 test 1 (empty message)', () => {
    const secret = Uint8Array.from(Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex'));
    expect(bytesToHex(ed25519PublicKey(secret))).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    expect(bytesToHex(ed25519Sign(secret, new Uint8Array(0)))).toBe(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    );
  });
});
