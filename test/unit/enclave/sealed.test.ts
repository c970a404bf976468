import { createSecretKey, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { deriveSealingKey, open, seal } from '../../../src/service/enclave/sealed.js';
import { thrownCode } from '../../support/assertions';

const secret = Uint8Array.from({ length: 32 }, (_, i) => i);
const key = deriveSealingKey(secret);
const mnemonic = utf8ToBytes('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');

describe('sealed storage', () => {
  it('round-trips, with a fresh nonce each time', () => {
    const first = seal(key, mnemonic, 'wallet-1');
    const second = seal(key, mnemonic, 'wallet-1');
    expect(first).not.toEqual(second);
    expect(open(key, first, 'wallet-1')).toEqual(mnemonic);
    expect(open(key, second, 'wallet-1')).toEqual(mnemonic);
    expect(first.length).toBe(1 + 12 + mnemonic.length + 16);
  });

  it('derives the same key from the same secret and a different one from another secret', () => {
    expect(deriveSealingKey(secret).equals(key)).toBe(true);
    const other = deriveSealingKey(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
    expect(other.equals(key)).toBe(false);
    expect(thrownCode(() => open(other, seal(key, mnemonic, 'wallet-1'), 'wallet-1'))).toBe('DECRYPTION_FAILED');
  });

  it('refuses a ciphertext moved to another row', () => {
    expect(thrownCode(() => open(key, seal(key, mnemonic, 'wallet-1'), 'wallet-2'))).toBe('DECRYPTION_FAILED');
  });

  it('detects a flipped bit anywhere in the sealed bytes', () => {
    const sealed = seal(key, mnemonic, 'wallet-1');
    for (let index = 0; index < sealed.length; index++) {
      const tampered = sealed.slice();
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expect(
        thrownCode(() => open(key, tampered, 'wallet-1')),
        `byte ${index}`,
      ).toBe('DECRYPTION_FAILED');
    }
  });

  it('refuses truncated data, weak secrets, wrong key sizes and empty associated data', () => {
    expect(thrownCode(() => open(key, new Uint8Array(28), 'wallet-1'))).toBe('DECRYPTION_FAILED');
    expect(thrownCode(() => deriveSealingKey(new Uint8Array(16)))).toBe('KEY_INVALID');
    expect(thrownCode(() => seal(createSecretKey(new Uint8Array(16)), mnemonic, 'wallet-1'))).toBe('KEY_INVALID');
    expect(thrownCode(() => seal(new Uint8Array(32) as unknown as KeyObject, mnemonic, 'wallet-1'))).toBe('KEY_INVALID');
    expect(thrownCode(() => seal(key, mnemonic, ''))).toBe('REQUEST_INVALID');
  });
});
