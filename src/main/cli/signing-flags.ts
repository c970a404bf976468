/**
 * The `sign` command's choices by their flag words, read from the shared signing words, so the CLI takes, lists and
 * refuses exactly the values the Sign screen offers.
 */
import { choicesOf, valueOfFlag, type ChoiceTable } from '../../shared/describe/signing-words';
import { UsageError } from './usage-error';

function flagsOf<T extends string>(table: ChoiceTable<T>): string[] {
  return choicesOf(table).map((choice) => choice.flag);
}

/** `ethereum|solana|bitcoin`: the words an option takes, for the usage text. */
export function flagAlternatives<T extends string>(table: ChoiceTable<T>): string {
  return flagsOf(table).join('|');
}

/** The value `word` names; a word the table does not offer is a usage error naming the ones it does. */
export function flagChoice<T extends string>(table: ChoiceTable<T>, word: string, option: string): T {
  const chosen = valueOfFlag(table, word);
  if (chosen === undefined) throw new UsageError(`--${option} must be one of ${flagsOf(table).join(', ')}; got ${word}`);
  return chosen;
}
