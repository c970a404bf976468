/**
 * The CLI's one list of commands, and the subcommands each takes. The entry refuses any other command before a
 * command's code loads, so a mistyped one costs about what `--help` does; this module imports nothing for that reason.
 * The dispatch switches on the `CommandName` this check returns, so the compiler refuses a command the list has and
 * the dispatch lacks, or the reverse; test/unit/cli/command-names.test.ts holds usage.ts to the same list.
 */
import { UsageError } from './usage-error';

/** Each command's subcommands; an empty list for a command that takes none (what follows it is an operand). */
export const COMMANDS = {
  sandbox: ['init', 'status', 'reset'],
  profiles: ['list', 'add', 'edit', 'use', 'remove'],
  keys: ['generate', 'list', 'delete'],
  users: ['credentials', 'move-to-token'],
  'encryption-keys': ['generate', 'list', 'delete'],
  request: [],
  'post-stamped': [],
  activities: ['list', 'approve', 'reject'],
  policies: ['rehearse', 'lint'],
  wallets: ['list', 'create', 'export'],
  sign: ['transaction', 'payload'],
  simulate: [],
  decrypt: [],
  encrypt: [],
  journal: ['verify', 'export', 'checkpoint'],
  'clear-signing': ['test', 'refresh'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

type Commands = typeof COMMANDS;

/** A command line's name: the command, followed by its subcommand when it takes one (`wallets create`, `decrypt`). */
export type CommandName = {
  [Command in keyof Commands]: Commands[Command] extends readonly [] ? Command : `${Command} ${Commands[Command][number]}`;
}[keyof Commands];

/** "a, b or c" */
function alternatives(words: readonly string[]): string {
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`;
}

/** The name of the command line's command; refused when its command, or its command's subcommand, is not one the CLI has. */
export function checkCommandName([command, subcommand]: readonly string[]): CommandName {
  if (command === undefined) throw new UsageError('no command given');
  const subcommands: readonly string[] | undefined = Object.hasOwn(COMMANDS, command) ? COMMANDS[command as keyof Commands] : undefined;
  if (subcommands === undefined) throw new UsageError(`unknown command: ${command}`);
  if (subcommands.length === 0) return command as CommandName;
  if (subcommand === undefined) throw new UsageError(`${command} needs a subcommand: ${alternatives(subcommands)}`);
  if (!subcommands.includes(subcommand)) {
    throw new UsageError(`unknown command: ${command} ${subcommand} (${command} takes ${alternatives(subcommands)})`);
  }
  return `${command} ${subcommand}` as CommandName;
}
