/**
 * The local service, in-process: `startService` opens (and on first use bootstraps) the database, serves
 * the API over loopback and returns the same info the CLI prints. The desktop app and the tests embed it.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { ApiKeyCurve } from '../shared/crypto/keys';
import type { AsyncStampVerifier, StampVerifier } from '../shared/crypto/stamp';
import { Enclave, loadServiceSecret } from './enclave';
import { apiKeyStampFormat } from './auth/authenticate';
import { createOidcVerifier, type TrustedIssuer } from './auth/oidc';
import { webAuthnStampFormat } from './auth/webauthn-stamp';
import { createThreadPoolStampVerifier } from '../node/stamp-backend';
import { bootstrap } from './bootstrap';
import { families } from './families';
import { credentialsFamily } from './families/credentials';
import { eraseExpiredImportTargets, IMPORT_TARGET_SWEEP_MS } from './families/export-import';
import { identityFamilies } from './families/identity';
import { invitationsFamily } from './families/invitations';
import { otpAuthFamily } from './families/otp-auth';
import { ensureLoginSigningKeys, sessionsFamily } from './families/sessions';
import { registerAuthProxy } from './proxy';
import { restrictOutboxToOwner } from './proxy/outbox';
import { buildServer } from './server/app';
import { allowedHostNames } from './server/host-check';
import { buildRouteTable } from './server/routes';
import { Store } from './store';

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
  /** Signature verification backend (defaults to node:crypto on libuv's thread pool, with cached keys). */
  stampVerifier?: StampVerifier | AsyncStampVerifier;
  /** OIDC issuers whose tokens oauth_login and OAuth providers accept (none by default). */
  oidcIssuers?: readonly TrustedIssuer[];
  /** File OTP codes and email credential bundles are appended to; default `<db>.otp-outbox.jsonl`. */
  otpOutbox?: string;
  /**
   * Supplies the secret sealed wallets and keys are encrypted under, for embedders that keep it elsewhere (the app
   * keeps it in the OS keychain); told whether the database already holds sealed data, so it can refuse to make up
   * a new secret for it. Default: the file `<db>.service-secret`, created on first use.
   */
  serviceSecret?: (databaseHoldsSealedData: boolean) => Promise<ServiceSecret>;
  /** Worker threads that sign (docs/service.md#signing-workers); one per core by default. */
  signingWorkers?: number;
}

export interface ServiceSecret {
  /** 32 random bytes. */
  secret: Uint8Array;
  createdAtMs: number;
}

export interface RunningService {
  info: ServiceInfo;
  store: Store;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export const DEFAULT_HOST = '127.0.0.1';

/** Where the service keeps its secret by default: beside the database. */
export function serviceSecretFileOf(db: string): string {
  return `${db}.service-secret`;
}

/** Reads an existing secret file (see `serviceSecretFileOf`), e.g. to move the secret somewhere safer. */
export function readServiceSecretFile(file: string): ServiceSecret {
  return loadServiceSecret(file, true);
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const store = Store.open(options.db);
  try {
    const boot = await bootstrap(store, {
      rootPublicKeys: options.rootPublicKeys ?? [],
      now: now(),
      newId: randomUUID,
      rootKeyFile: `${store.path}.root-api-key.json`,
    });
    if (boot.generatedRootKey !== undefined) {
      log(`generated a P-256 root API key; its key pair is in ${boot.generatedRootKey.path}`);
    }
    const holdsSealedData = store.read.holdsSealedData();
    const serviceSecret =
      options.serviceSecret === undefined
        ? loadServiceSecret(serviceSecretFileOf(store.path), holdsSealedData)
        : await options.serviceSecret(holdsSealedData);
    const enclave = new Enclave({
      signingKey: boot.enclaveSigningKey,
      serviceSecret: serviceSecret.secret,
      secretCreatedAtMs: serviceSecret.createdAtMs,
      ...(options.signingWorkers === undefined ? {} : { signingWorkers: options.signingWorkers }),
    });
    const loginKeys = await ensureLoginSigningKeys(store, now());
    await eraseExpiredImportTargets(store, now());
    const oidc = createOidcVerifier({ issuers: options.oidcIssuers ?? [], now: () => new Date(now()) });
    const outboxFile = options.otpOutbox ?? `${store.path}.otp-outbox.jsonl`;
    restrictOutboxToOwner(outboxFile);
    const servedFamilies = [...families, ...identityFamilies({ oidc }), sessionsFamily({ oidc, outboxFile }), otpAuthFamily({ outboxFile }), invitationsFamily({ outboxFile }), credentialsFamily({ oidc })];
    const deps = {
      store,
      stampFormats: [apiKeyStampFormat(options.stampVerifier ?? createThreadPoolStampVerifier()), webAuthnStampFormat(store)],
      enclave,
      now,
      newId: randomUUID,
      log,
      hooks: servedFamilies.flatMap((family) => family.hooks ?? []),
    };
    const routes = buildRouteTable(servedFamilies);
    const bindHost = options.host ?? DEFAULT_HOST;
    const app = buildServer(deps, routes, {
      extraRoutes: (server) => registerAuthProxy(server, { store, oidc, enclave, outboxFile, now, newId: randomUUID }),
      allowedHostNames: allowedHostNames(bindHost, options.allowedHosts ?? []),
    });
    await app.listen({ host: bindHost, port: options.port ?? 0 });
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const baseUrl = `http://${host}:${address.port}`;
    const importTargetSweep = setInterval(() => {
      eraseExpiredImportTargets(store, now()).catch((error: unknown) => {
        log(`could not erase the keys of expired import targets: ${error instanceof Error ? error.message : String(error)}`);
      });
    }, IMPORT_TARGET_SWEEP_MS);
    // The sweep alone must not keep a process alive that has nothing else to do.
    importTargetSweep.unref();
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
      },
      store,
      close() {
        clearInterval(importTargetSweep);
        closing ??= app.close().then(async () => {
          await enclave.close();
          return store.close();
        });
        return closing;
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
