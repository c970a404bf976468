/**
 * The `quorumkey` command line (`npm run --silent cli -- <command>`, built by vite.cli.config.ts): the desktop app's
 * services from a terminal, with the same data dir and OS keychain. Exit codes: 0 done, 2 usage error, 1 refused (the
 * reason on stderr).
 *
 * The arguments are read before any command's code is imported: `--help`, a flag the parser refuses and a command the
 * CLI does not have load only the flags, the command names and the usage text; `journal verify` loads only the
 * verifier; every other command's flags are checked (flag-checks.ts) before it loads the app's services (commands.ts).
 */
import { enableCompileCache } from 'node:module';
import { toQkError } from '../../shared/errors';
import { parseCommandLine } from './arguments';
import { checkCommandName } from './command-names';
import { USAGE, USAGE_POINTER } from './usage';
import { UsageError } from './usage-error';

// Most of a command's start is V8 compiling the bundle's megabytes; Node keeps the compiled code in a cache of its own
// (in the OS temp dir, checked against each file's contents), so later starts skip that work.
enableCompileCache();

async function run(argv: string[]): Promise<void> {
  const commandLine = parseCommandLine(argv);
  if (commandLine.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const name = checkCommandName(commandLine.positionals);
  if (name === 'clear-signing test' || name === 'clear-signing refresh') {
    // Reads files only: neither the keychain nor a profile is loaded.
    const { clearSigningCommand } = await import('./clear-signing-command');
    return clearSigningCommand(commandLine);
  }
  if (name === 'journal verify') {
    const { verifyJournalFile } = await import('./journal-verify-command');
    return verifyJournalFile(commandLine);
  }
  const { checkCommandFlags } = await import('./flag-checks');
  checkCommandFlags(name, commandLine);
  const { runCommand } = await import('./commands');
  return runCommand(name, commandLine);
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE_POINTER}`);
    process.exitCode = 2;
  } else {
    const failure = toQkError(error);
    console.error(`${failure.code}: ${failure.message}`);
    process.exitCode = 1;
  }
}
