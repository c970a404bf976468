/**
 * The local service, in-process: `startService` opens (and on first use bootstraps) the database, serves
 * the API over loopback and returns the same info the CLI prints. The desktop app and the tests embed it.
 */
import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { generateEncryptionKeyPair, type ApiKeyCurve } from '../shared/crypto/keys';
import { QkError } from '../shared/errors';
import type { AsyncStampVerifier, StampVerifier } from '../shared/crypto/stamp';
import { Enclave, loadServiceSecret } from './enclave';
import { PolicyPool } from './authorize/policy-pool';
import { apiKeyStampFormat } from './auth/authenticate';
import { createOidcVerifier, type TrustedIssuer } from './auth/oidc';
import { webAuthnStampFormat } from './auth/webauthn-stamp';
import { createThreadPoolStampVerifier } from '../node/stamp-backend';
import { bootstrap, ENCLAVE_SIGNING_KEY } from './bootstrap';
import { SandboxClock } from './clock';
import { loadSeedFile } from './seed/file';
import { placeServiceSecret, readStateFile, writeStateFile } from './state-file';
import { SandboxSnapshots } from './snapshots';
import { families } from './families';
import { credentialsFamily } from './families/credentials';
import { eraseExpiredImportTargets, IMPORT_TARGET_SWEEP_MS } from './families/export-import';
import { identityFamilies } from './families/identity';
import { invitationsFamily } from './families/invitations';
import { otpAuthFamily } from './families/otp-auth';
import { broadcastingFamily } from './families/broadcasting';
import { sendTransactionsFamily, type RpcNodes } from './families/send-transactions';
import { checkTokens, walletDataFamily } from './families/wallet-data';
import { ensureLoginSigningKeys, sessionsFamily } from './families/sessions';
import { webhooksFamily } from './families/webhooks';
import { registerAuthProxy } from './proxy';
import { restrictOutboxToOwner } from './proxy/outbox';
import { buildServer, type HttpRoute, type TlsOptions } from './server/app';
import { registerClockRoute } from './server/clock-route';
import { registerSnapshotRoutes } from './server/snapshot-routes';
import { allowedHostNames, DEFAULT_HOST, isLoopbackAddress } from './server/host-check';
import type { RequestLogEntry } from './server/request-log';
import { buildRouteTable } from './server/routes';
import { registerWebhookRoutes } from './server/webhooks-route';
import { Store } from './store';
import { WebhookDeliveries } from './webhooks/deliveries';
import { SendStatusWebhooks } from './webhooks/send-statuses';
import { BalanceWebhooks } from './webhooks/balances';
import { ensureWebhookSigningKey } from './webhooks/signing-key';

export interface ServiceInfo {
  baseUrl: string;
  authProxyUrl: string;
  organizationId: string;
  rootUserId: string;
  authProxyConfigId: string;
  /** Uncompressed P-256 public key, 130 hex. */
  enclaveSignerPublicKey: string;
  /** Verifies session JWTs (Turnkey's notarizer key), uncompressed P-256, 130 hex. */
  sessionSignerPublicKey: string;
  /** Verifies OTP verification tokens and OTP target bundles (Turnkey's TLS-fetcher key), 130 hex. */
  otpTokenSignerPublicKey: string;
  /** SHA-256 of the DER of the root certificate the boot proof's attestation chains to, lowercase hex. */
  attestationRootFingerprint: string;
}

export interface ServiceOptions {
  /** Database file, or `:memory:`. */
  db: string;
  host?: string;
  /**
   * Host names requests may name in their Host header besides the loopback names and the bound address (for a
   * service reached through another name); anything else is refused, against DNS rebinding.
   */
  allowedHosts?: readonly string[];
  /** 0 picks a free port. */
  port?: number;
  rootPublicKeys?: readonly { publicKey: string; curve: ApiKeyCurve }[];
  /** Milliseconds since the epoch; injected so tests can move time. */
  now?: () => number;
  log?: (line: string) => void;
  /** Told of every request once it is answered (docs/sandbox.md#logs); requests are not logged without it. */
  requestLog?: (entry: RequestLogEntry) => void;
  /** Signature verification backend (defaults to node:crypto on libuv's thread pool, with cached keys). */
  stampVerifier?: StampVerifier | AsyncStampVerifier;
  /** OIDC issuers whose tokens oauth_login and OAuth providers accept (none by default). */
  oidcIssuers?: readonly TrustedIssuer[];
  /** File OTP codes and email credential bundles are appended to; default `<db>.otp-outbox.jsonl`. */
  otpOutbox?: string;
  /** CAIP-2 chain id → JSON-RPC URL of the node eth_send_transaction broadcasts to (docs/sandbox.md#sending-transactions). */
  rpc?: RpcNodes;
  /**
   * The most an Ethereum send may cost in fees (wei) when the node filled its gas limit or fee; 10^17 by default
   * (docs/sandbox.md#sending-transactions).
   */
  maxNodeFeeWei?: bigint;
  /**
   * CAIP-2 chain id → ERC-20 contracts whose balances the Sandbox reports and follows, each chain one `rpc` names
   * (`--token`, docs/sandbox.md#wallet-data).
   */
  tokens?: Readonly<Record<string, readonly string[]>>;
  /**
   * Supplies the secret sealed wallets and keys are encrypted under, for embedders that keep it elsewhere (the app
   * keeps it in the OS keychain); told whether the database already holds sealed data, so it can refuse to make up
   * a new secret for it. Default: the file `<db>.service-secret`, created on first use.
   */
  serviceSecret?: (databaseHoldsSealedData: boolean) => Promise<ServiceSecret>;
  /**
   * A seed file (YAML or JSON) a new database is created from instead of the default root organization; a database
   * created from it starts again with it, any other is refused (docs/sandbox.md#seed-files).
   */
  seed?: string;
  /** Lets a root quorum member move the Sandbox's clock forward (docs/sandbox.md#the-clock); off by default. */
  clockControl?: boolean;
  /** Serve HTTPS with this certificate and key (PEM); required to bind beyond loopback unless `allowPlaintext`. */
  tls?: TlsOptions;
  /**
   * Serve plain HTTP on a non-loopback address anyway: for a container whose port is published to the host's
   * loopback only (docs/sandbox.md#teams-tls).
   */
  allowPlaintext?: boolean;
  /** Worker threads that sign (docs/service.md#signing-workers); one per core by default. */
  signingWorkers?: number;
  /** A state file written by `dumpState`: a new database starts as it holds (docs/sandbox.md#state-files). */
  loadState?: string;
  /** Where the whole state is written when the service stops (docs/sandbox.md#state-files). */
  dumpState?: string;
  /**
   * Webhook endpoints may name any host; by default only this machine's loopback (`--webhook-allow-any-host`,
   * docs/sandbox.md#webhooks).
   */
  webhookAllowAnyHost?: boolean;
}

export interface ServiceSecret {
  /** 32 random bytes. */
  secret: Uint8Array;
  createdAtMs: number;
}

export interface RunningService {
  info: ServiceInfo;
  store: Store;
  /** Every route the server answers: the operation table's, the auth proxy's and the Sandbox's own (scripts/api-coverage.ts). */
  httpRoutes: readonly HttpRoute[];
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

/** Where the service keeps its secret by default: beside the database. */
export function serviceSecretFileOf(db: string): string {
  return `${db}.service-secret`;
}

/** Reads an existing secret file (see `serviceSecretFileOf`), e.g. to move the secret somewhere safer. */
export function readServiceSecretFile(file: string): ServiceSecret {
  return loadServiceSecret(file, true);
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const clock = new SandboxClock(options.now ?? Date.now, options.clockControl === true);
  const { now } = clock;
  const log = options.log ?? ((line: string) => console.error(line));
  if (options.seed !== undefined && (options.rootPublicKeys ?? []).length > 0) {
    throw new QkError('CONFIG_INVALID', 'a seed file declares the root users and their keys; give --seed or --root-public-key, not both');
  }
  const bindHost = options.host ?? DEFAULT_HOST;
  if (!isLoopbackAddress(bindHost) && options.tls === undefined && options.allowPlaintext !== true) {
    throw new QkError(
      'CONFIG_INVALID',
      `${bindHost} is not a loopback address: serving beyond this machine needs TLS (--tls-cert FILE --tls-key FILE), or --allow-plaintext where the network in between is yours alone (a container's port published to loopback)`,
      { host: bindHost },
    );
  }
  const seed = options.seed === undefined ? undefined : loadSeedFile(options.seed);
  const tokens = checkTokens(options.tokens ?? {}, options.rpc ?? {});
  if (options.loadState !== undefined && options.serviceSecret !== undefined) {
    throw new QkError('CONFIG_INVALID', 'a state file brings its own service secret: --load-state cannot be used with a secret kept elsewhere');
  }
  if (options.dumpState !== undefined) refuseUnwritableFolder(options.dumpState);
  const state = options.loadState === undefined ? undefined : readStateFile(options.loadState);
  const store = Store.open(options.db, state?.image);
  try {
    if (state !== undefined) {
      placeServiceSecret(serviceSecretFileOf(store.path), state.serviceSecret);
      // The records loaded are no newer than the state's time, which the clock does not go back behind.
      clock.returnTo(Math.max(0, state.nowMs - clock.wall()));
    }
    const holdsSealedData = store.read.holdsSealedData();
    const serviceSecret =
      options.serviceSecret === undefined
        ? loadServiceSecret(serviceSecretFileOf(store.path), holdsSealedData)
        : await options.serviceSecret(holdsSealedData);
    // The enclave exists before the bootstrap so that a seed's wallets and keys are made in the same transaction.
    const signingKey = store.read.serviceKeys.get(ENCLAVE_SIGNING_KEY) ?? generateEncryptionKeyPair();
    const enclave = new Enclave({
      signingKey,
      serviceSecret: serviceSecret.secret,
      secretCreatedAtMs: serviceSecret.createdAtMs,
      ...(options.signingWorkers === undefined ? {} : { signingWorkers: options.signingWorkers }),
    });
    const boot = await bootstrap(store, {
      rootPublicKeys: options.rootPublicKeys ?? [],
      now: now(),
      newId: randomUUID,
      rootKeyFile: `${store.path}.root-api-key.json`,
      enclaveSigningKey: { publicKey: signingKey.publicKey, privateKey: signingKey.privateKey },
      ...(seed === undefined ? {} : { seed: { seed, enclave } }),
    });
    if (boot.generatedRootKey !== undefined) {
      log(`generated a P-256 root API key; its key pair is in ${boot.generatedRootKey.path}`);
    }
    const loginKeys = await ensureLoginSigningKeys(store, now());
    const webhookSigningKey = await ensureWebhookSigningKey(store, now());
    const webhookDeliveries = new WebhookDeliveries({
      store: store.read,
      signingKey: webhookSigningKey,
      wall: clock.wall,
      log,
      ...(options.requestLog === undefined ? {} : { requestLog: options.requestLog }),
    });
    const sendStatusWebhooks = new SendStatusWebhooks({
      store: store.read,
      rpc: options.rpc ?? {},
      deliveries: webhookDeliveries,
      wall: clock.wall,
      log,
    });
    const balanceWebhooks = new BalanceWebhooks({ store: store.read, rpc: options.rpc ?? {}, tokens, deliveries: webhookDeliveries, log });
    await eraseExpiredImportTargets(store, now());
    const oidc = createOidcVerifier({ issuers: options.oidcIssuers ?? [], now: () => new Date(now()) });
    const outboxFile = options.otpOutbox ?? `${store.path}.otp-outbox.jsonl`;
    restrictOutboxToOwner(outboxFile);
    const servedFamilies = [
      ...families,
      ...identityFamilies({ oidc }),
      sessionsFamily({ oidc, outboxFile }),
      otpAuthFamily({ outboxFile }),
      invitationsFamily({ outboxFile }),
      credentialsFamily({ oidc }),
      sendTransactionsFamily(options.rpc ?? {}, options.maxNodeFeeWei),
      broadcastingFamily(options.rpc ?? {}, options.maxNodeFeeWei),
      walletDataFamily(options.rpc ?? {}, tokens),
      webhooksFamily(webhookDeliveries, sendStatusWebhooks, {
        allowAnyHost: options.webhookAllowAnyHost === true,
        balanceChains: balanceWebhooks.watchedChains,
      }),
    ];
    // Started on the first decision too costly for the event loop; closed with the service.
    const policyWorkers = new PolicyPool();
    const deps = {
      store,
      stampFormats: [apiKeyStampFormat(options.stampVerifier ?? createThreadPoolStampVerifier()), webAuthnStampFormat(store)],
      enclave,
      now,
      newId: randomUUID,
      log,
      hooks: servedFamilies.flatMap((family) => family.hooks ?? []),
      // Clients stamp timestampMs by their own clock, which does not move with the Sandbox's.
      timestampClock: clock.wall,
      policyWorkers,
    };
    const routes = buildRouteTable(servedFamilies);
    const snapshots = new SandboxSnapshots({ store, clock, forgetCachedRows: () => enclave.forgetSigningKeys(), newId: randomUUID });
    const httpRoutes: HttpRoute[] = [];
    const app = buildServer(deps, routes, {
      onRoute: (route) => httpRoutes.push(route),
      extraRoutes: (server) => {
        registerAuthProxy(server, { store, oidc, enclave, outboxFile, now, newId: randomUUID });
        registerSnapshotRoutes(server, { snapshots, clock, store, stampFormats: deps.stampFormats });
        registerClockRoute(server, { clock, store, stampFormats: deps.stampFormats });
        registerWebhookRoutes(server, { store, stampFormats: deps.stampFormats, now, signingKey: webhookSigningKey, deliveries: webhookDeliveries });
      },
      allowedHostNames: allowedHostNames(bindHost, options.allowedHosts ?? []),
      ...(options.tls === undefined ? {} : { tls: options.tls }),
      ...(options.requestLog === undefined ? {} : { requestLog: options.requestLog }),
    });
    await listenOn(app, bindHost, options.port ?? 0);
    // Once it serves: a start refused after seeding (a port in use) must not read as a seeded, running Sandbox.
    if (seed !== undefined) log(`seeded from ${seed.file} (${seed.fingerprint})`);
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const baseUrl = `${options.tls === undefined ? 'http' : 'https'}://${host}:${address.port}`;
    const importTargetSweep = setInterval(() => {
      eraseExpiredImportTargets(store, now()).catch((error: unknown) => {
        log(`could not erase the keys of expired import targets: ${error instanceof Error ? error.message : String(error)}`);
      });
    }, IMPORT_TARGET_SWEEP_MS);
    // The sweep alone must not keep a process alive that has nothing else to do.
    importTargetSweep.unref();
    await balanceWebhooks.start();
    let closing: Promise<void> | undefined;
    return {
      info: {
        baseUrl,
        authProxyUrl: baseUrl,
        organizationId: boot.organizationId,
        rootUserId: boot.rootUserId,
        authProxyConfigId: boot.authProxyConfigId,
        enclaveSignerPublicKey: boot.enclaveSigningKey.publicKey,
        ...loginKeys,
        attestationRootFingerprint: enclave.attestationRootFingerprint,
      },
      store,
      httpRoutes,
      close() {
        clearInterval(importTargetSweep);
        snapshots.clear();
        closing ??= app.close().then(async () => {
          // Once no request is left, before anything closes; its failure is thrown once the rest is closed.
          const dumped = options.dumpState === undefined ? undefined : dumpState(options.dumpState, store, serviceSecret, now());
          dumped?.catch(() => undefined);
          // After the requests: the last of them may have published an event.
          sendStatusWebhooks.close();
          await balanceWebhooks.close();
          await webhookDeliveries.close();
          await Promise.all([enclave.close(), policyWorkers.close()]);
          await store.close();
          await dumped;
        });
        return closing;
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Writes the state file `file` from the database as it is now and the secret its wallets are sealed under. */
async function dumpState(file: string, store: Store, serviceSecret: ServiceSecret, nowMs: number): Promise<void> {
  writeStateFile(file, { image: await store.snapshot(), serviceSecret, nowMs });
}

/** Refused at the start rather than lost at the stop: the folder `file` is to be written in must exist and be writable. */
function refuseUnwritableFolder(file: string): void {
  try {
    accessSync(dirname(resolve(file)), constants.W_OK);
  } catch (error) {
    throw new QkError('CONFIG_INVALID', `--dump-state ${file}: its folder cannot be written (${(error as Error).message})`, { file });
  }
}

/** Listens, naming a taken port as PORT_IN_USE so a caller that asked for a fixed one can choose another. */
async function listenOn(app: Pick<ReturnType<typeof buildServer>, 'listen'>, host: string, port: number): Promise<void> {
  try {
    await app.listen({ host, port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new QkError('PORT_IN_USE', `port ${port} on ${host} is already in use by another program`, { host, port });
    }
    throw error;
  }
}
