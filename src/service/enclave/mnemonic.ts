/**
 * BIP-39 mnemonics for the enclave: generation, validation with language detection, conversion of the same
 * entropy to another language's words, and the seed. Pure functions over @scure/bip39 and its wordlists.
 */
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import * as bip39 from '@scure/bip39';
import { wordlist as czech } from '@scure/bip39/wordlists/czech.js';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { wordlist as french } from '@scure/bip39/wordlists/french.js';
import { wordlist as italian } from '@scure/bip39/wordlists/italian.js';
import { wordlist as japanese } from '@scure/bip39/wordlists/japanese.js';
import { wordlist as korean } from '@scure/bip39/wordlists/korean.js';
import { wordlist as simplifiedChinese } from '@scure/bip39/wordlists/simplified-chinese.js';
import { wordlist as spanish } from '@scure/bip39/wordlists/spanish.js';
import { wordlist as traditionalChinese } from '@scure/bip39/wordlists/traditional-chinese.js';
import { QkError } from '../../shared/errors';

/** The nine languages of Turnkey's `v1MnemonicLanguage` (swagger order), each with its BIP-39 wordlist. */
const WORDLISTS = {
  MNEMONIC_LANGUAGE_ENGLISH: english,
  MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE: simplifiedChinese,
  MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE: traditionalChinese,
  MNEMONIC_LANGUAGE_CZECH: czech,
  MNEMONIC_LANGUAGE_FRENCH: french,
  MNEMONIC_LANGUAGE_ITALIAN: italian,
  MNEMONIC_LANGUAGE_JAPANESE: japanese,
  MNEMONIC_LANGUAGE_KOREAN: korean,
  MNEMONIC_LANGUAGE_SPANISH: spanish,
} as const satisfies Record<string, readonly string[]>;

export type MnemonicLanguage = keyof typeof WORDLISTS;
export const MNEMONIC_LANGUAGES = Object.keys(WORDLISTS) as MnemonicLanguage[];
export const DEFAULT_MNEMONIC_LANGUAGE: MnemonicLanguage = 'MNEMONIC_LANGUAGE_ENGLISH';

/** Word counts BIP-39 defines; each three words carry 32 bits of entropy and one checksum bit. */
export const MNEMONIC_WORD_COUNTS = [12, 15, 18, 21, 24] as const;
export type MnemonicWordCount = (typeof MNEMONIC_WORD_COUNTS)[number];
export const DEFAULT_MNEMONIC_WORD_COUNT: MnemonicWordCount = 12;

export interface ParsedMnemonic {
  /** The mnemonic in canonical form: NFKD, single separators (U+3000 for Japanese, a space otherwise). */
  mnemonic: string;
  language: MnemonicLanguage;
  wordCount: MnemonicWordCount;
  /** 16–32 bytes; the caller owns it and should zero it when done. */
  entropy: Uint8Array;
}

export function isMnemonicWordCount(value: number): value is MnemonicWordCount {
  return (MNEMONIC_WORD_COUNTS as readonly number[]).includes(value);
}

export function isMnemonicLanguage(value: string): value is MnemonicLanguage {
  return Object.hasOwn(WORDLISTS, value);
}

function wordlistOf(language: MnemonicLanguage): string[] {
  if (!isMnemonicLanguage(language)) {
    throw new QkError('MNEMONIC_INVALID', `unknown mnemonic language "${String(language)}"; use one of ${MNEMONIC_LANGUAGES.join(', ')}`);
  }
  // The wordlists are exported as mutable arrays; scure only reads them.
  return WORDLISTS[language];
}

/**
 * Each wordlist as a set, built on first use: every seed re-validates its mnemonic, and a linear search of up to nine
 * 2,048-word lists per word would cost more than the rest of the parse.
 */
const wordSets = new Map<MnemonicLanguage, ReadonlySet<string>>();

function wordSetOf(language: MnemonicLanguage): ReadonlySet<string> {
  let words = wordSets.get(language);
  if (words === undefined) {
    words = new Set(wordlistOf(language));
    wordSets.set(language, words);
  }
  return words;
}

function assertWordCount(wordCount: number): asserts wordCount is MnemonicWordCount {
  if (!isMnemonicWordCount(wordCount)) {
    throw new QkError('MNEMONIC_INVALID', `mnemonicLength must be one of ${MNEMONIC_WORD_COUNTS.join(', ')}; got ${String(wordCount)}`, {
      mnemonicLength: wordCount,
    });
  }
}

/** A fresh mnemonic from the platform CSPRNG; 12 English words unless asked otherwise. */
export function generateMnemonic(wordCount: number = DEFAULT_MNEMONIC_WORD_COUNT, language: MnemonicLanguage = DEFAULT_MNEMONIC_LANGUAGE): string {
  assertWordCount(wordCount);
  const entropyBits = (wordCount / 3) * 32;
  return bip39.generateMnemonic(wordlistOf(language), entropyBits);
}

/** Splits on any run of whitespace (including U+3000) after NFKD, as BIP-39 compares words. */
function wordsOf(mnemonic: string): string[] {
  return mnemonic
    .normalize('NFKD')
    .trim()
    .split(/\s+/u)
    .filter((word) => word.length > 0);
}

/**
 * Validates a mnemonic (word count, every word in one wordlist, checksum) and tells its language.
 * Pass `language` when the caller knows it; otherwise every language whose wordlist holds all the words and whose
 * checksum matches is a candidate, and exactly one must remain.
 */
export function parseMnemonic(mnemonic: string, language?: MnemonicLanguage): ParsedMnemonic {
  if (typeof mnemonic !== 'string') {
    throw new QkError('MNEMONIC_INVALID', 'mnemonic must be a string of 12, 15, 18, 21 or 24 words');
  }
  const words = wordsOf(mnemonic);
  if (!isMnemonicWordCount(words.length)) {
    throw new QkError('MNEMONIC_INVALID', `mnemonic has ${words.length} words; a BIP-39 mnemonic has ${MNEMONIC_WORD_COUNTS.join(', ')} words`, {
      wordCount: words.length,
    });
  }
  const wordCount = words.length;
  const candidates = language === undefined ? MNEMONIC_LANGUAGES : [language];
  const containing = candidates.filter((candidate) => {
    const list = wordSetOf(candidate);
    return words.every((word) => list.has(word));
  });
  if (containing.length === 0) {
    throw unknownWordError(words, candidates);
  }
  const valid = containing.flatMap((candidate) => {
    const canonical = words.join(candidate === 'MNEMONIC_LANGUAGE_JAPANESE' ? '\u3000' : ' ');
    try {
      return [{ mnemonic: canonical, language: candidate, entropy: bip39.mnemonicToEntropy(canonical, wordlistOf(candidate)) }];
    } catch {
      return [];
    }
  });
  if (valid.length === 0) {
    throw new QkError(
      'MNEMONIC_INVALID',
      `mnemonic checksum does not match (words are ${containing.join(' or ')}); check the words and their order`,
      { languages: containing },
    );
  }
  if (valid.length > 1) {
    for (const extra of valid) extra.entropy.fill(0);
    throw new QkError(
      'MNEMONIC_INVALID',
      `mnemonic is valid in more than one language (${valid.map((v) => v.language).join(', ')}); name its language explicitly`,
      { languages: valid.map((v) => v.language) },
    );
  }
  const [only] = valid as [(typeof valid)[number]];
  return { ...only, wordCount };
}

function unknownWordError(words: string[], candidates: readonly MnemonicLanguage[]): QkError {
  // Report the first word that no candidate wordlist knows, 1-based, so the user can find it.
  const position = words.findIndex((word) => !candidates.some((candidate) => wordSetOf(candidate).has(word)));
  if (position === -1) {
    return new QkError('MNEMONIC_INVALID', 'mnemonic mixes words from different languages; use words from one BIP-39 wordlist', {
      languages: candidates,
    });
  }
  const scope = candidates.length === 1 ? `the ${String(candidates[0])} wordlist` : 'any BIP-39 wordlist';
  return new QkError('MNEMONIC_INVALID', `mnemonic word ${position + 1} is not in ${scope}`, { position: position + 1 });
}

/** Whether `mnemonic` is a valid BIP-39 mnemonic in exactly one language (or in `language`, if given). */
export function isValidMnemonic(mnemonic: string, language?: MnemonicLanguage): boolean {
  try {
    parseMnemonic(mnemonic, language).entropy.fill(0);
    return true;
  } catch (error) {
    if (error instanceof QkError && error.code === 'MNEMONIC_INVALID') return false;
    throw error;
  }
}

/** The words of `entropy` in `language`; Japanese words are joined with the ideographic space U+3000. */
export function entropyToMnemonic(entropy: Uint8Array, language: MnemonicLanguage = DEFAULT_MNEMONIC_LANGUAGE): string {
  if (!(entropy instanceof Uint8Array) || ![16, 20, 24, 28, 32].includes(entropy.length)) {
    throw new QkError('MNEMONIC_INVALID', 'mnemonic entropy must be 16, 20, 24, 28 or 32 bytes', {
      length: entropy instanceof Uint8Array ? entropy.length : null,
    });
  }
  return bip39.entropyToMnemonic(entropy, wordlistOf(language));
}

/**
 * The same entropy spelled in another language (export_wallet's `language`). Note that BIP-39 seeds are derived
 * from the words, so the converted mnemonic yields a different seed than the original.
 */
export function convertMnemonic(mnemonic: string, language: MnemonicLanguage, sourceLanguage?: MnemonicLanguage): string {
  const parsed = parseMnemonic(mnemonic, sourceLanguage);
  try {
    return entropyToMnemonic(parsed.entropy, language);
  } finally {
    parsed.entropy.fill(0);
  }
}

const pbkdf2Async = promisify(pbkdf2);
const BIP39_ROUNDS = 2048;
const BIP39_SEED_LENGTH = 64;

/**
 * The 64-byte BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" + passphrase, both NFKD).
 * The mnemonic is validated first so a typo cannot silently create a different wallet.
 */
export async function mnemonicToSeed(mnemonic: string, passphrase = '', language?: MnemonicLanguage): Promise<Uint8Array> {
  if (typeof passphrase !== 'string') {
    throw new QkError('MNEMONIC_INVALID', 'mnemonic passphrase must be a string');
  }
  const parsed = parseMnemonic(mnemonic, language);
  parsed.entropy.fill(0);
  // OpenSSL on libuv's thread pool: every signature by a wallet account derives its key from the seed, and the
  // 2048 rounds would otherwise hold the service's event loop for milliseconds.
  const password = Buffer.from(parsed.mnemonic.normalize('NFKD'), 'utf8');
  try {
    return new Uint8Array(
      await pbkdf2Async(password, Buffer.from(`mnemonic${passphrase}`.normalize('NFKD'), 'utf8'), BIP39_ROUNDS, BIP39_SEED_LENGTH, 'sha512'),
    );
  } finally {
    password.fill(0);
  }
}
