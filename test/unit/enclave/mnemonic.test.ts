import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { mnemonicToSeed as referenceMnemonicToSeed } from '@scure/bip39';
import {
  MNEMONIC_LANGUAGES,
  MNEMONIC_WORD_COUNTS,
  convertMnemonic,
  entropyToMnemonic,
  generateMnemonic,
  isValidMnemonic,
  mnemonicToSeed,
  parseMnemonic,
} from '../../../src/service/enclave/mnemonic.js';
import { QkError } from '../../../src/shared/errors.js';
import { BIP39_TREZOR_VECTORS } from './fixtures/bip39-trezor-vectors';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

function errorOf(run: () => unknown): QkError {
  try {
    run();
  } catch (error) {
    if (error instanceof QkError) return error;
    throw error;
  }
  throw new Error('expected a QkError');
}

describe('generateMnemonic', () => {
  it.each(MNEMONIC_WORD_COUNTS)('makes a valid %i-word English mnemonic', (count) => {
    const mnemonic = generateMnemonic(count);
    const parsed = parseMnemonic(mnemonic);
    expect(parsed).toMatchObject({ wordCount: count, language: 'MNEMONIC_LANGUAGE_ENGLISH' });
    expect(parsed.entropy.length).toBe((count / 3) * 4);
  });

  it('makes a different mnemonic each time', () => {
    expect(generateMnemonic()).not.toBe(generateMnemonic());
  });

  it.each([0, 11, 13, 25, 12.5])('refuses %d words with MNEMONIC_INVALID', (count) => {
    expect(errorOf(() => generateMnemonic(count)).code).toBe('MNEMONIC_INVALID');
  });
});

describe('parseMnemonic', () => {
  it('reads the BIP-39 all-zero vector and tolerates extra whitespace', () => {
    const parsed = parseMnemonic(`  ${ABANDON.replace(' ', '   ')} `);
    expect(parsed.mnemonic).toBe(ABANDON);
    expect(parsed.language).toBe('MNEMONIC_LANGUAGE_ENGLISH');
    expect(bytesToHex(parsed.entropy)).toBe('00'.repeat(16));
  });

  it('names the unknown word and its position', () => {
    const error = errorOf(() => parseMnemonic(ABANDON.replace('about', 'aboot')));
    expect(error.code).toBe('MNEMONIC_INVALID');
    expect(error.details).toMatchObject({ position: 12 });
  });

  it('refuses a bad checksum', () => {
    const error = errorOf(() => parseMnemonic(ABANDON.replace('about', 'abandon')));
    expect(error.code).toBe('MNEMONIC_INVALID');
    expect(error.message).toMatch(/checksum/);
  });

  it('refuses a wrong word count', () => {
    expect(errorOf(() => parseMnemonic('abandon abandon about')).details).toMatchObject({ wordCount: 3 });
  });

  it('refuses a mnemonic that is valid English when told it is French', () => {
    expect(isValidMnemonic(ABANDON, 'MNEMONIC_LANGUAGE_ENGLISH')).toBe(true);
    expect(isValidMnemonic(ABANDON, 'MNEMONIC_LANGUAGE_FRENCH')).toBe(false);
  });
});

describe('languages', () => {
  // 256 bits with every byte distinct, so each word position exercises a different index.
  const entropy = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);

  it.each(MNEMONIC_LANGUAGES)('%s round-trips the same entropy and is detected', (language) => {
    const mnemonic = entropyToMnemonic(entropy, language);
    const parsed = parseMnemonic(mnemonic, language);
    expect(bytesToHex(parsed.entropy)).toBe(bytesToHex(entropy));
    expect(parsed.wordCount).toBe(24);
    // Without a hint, detection finds the language (checksums of other candidate lists do not match here).
    expect(parseMnemonic(mnemonic).language).toBe(language);
    // Converting from English and back preserves the entropy.
    const english = convertMnemonic(mnemonic, 'MNEMONIC_LANGUAGE_ENGLISH', language);
    expect(convertMnemonic(english, language)).toBe(mnemonic);
  });

  it('joins Japanese words with the ideographic space U+3000 (BIP-39 Japanese vector for zero entropy)', () => {
    const japanese = convertMnemonic(ABANDON, 'MNEMONIC_LANGUAGE_JAPANESE');
    // Words come out in NFKD, the form BIP-39 hashes ("ぞ" is "そ" + U+3099).
    expect(japanese).toBe([...Array<string>(11).fill('あいこくしん'), 'あおぞら'.normalize('NFKD')].join('\u3000'));
    expect(japanese.includes(' ')).toBe(false);
  });

  it('asks for the language when a mnemonic is valid in two', () => {
    // Simplified and traditional Chinese share many characters; find a zero-entropy-like phrase valid in both.
    for (let seed = 0; seed < 4096; seed++) {
      const candidate = entropyToMnemonic(
        Uint8Array.from({ length: 16 }, (_, i) => (seed >> (i % 12)) & 0xff),
        'MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE',
      );
      if (isValidMnemonic(candidate, 'MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE')) {
        const error = errorOf(() => parseMnemonic(candidate));
        expect(error.code).toBe('MNEMONIC_INVALID');
        expect(error.details).toMatchObject({
          languages: ['MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE', 'MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE'],
        });
        expect(parseMnemonic(candidate, 'MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE').language).toBe('MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE');
        return;
      }
    }
    throw new Error('no ambiguous Chinese mnemonic found in the search space');
  });
});

describe('mnemonicToSeed', () => {
  it('matches the BIP-39 vector ("abandon … about", passphrase TREZOR)', async () => {
    const seed = await mnemonicToSeed(ABANDON, 'TREZOR');
    expect(bytesToHex(seed)).toBe(
      'c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04',
    );
  });

  // The seed comes from OpenSSL's PBKDF2 on the thread pool; @scure/bip39's pure one is the reference it must equal.
  it.each(BIP39_TREZOR_VECTORS)('agrees with @scure/bip39 and the BIP-39 vector for $entropy (passphrase TREZOR)', async (vector) => {
    expect(entropyToMnemonic(hexToBytes(vector.entropy))).toBe(vector.mnemonic);
    const fast = bytesToHex(await mnemonicToSeed(vector.mnemonic, 'TREZOR'));
    const reference = bytesToHex(await referenceMnemonicToSeed(vector.mnemonic, 'TREZOR'));
    expect({ fast, reference }).toEqual({ fast: vector.seed, reference: vector.seed });
  });

  it('refuses an invalid mnemonic instead of deriving a seed from it', async () => {
    await expect(mnemonicToSeed(ABANDON.replace('about', 'abandon'))).rejects.toMatchObject({ code: 'MNEMONIC_INVALID' });
  });
});
