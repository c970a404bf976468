/**
 * A signing request's choices in words, from one place: for every transaction type, payload encoding and hash
 * function, the label the Sign screen offers, the word the CLI takes and the words the signing card reads. Each table
 * is a Record over its whole enum, so a value the API gains cannot go without words; the tables list their values in
 * the order the Sign screen and the CLI's usage offer them.
 */
import type { z } from 'zod';
import type { hashFunction, payloadEncoding, transactionType } from '../api/enums';

type TransactionType = z.infer<typeof transactionType>;
type PayloadEncoding = z.infer<typeof payloadEncoding>;
type HashFunction = z.infer<typeof hashFunction>;

/** How one value is offered to a person choosing it. */
export interface ChoiceWords {
  /** The Sign screen's option. */
  readonly label: string;
  /** The CLI's flag value, e.g. `--type ethereum`. */
  readonly flag: string;
}

/** A table of words over an enum; `choice` is absent for a value that is read but not offered. */
export type ChoiceTable<T extends string> = Readonly<Record<T, { readonly choice?: ChoiceWords }>>;

export const TRANSACTION_TYPE_WORDS: Readonly<Record<TransactionType, { readonly chain: string; readonly choice?: ChoiceWords }>> = {
  TRANSACTION_TYPE_ETHEREUM: { chain: 'Ethereum', choice: { label: 'Ethereum (serialized unsigned transaction, hex)', flag: 'ethereum' } },
  TRANSACTION_TYPE_SOLANA: { chain: 'Solana', choice: { label: 'Solana (unsigned transaction or message, hex)', flag: 'solana' } },
  TRANSACTION_TYPE_BITCOIN: { chain: 'Bitcoin', choice: { label: 'Bitcoin (PSBT, hex)', flag: 'bitcoin' } },
  // Not signed yet (the service refuses them), so not offered; a card still names the chain of one it is shown.
  TRANSACTION_TYPE_TRON: { chain: 'Tron' },
  TRANSACTION_TYPE_TEMPO: { chain: 'Tempo' },
};

export const PAYLOAD_ENCODING_WORDS: Readonly<Record<PayloadEncoding, { readonly reading: string; readonly choice: ChoiceWords }>> = {
  PAYLOAD_ENCODING_TEXT_UTF8: { reading: 'UTF-8 text', choice: { label: 'Text (UTF-8)', flag: 'text' } },
  PAYLOAD_ENCODING_HEXADECIMAL: { reading: 'hexadecimal bytes', choice: { label: 'Hexadecimal bytes', flag: 'hex' } },
  PAYLOAD_ENCODING_EIP712: { reading: 'EIP-712 typed data', choice: { label: 'EIP-712 typed data (JSON)', flag: 'eip712' } },
  PAYLOAD_ENCODING_EIP7702_AUTHORIZATION: { reading: 'EIP-7702 authorization', choice: { label: 'EIP-7702 authorization (JSON)', flag: 'eip7702' } },
};

export const HASH_FUNCTION_WORDS: Readonly<Record<HashFunction, { readonly reading: string; readonly choice: ChoiceWords }>> = {
  HASH_FUNCTION_KECCAK256: { reading: 'Keccak-256', choice: { label: 'Keccak-256', flag: 'keccak256' } },
  HASH_FUNCTION_SHA256: { reading: 'SHA-256', choice: { label: 'SHA-256', flag: 'sha256' } },
  HASH_FUNCTION_NO_OP: {
    reading: 'none: the payload is the digest',
    choice: { label: 'None: the payload is a 32-byte digest (or EIP-712/7702)', flag: 'none' },
  },
  HASH_FUNCTION_NOT_APPLICABLE: {
    reading: 'none: Ed25519 signs the message itself',
    choice: { label: 'Not applicable (Ed25519 keys)', flag: 'not-applicable' },
  },
};

/** The values a person can choose, in the table's order, with their words. */
export function choicesOf<T extends string>(table: ChoiceTable<T>): { value: T; label: string; flag: string }[] {
  return (Object.entries(table) as [T, { readonly choice?: ChoiceWords }][]).flatMap(([value, { choice }]) =>
    choice === undefined ? [] : [{ value, ...choice }],
  );
}

/** The value a CLI flag word names; undefined for a word the table does not offer. */
export function valueOfFlag<T extends string>(table: ChoiceTable<T>, flag: string): T | undefined {
  return choicesOf(table).find((choice) => choice.flag === flag)?.value;
}

/** The table's words for `value`; undefined for a value outside the enum (as an activity recorded elsewhere may hold). */
export function wordsFor<W>(table: Readonly<Record<string, W>>, value: string): W | undefined {
  return Object.hasOwn(table, value) ? table[value] : undefined;
}
