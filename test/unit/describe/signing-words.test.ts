import { describe, expect, it } from 'vitest';
import { hashFunction, payloadEncoding, transactionType } from '../../../src/shared/api/enums';
import { describeActivity } from '../../../src/shared/describe';
import {
  choicesOf,
  HASH_FUNCTION_WORDS,
  PAYLOAD_ENCODING_WORDS,
  TRANSACTION_TYPE_WORDS,
  type ChoiceTable,
} from '../../../src/shared/describe/signing-words';
import { flagAlternatives, flagChoice } from '../../../src/main/cli/signing-flags';
import { UsageError } from '../../../src/main/cli/usage-error';

const TABLES: [option: string, table: ChoiceTable<string>, every: readonly string[]][] = [
  ['type', TRANSACTION_TYPE_WORDS, transactionType.options],
  ['encoding', PAYLOAD_ENCODING_WORDS, payloadEncoding.options],
  ['hash', HASH_FUNCTION_WORDS, hashFunction.options],
];

describe('the signing request in words, from one table', () => {
  it('offers the transaction types QuorumKey signs, each with a CLI word that reads back to the same type and word', () => {
    const offered = choicesOf(TRANSACTION_TYPE_WORDS);
    expect(offered.map((choice) => choice.value)).toEqual(['TRANSACTION_TYPE_ETHEREUM', 'TRANSACTION_TYPE_SOLANA', 'TRANSACTION_TYPE_BITCOIN']);
    for (const { value, flag } of offered) {
      expect(flag).toMatch(/^[a-z][a-z0-9-]*$/);
      const parsed = flagChoice(TRANSACTION_TYPE_WORDS, flag, 'type');
      expect(parsed).toBe(value);
      expect(TRANSACTION_TYPE_WORDS[parsed].choice?.flag).toBe(flag);
    }
  });

  it.each(TABLES)('--%s: every value has its words, and the offered ones have distinct labels and flags that round-trip', (option, table, every) => {
    expect(Object.keys(table).sort()).toEqual([...every].sort());
    const offered = choicesOf(table);
    expect(new Set(offered.map((choice) => choice.flag)).size).toBe(offered.length);
    expect(new Set(offered.map((choice) => choice.label)).size).toBe(offered.length);
    for (const { value, flag } of offered) expect(flagChoice(table, flag, option)).toBe(value);
  });

  it('refuses a word it does not offer as a usage error naming the words it takes, in the order the usage lists them', () => {
    expect(() => flagChoice(TRANSACTION_TYPE_WORDS, 'dogecoin', 'type')).toThrow(UsageError);
    expect(() => flagChoice(TRANSACTION_TYPE_WORDS, 'dogecoin', 'type')).toThrow('--type must be one of ethereum, solana, bitcoin; got dogecoin');
    // Tron is read on a card but not signed: the CLI refuses it like any unknown word.
    expect(() => flagChoice(TRANSACTION_TYPE_WORDS, 'tron', 'type')).toThrow('--type must be one of ethereum, solana, bitcoin; got tron');
    // A flag word is not the enum value, nor a label.
    expect(() => flagChoice(PAYLOAD_ENCODING_WORDS, 'PAYLOAD_ENCODING_EIP712', 'encoding')).toThrow(
      '--encoding must be one of text, hex, eip712, eip7702; got PAYLOAD_ENCODING_EIP712',
    );
    expect(() => flagChoice(HASH_FUNCTION_WORDS, 'Keccak-256', 'hash')).toThrow(
      '--hash must be one of keccak256, sha256, none, not-applicable; got Keccak-256',
    );
    expect(flagAlternatives(HASH_FUNCTION_WORDS)).toBe('keccak256|sha256|none|not-applicable');
  });

  it("words a recorded signing activity with the card's reading words, and a value outside the enum generically", () => {
    const payload = describeActivity({
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      intent: {
        signRawPayloadIntentV2: { signWith: '0xabc', payload: 'hi', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_NO_OP' },
      },
    });
    const facts = JSON.stringify(payload);
    expect(facts).toContain(PAYLOAD_ENCODING_WORDS.PAYLOAD_ENCODING_TEXT_UTF8.reading);
    expect(facts).toContain(HASH_FUNCTION_WORDS.HASH_FUNCTION_NO_OP.reading);
    const tron = describeActivity({
      type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
      intent: { signTransactionIntentV2: { signWith: '0xabc', unsignedTransaction: '00', type: 'TRANSACTION_TYPE_TRON' } },
    });
    expect(tron.summary).toBe('Tron with 0xabc');
    const future = describeActivity({
      type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
      intent: { signTransactionIntentV2: { signWith: '0xabc', unsignedTransaction: '00', type: 'TRANSACTION_TYPE_SUI' } },
    });
    expect(future.summary).toBe('Sui with 0xabc');
  });
});
