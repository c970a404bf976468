/**
 * The Sandbox package's programmatic entry (`import { startSandbox } from 'quorumkey-sandbox'`,
 * docs/sandbox.md#from-code). Importing it starts nothing and writes nothing: the service starts when
 * `startSandbox` is called. The types here are the package's whole public surface: the build declares this file
 * alone (vite.sandbox.config.ts), so it names no type of another module.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { stampPublicKeyOf } from './auth/stamp-public-key';
import { startService } from './index';
import { loadSeedFile } from './seed/file';

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
  /** CAIP-2 chain id → ERC-20 contract addresses whose balances are reported and followed (`--token`), on chains `rpc` names. */
  tokens?: Readonly<Record<string, readonly string[]>>;
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

/** An API key pair the Sandbox keeps on disk. */
export interface SandboxApiKey {
  /** As Turnkey's stampers take it: compressed SEC1 (P-256, secp256k1) or raw (Ed25519), hex. */
  publicKey: string;
  privateKey: string;
  curve: 'p256' | 'secp256k1' | 'ed25519';
  /** The file it is kept in. */
  keyFile: string;
}

export interface RunningSandbox extends SandboxInfo {
  /** The root user's key pair (`rootUserId`'s), unless its private key is held outside the Sandbox. */
  rootApiKey: SandboxApiKey | undefined;
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
    ...(options.tokens === undefined ? {} : { tokens: options.tokens }),
    ...(options.clockControl === undefined ? {} : { clockControl: options.clockControl }),
    ...(options.webhookAllowAnyHost === undefined ? {} : { webhookAllowAnyHost: options.webhookAllowAnyHost }),
    ...(options.otpOutbox === undefined ? {} : { otpOutbox: options.otpOutbox }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.loadState === undefined ? {} : { loadState: options.loadState }),
    ...(options.dumpState === undefined ? {} : { dumpState: options.dumpState }),
  });
  const info: SandboxInfo = service.info;
  return { ...info, rootApiKey: rootApiKeyOf(options.seed, service.store.path), stop: () => service.close() };
}

/**
 * The root user's key pair, where the Sandbox keeps it: the key file of the first API key of the first user of the
 * seed's root quorum, or the pair generated beside the database for a Sandbox started without a seed. Undefined when
 * that user's key is a public key held elsewhere.
 */
function rootApiKeyOf(seedFile: string | undefined, databasePath: string): SandboxApiKey | undefined {
  let keyFile = `${databasePath}.root-api-key.json`;
  if (seedFile !== undefined) {
    const { organization } = loadSeedFile(seedFile).content.document;
    const rootUser = organization.users.find((user) => user.userName === organization.rootQuorum.userNames[0]);
    const held = rootUser?.apiKeys.find((key) => key.keyFile !== undefined)?.keyFile;
    if (held === undefined) return undefined;
    keyFile = resolve(dirname(seedFile), held);
  }
  // A kept database's generated key file may have been removed since; the Sandbox then holds no private key.
  if (!existsSync(keyFile)) return undefined;
  const pair = JSON.parse(readFileSync(keyFile, 'utf8')) as { publicKey: string; privateKey: string; curve: SandboxApiKey['curve'] };
  return { publicKey: stampPublicKeyOf(pair), privateKey: pair.privateKey, curve: pair.curve, keyFile };
}

/** The environment `sandboxGlobalSetup` gives the test run, by variable. */
export interface SandboxEnvironment {
  /** `baseUrl`: what each SDK's base URL is set to. */
  TURNKEY_API_BASE_URL: string;
  /** The root organization. */
  TURNKEY_ORGANIZATION_ID: string;
  /** The root user's API key, as `ApiKeyStamper` takes it (set when the Sandbox holds its private key). */
  TURNKEY_API_PUBLIC_KEY?: string;
  TURNKEY_API_PRIVATE_KEY?: string;
  /** The first line's whole object, as JSON: the enclave's keys, `authProxyConfigId`, `rootUserId`… */
  QUORUMKEY_SANDBOX: string;
}

/**
 * A test runner's global setup (vitest's `globalSetup`, jest's `globalSetup`; docs/sandbox.md#in-a-test-runners-global-setup):
 * starts a Sandbox (on a free port unless `options.port` says otherwise), puts `SandboxEnvironment` into
 * `process.env`, where the runner's workers, started after it, find it, and resolves with the teardown, which stops
 * the Sandbox and takes the variables back out. Vitest calls the function a global setup returns when the run ends;
 * for jest, keep it and call it from `globalTeardown`.
 */
export async function sandboxGlobalSetup(options: SandboxOptions = {}): Promise<() => Promise<void>> {
  const sandbox = await startSandbox(options);
  const { rootApiKey } = sandbox;
  const environment: SandboxEnvironment = {
    TURNKEY_API_BASE_URL: sandbox.baseUrl,
    TURNKEY_ORGANIZATION_ID: sandbox.organizationId,
    ...(rootApiKey === undefined ? {} : { TURNKEY_API_PUBLIC_KEY: rootApiKey.publicKey, TURNKEY_API_PRIVATE_KEY: rootApiKey.privateKey }),
    // The first line's fields: stop() is no JSON, and the key pair has variables of its own.
    QUORUMKEY_SANDBOX: JSON.stringify(sandbox, (key, value: unknown) => (key === 'rootApiKey' ? undefined : value)),
  };
  Object.assign(process.env, environment);
  return async () => {
    for (const name of Object.keys(environment)) Reflect.deleteProperty(process.env, name);
    await sandbox.stop();
  };
}
