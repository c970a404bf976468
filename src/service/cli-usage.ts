/**
 * What `quorumkey-sandbox` says about its command line. Loaded before anything else (cli.ts), so it imports nothing
 * heavier than the default host.
 */
import { DEFAULT_HOST } from './server/host-check';

export const SANDBOX_BIN = 'quorumkey-sandbox';

export const USAGE = `usage: ${SANDBOX_BIN} [--host ${DEFAULT_HOST}] [--allowed-host NAME (Host header name to accept besides loopback)]... [--port 0] [--db FILE|:memory:] [--root-public-key HEX[:p256|secp256k1|ed25519]]... [--seed FILE (YAML or JSON: the organizations a new database starts with)] [--clock-control (let root users move the clock forward)] [--load-state FILE (start a new database from a --dump-state file)] [--dump-state FILE (write the whole state there on stop)] [--tls-cert FILE --tls-key FILE (PEM; needed beyond loopback)] [--allow-plaintext (HTTP beyond loopback, e.g. in a container)] [--otp-outbox FILE (default: beside the db)] [--oidc-jwks ISSUER=FILE]... [--signing-workers N (default: one per core)] [--rpc CAIP2=URL (node to send that chain's transactions to, e.g. eip155:31337=http://127.0.0.1:8545)]... [--token CAIP2=ADDRESS (ERC-20 whose balances are reported, on a chain --rpc names)]... [--max-node-fee WEI (most fee a send may cost when the node filled its gas or fee; default 10^17)] [--webhook-allow-any-host (webhook endpoints beyond loopback)] [--log-level info|warn|error (info: a line per request; warn: refusals and failures; error: failures)] [--log-format text|json] [--version] [--help]`;

/** Exit codes: 0 clean stop, 1 failed to start, 2 bad command line. */
export const EXIT_START_FAILED = 1;
export const EXIT_USAGE = 2;

export function usageError(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(EXIT_USAGE);
}
