/**
 * The Sandbox's command line (`quorumkey-sandbox`, or `npm run service --` in a checkout; flags in cli-usage.ts and
 * docs/sandbox.md). Requests must name a loopback host or the bound address in their Host header; `--allowed-host`
 * adds the names a service bound beyond loopback is reached by. Prints one JSON line (ServiceInfo) on stdout; logs go
 * to stderr. SIGTERM/SIGINT shut down cleanly. Started by main with --parent-ipc (the app's Sandbox in its own
 * process), it takes its options from main instead.
 *
 * `--help` and `--version` answer before the service and its libraries load (cli-run.ts, imported after).
 */
import { USAGE } from './cli-usage';

/** Written in by the package's build (vite.sandbox.config.ts); a run from a checkout has none. */
declare const __QUORUMKEY_SANDBOX_VERSION__: string | undefined;

const args = process.argv.slice(2);
if (args.includes('--help')) {
  process.stdout.write(`${USAGE}\n`);
} else if (args.includes('--version')) {
  process.stdout.write(`${typeof __QUORUMKEY_SANDBOX_VERSION__ === 'string' ? __QUORUMKEY_SANDBOX_VERSION__ : 'unreleased (run from a checkout)'}\n`);
} else {
  void import('./cli-run').then(({ runCli }) => runCli(args));
}
