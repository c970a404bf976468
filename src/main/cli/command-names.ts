/**
 * The commands usage.ts lists, and the subcommands each takes. The entry refuses any other command before a command's
 * code loads, so a mistyped one costs about what `--help` does; this module imports nothing for that reason.
 */
import { UsageError } from './usage-error';

/** Each command's subcommands; an empty list for a command that takes none (what follows it is an operand). */
const COMMANDS: Readonly<Record<string, readonly string[]>> = {
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
};

/** "a, b or c" */
function alternatives(words: readonly string[]): string {
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`;
}

/** Refuses a command line whose command, or its command's subcommand, is not one the CLI has. */
export function checkCommandName([command, subcommand]: readonly string[]): void {
  if (command === undefined) throw new UsageError('no command given');
  const subcommands = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (subcommands === undefined) throw new UsageError(`unknown command: ${command}`);
  if (subcommands.length === 0) return;
  if (subcommand === undefined) throw new UsageError(`${command} needs a subcommand: ${alternatives(subcommands)}`);
  if (!subcommands.includes(subcommand)) {
    throw new UsageError(`unknown command: ${command} ${subcommand} (${command} takes ${alternatives(subcommands)})`);
  }
}
