/**
 * The Sandbox package's programmatic entry (`import { startSandbox } from 'quorumkey-sandbox'`,
 * docs/sandbox.md#from-code). Importing it starts nothing and writes nothing: the service starts when
 * `startSandbox` is called. The types here are the package's whole public surface: the build declares this file
 * alone (vite.sandbox.config.ts), so it names no type of another module.
 */
import { startService } from './index';

export interface SandboxOptions {
  /** A seed file (YAML or JSON): the organizations a new database starts with (docs/sandbox.md#seed-files). */
  seed?: string;
  /** 0 (the default) picks a free port; `baseUrl` says which. */
  port?: number;
  /** Address to listen on; loopback (127.0.0.1) by default. */
  host?: string;
  /** CAIP-2 chain id → JSON-RPC URL of the node sends go to, e.g. `{ 'eip155:31337': 'http://127.0.0.1:8545' }`. */
  rpc?: Readonly<Record<string, string>>;
  /** The most an Ethereum send may cost in fees (wei) when the node filled its gas or fee; 10^17 by default (`--max-node-fee`). */
  maxNodeFeeWei?: bigint;
  /** Lets a root quorum member move the Sandbox's clock forward (docs/sandbox.md#the-clock). */
  clockControl?: boolean;
  /** Webhook endpoints may name any host, not only loopback (`--webhook-allow-any-host`, docs/sandbox.md#webhooks). */
  webhookAllowAnyHost?: boolean;
  /** Database file; `:memory:` (the default) keeps nothing after `stop()`. */
  db?: string;
  /** File OTP codes and emailed credential bundles are appended to; default beside the database. */
  otpOutbox?: string;
  /** Where the Sandbox's log lines go; stderr by default. */
  log?: (line: string) => void;
  /** A file `dumpState` wrote: the new database starts as it holds (`--load-state`, docs/sandbox.md#state-files). */
  loadState?: string;
  /** Where `stop()` writes the whole state, for a later `loadState` (`--dump-state`). */
  dumpState?: string;
}

/** What the command line prints as its first line. */
export interface SandboxInfo {
  baseUrl: string;
  authProxyUrl: string;
  organizationId: string;
  rootUserId: string;
  authProxyConfigId: string;
  /** Verifies export bundles and signs import targets; uncompressed P-256, 130 hex. */
  enclaveSignerPublicKey: string;
  /** Verifies session JWTs, uncompressed P-256, 130 hex. */
  sessionSignerPublicKey: string;
  /** Verifies OTP verification tokens and OTP target bundles, uncompressed P-256, 130 hex. */
  otpTokenSignerPublicKey: string;
  /** SHA-256 of the root certificate boot proofs chain to, lowercase hex. */
  attestationRootFingerprint: string;
}

export interface RunningSandbox extends SandboxInfo {
  /** Lets in-flight requests finish, then closes the database; the promise settles once it is closed. */
  stop(): Promise<void>;
}

/** Starts a Sandbox in this process; refused (an Error with a `code`) when it cannot start, with nothing left open. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const service = await startService({
    db: options.db ?? ':memory:',
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.rpc === undefined ? {} : { rpc: options.rpc }),
    ...(options.maxNodeFeeWei === undefined ? {} : { maxNodeFeeWei: options.maxNodeFeeWei }),
    ...(options.clockControl === undefined ? {} : { clockControl: options.clockControl }),
    ...(options.webhookAllowAnyHost === undefined ? {} : { webhookAllowAnyHost: options.webhookAllowAnyHost }),
    ...(options.otpOutbox === undefined ? {} : { otpOutbox: options.otpOutbox }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.loadState === undefined ? {} : { loadState: options.loadState }),
    ...(options.dumpState === undefined ? {} : { dumpState: options.dumpState }),
  });
  const info: SandboxInfo = service.info;
  return { ...info, stop: () => service.close() };
}
