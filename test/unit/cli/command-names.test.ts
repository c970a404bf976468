/**
 * The CLI's list of commands (command-names.ts) against its usage text: every command line the usage shows passes
 * the early check, and every name of the list is shown. (The dispatch is held to the same list by the compiler: it
 * switches on the `CommandName` the check returns.)
 */
import { describe, expect, it } from 'vitest';
import { checkCommandName, COMMANDS } from '../../../src/main/cli/command-names';
import { USAGE } from '../../../src/main/cli/usage';
import { UsageError } from '../../../src/main/cli/usage-error';

/** Each command line the usage shows, as its name: a line's first words, and those after each " | " between lines. */
function namesInUsage(usage: string): string[] {
  const entries = usage
    .split('\n')
    .slice(1)
    // An entry starts a line indented by two; a deeper indent continues the entry above.
    .filter((line) => /^ {2}\S/.test(line))
    .flatMap((line) => line.trim().split(' | '))
    // Alternatives inside an entry's brackets (`[--preview | --no-post]`) are flags, not command lines.
    .filter((entry) => /^[a-z]/.test(entry));
  return entries.map((entry) => {
    const [command = '', second = ''] = entry.split(/\s+/);
    const takesSubcommand = Object.hasOwn(COMMANDS, command) && COMMANDS[command as keyof typeof COMMANDS].length > 0;
    return takesSubcommand ? `${command} ${second}` : command;
  });
}

const listed = Object.entries(COMMANDS).flatMap(([command, subcommands]) =>
  subcommands.length === 0 ? [command] : subcommands.map((subcommand) => `${command} ${subcommand}`),
);

describe("the CLI's command list and its usage", () => {
  it('passes the early check for every command line the usage shows, by the same name', () => {
    const shown = namesInUsage(USAGE);
    expect(shown.length).toBeGreaterThan(30);
    for (const name of shown) expect(checkCommandName(name.split(' '))).toBe(name);
  });

  it('shows every command and subcommand of the list', () => {
    expect(new Set(namesInUsage(USAGE))).toEqual(new Set(listed));
  });

  it('would catch a usage line naming a command the list does not have, and a command it leaves out', () => {
    const extra = `${USAGE}\n  wallets archive NAME`;
    expect(() => namesInUsage(extra).forEach((name) => checkCommandName(name.split(' ')))).toThrow(UsageError);
    const without = USAGE.split('\n')
      .filter((line) => !line.startsWith('  post-stamped'))
      .join('\n');
    expect(new Set(namesInUsage(without))).not.toEqual(new Set(listed));
  });
});
