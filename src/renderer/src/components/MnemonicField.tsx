import { useId, useMemo } from 'react';
import { validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';

const ENGLISH_WORDS: ReadonlySet<string> = new Set(english);
const VALID_LENGTHS = [12, 15, 18, 21, 24];

export interface MnemonicCheck {
  words: { word: string; known: boolean }[];
  /** Why the phrase cannot be imported yet; undefined when it can. */
  problem: string | undefined;
}

/** Each word against the BIP-39 English list, then the length and the checksum. */
export function checkMnemonic(text: string): MnemonicCheck {
  const words = text
    .trim()
    .toLowerCase()
    .split(/\s+/u)
    .filter((word) => word !== '')
    .map((word) => ({ word, known: ENGLISH_WORDS.has(word) }));
  const unknown = words.map((word, index) => ({ ...word, index })).filter((word) => !word.known);
  let problem: string | undefined;
  if (words.length === 0) problem = 'Enter the mnemonic words, separated by spaces.';
  else if (unknown.length > 0) {
    problem = `Not in the BIP-39 English word list: ${unknown.map(({ word, index }) => `word ${index + 1} “${word}”`).join(', ')}.`;
  } else if (!VALID_LENGTHS.includes(words.length)) {
    problem = `A mnemonic has 12, 15, 18, 21 or 24 words; this one has ${words.length}.`;
  } else if (!validateMnemonic(words.map(({ word }) => word).join(' '), english)) {
    problem = 'Every word is known, but the checksum does not match: a word is wrong or the order is off.';
  }
  return { words, problem };
}

/** The mnemonic input with a word-by-word check shown as chips (masked: the check, not the words, is displayed). */
export function MnemonicField({ value, onChange, onPaste }: { value: string; onChange: (value: string) => void; onPaste: (text: string) => void }) {
  const id = useId();
  const check = useMemo(() => checkMnemonic(value), [value]);
  return (
    <div className="mnemonic-field">
      <label htmlFor={id}>Mnemonic (English)</label>
      <textarea
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onPaste={(event) => onPaste(event.clipboardData.getData('text'))}
        rows={3}
        spellCheck={false}
        autoComplete="off"
        autoCorrect="off"
        autoCapitalize="off"
        className="secret-input"
        aria-invalid={value.trim() !== '' && check.problem !== undefined}
        aria-describedby={`${id}-check`}
      />
      <ol className="word-checks" aria-label="Word check">
        {check.words.map(({ known }, index) => (
          <li key={index} className={known ? 'word-ok' : 'word-bad'}>
            {index + 1} {known ? '✓' : '✗'}
            <span className="visually-hidden">{known ? ' known word' : ' unknown word'}</span>
          </li>
        ))}
      </ol>
      <p id={`${id}-check`} className={value.trim() !== '' && check.problem !== undefined ? 'field-error' : 'hint'} aria-live="polite">
        {value.trim() === ''
          ? 'Type or paste the 12 to 24 words, separated by spaces.'
          : (check.problem ?? `${check.words.length} words, checksum valid.`)}
      </p>
    </div>
  );
}
