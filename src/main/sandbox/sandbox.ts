/**
 * The embedded local service: its database lives in the app's data dir, its root user holds the app's own keychain
 * key "sandbox" (generated on first start), its service secret is in the OS keychain too, and the "Sandbox" profile
 * points at it, pinning its enclave signer. The app runs it in its own process (service-process.ts) and restarts it
 * if that process dies.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { serviceSecretFileOf, startService, type ServiceInfo, type ServiceSecret } from '../../service';
import type { ApiKeyCurve } from '../../shared/crypto/keys';
import { QkError, toQkError } from '../../shared/errors';
import type { Keychain } from '../keychain/keychain';
import type { SecretStore } from '../keychain/secret-store';
import type { Profile, Profiles } from '../profiles/profiles';
import { sandboxServiceSecret } from './service-secret';

export const SANDBOX_KEY_NAME = 'sandbox';
export const SANDBOX_PROFILE_NAME = 'Sandbox';
export const SANDBOX_DB_FILE = 'sandbox.db';

/** Restarts tried one after another when the service dies, before the Sandbox is reported failed. */
const MAX_RESTART_ATTEMPTS = 3;
const FIRST_RESTART_DELAY_MS = 250;

export interface SandboxServiceOptions {
  db: string;
  /** The loopback port to listen on; 0 picks a free one. */
  port: number;
  /** Supplies the secret its sealed data is encrypted under (kept in the OS keychain, reached through main). */
  serviceSecret: (databaseHoldsSealedData: boolean) => Promise<ServiceSecret>;
  rootPublicKeys: readonly { publicKey: string; curve: ApiKeyCurve }[];
  log?: (line: string) => void;
  now?: () => number;
}

/** A started service, in this process or its own. */
export interface SandboxService {
  info: ServiceInfo;
  /** Stops it; in-flight requests finish first. */
  stop(): Promise<void>;
  /** Tells a service in another process that `now` moved (tests move time); one in this process reads `now` itself. */
  syncClock?(): void;
  /** Registers what to do when the service ends without being stopped (its process died). */
  onExit?(listener: (reason: string) => void): void;
}

export type StartSandboxService = (options: SandboxServiceOptions) => Promise<SandboxService>;

/** The service in main's own process: what the CLI and most tests use. */
export const startInThisProcess: StartSandboxService = async ({ log, now, ...options }) => {
  const service = await startService({ ...options, ...(log === undefined ? {} : { log }), ...(now === undefined ? {} : { now }) });
  return { info: service.info, stop: () => service.close() };
};

export type SandboxState = 'stopped' | 'starting' | 'running' | 'failed';

export interface SandboxStatus {
  state: SandboxState;
  /** Where it serves, while running. */
  baseUrl: string | undefined;
  /** Why it failed (or why it is restarting). */
  error: string | undefined;
  /** How many times it was restarted after its process died. */
  restarts: number;
  /** Why it serves somewhere other than where it did before (its port was taken), until it stops. */
  notice: string | undefined;
}

export interface SandboxOptions {
  dataDir: string;
  keychain: Pick<Keychain, 'getApiKeyPublic' | 'generateApiKey'>;
  /** The OS keychain store the service secret is kept in (the keychain's own). */
  secrets: SecretStore;
  profiles: Profiles;
  /** Where the service writes its log lines. */
  log?: (line: string) => void;
  now?: () => number;
  /** Where the service runs; in this process by default. */
  start?: StartSandboxService;
  /** Told each time the state `status()` answers changes (starting, running, failed, stopped). */
  onStateChange?: (state: SandboxState) => void;
}

export interface RunningSandbox {
  info: ServiceInfo;
  profile: Profile;
}

export class Sandbox {
  private readonly options: SandboxOptions;
  private running: { service: SandboxService; sandbox: RunningSandbox } | undefined;
  private starting: Promise<RunningSandbox> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private lastError: string | undefined;
  private restarts = 0;
  private notice: string | undefined;
  private reportedState: SandboxState;

  constructor(options: SandboxOptions) {
    this.options = options;
    this.reportedState = this.status().state;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  status(): SandboxStatus {
    const state: SandboxState =
      this.running !== undefined
        ? 'running'
        : this.starting !== undefined || this.restartTimer !== undefined
          ? 'starting'
          : this.lastError !== undefined
            ? 'failed'
            : 'stopped';
    return { state, baseUrl: this.running?.sandbox.info.baseUrl, error: this.lastError, restarts: this.restarts, notice: this.notice };
  }

  /** Starts the service (once; later calls share the first start) and brings the Sandbox profile up to date. */
  start(): Promise<RunningSandbox> {
    if (this.running !== undefined) return Promise.resolve(this.running.sandbox);
    // Asked for now: a restart waiting for its delay is not needed any more.
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.starting ??= this.startOnce().then(
      (sandbox) => {
        this.starting = undefined;
        this.lastError = undefined;
        this.reportState();
        return sandbox;
      },
      (error: unknown) => {
        this.starting = undefined;
        this.lastError = toQkError(error).message;
        this.reportState();
        throw error;
      },
    );
    this.reportState();
    return this.starting;
  }

  /** Stops the service; in-flight requests finish first. A pending restart is called off. */
  async stop(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const starting = this.starting;
    this.starting = undefined;
    // A start in flight is let finish, then stopped, so no service is left behind.
    const running =
      this.running?.service ??
      (await starting?.then(
        () => this.running?.service,
        () => undefined,
      ));
    this.running = undefined;
    this.lastError = undefined;
    this.notice = undefined;
    this.reportState();
    await running?.stop();
  }

  /**
   * Stops the service, deletes its database (every user, policy, wallet and key it held) and starts it afresh with a
   * new organization. The keychain key "sandbox" stays, and becomes the new root user's.
   */
  async reset(): Promise<RunningSandbox> {
    await this.stop();
    const db = join(this.options.dataDir, SANDBOX_DB_FILE);
    // SQLite's write-ahead log and shared memory belong to the database: a new one must not find them.
    for (const file of [db, `${db}-wal`, `${db}-shm`]) await rm(file, { force: true });
    return this.start();
  }

  /** Brings the Sandbox profile back (after it was removed) while the service runs; starts the service otherwise. */
  async restoreProfile(): Promise<RunningSandbox> {
    if (this.running === undefined) return this.start();
    const sandbox = { info: this.running.sandbox.info, profile: await this.syncProfile(this.running.sandbox.info) };
    this.running = { ...this.running, sandbox };
    return sandbox;
  }

  /** Tells a service in its own process that the clock moved (see SandboxService.syncClock). */
  syncClock(): void {
    this.running?.service.syncClock?.();
  }

  private async startOnce(): Promise<RunningSandbox> {
    const key = await this.sandboxKey(this.options.keychain);
    const port = await this.previousPort();
    this.notice = undefined;
    try {
      return await this.serve(key, port);
    } catch (error) {
      if (!(error instanceof QkError && error.code === 'PORT_IN_USE') || port === 0) throw error;
      const sandbox = await this.serve(key, 0);
      this.notice =
        `Port ${port}, where the Sandbox served before, is taken by another program, so it now serves at ` +
        `${sandbox.info.baseUrl}. The Sandbox profile follows it; edit any other profile that points at the old address.`;
      this.report(this.notice);
      return sandbox;
    }
  }

  /**
   * The port the Sandbox profile points at, so a restart (of the service or of the app) keeps the address that other
   * profiles and tools were given; 0 on first run.
   */
  private async previousPort(): Promise<number> {
    const baseUrl = (await this.storedProfile())?.baseUrl;
    if (baseUrl === undefined) return 0;
    const port = Number(URL.parse(baseUrl)?.port);
    return Number.isInteger(port) && port > 0 ? port : 0;
  }

  /** The Sandbox profile as stored, running or not; undefined before its first start (or once removed). */
  async storedProfile(): Promise<Profile | undefined> {
    return (await this.options.profiles.list()).find((profile) => profile.kind === 'sandbox' && profile.name === SANDBOX_PROFILE_NAME);
  }

  private async serve(key: { publicKey: string; curve: ApiKeyCurve }, port: number): Promise<RunningSandbox> {
    const { dataDir, secrets, log, now, start = startInThisProcess } = this.options;
    const db = join(dataDir, SANDBOX_DB_FILE);
    const service = await start({
      db,
      port,
      serviceSecret: (databaseHoldsSealedData) =>
        sandboxServiceSecret({
          store: secrets,
          legacyFile: serviceSecretFileOf(db),
          databaseHoldsSealedData,
          ...(now === undefined ? {} : { now }),
        }),
      rootPublicKeys: [{ publicKey: key.publicKey, curve: key.curve }],
      ...(log === undefined ? {} : { log }),
      ...(now === undefined ? {} : { now }),
    });
    try {
      const { info } = service;
      const sandbox = { info, profile: await this.syncProfile(info) };
      this.running = { service, sandbox };
      service.onExit?.((reason) => this.restartAfterExit(service, reason));
      return sandbox;
    } catch (error) {
      await service.stop();
      throw error;
    }
  }

  /** The Sandbox profile, added or brought up to date with the running service; the active one if none is. */
  private async syncProfile(info: ServiceInfo): Promise<Profile> {
    const { profiles } = this.options;
    const fields = {
      name: SANDBOX_PROFILE_NAME,
      kind: 'sandbox' as const,
      baseUrl: info.baseUrl,
      authProxyUrl: info.authProxyUrl,
      authProxyConfigId: info.authProxyConfigId,
      organizationId: info.organizationId,
      apiKeyName: SANDBOX_KEY_NAME,
      enclaveSignerPublicKey: info.enclaveSignerPublicKey,
      attestationRoot: info.attestationRootFingerprint,
    };
    const existing = await this.storedProfile();
    const profile = existing === undefined ? await profiles.add(fields) : await profiles.update(existing.id, fields);
    // First run: the sandbox is the default profile.
    if ((await profiles.getActive()) === undefined) await profiles.setActive(profile.id);
    return profile;
  }

  /** The service's process died: start a new one (the profile follows its new address), a few times before giving up. */
  private restartAfterExit(service: SandboxService, reason: string): void {
    if (this.running?.service !== service) return;
    this.running = undefined;
    this.lastError = reason;
    this.report(`${reason}; restarting it`);
    const attempt = (number: number) => {
      this.restartTimer = setTimeout(
        () => {
          this.restartTimer = undefined;
          this.start().then(
            () => {
              this.restarts += 1;
              this.report(`the sandbox is running again at ${this.running?.sandbox.info.baseUrl ?? '?'}`);
            },
            (error: unknown) => {
              const message = toQkError(error).message;
              if (number + 1 < MAX_RESTART_ATTEMPTS) {
                this.report(`restarting the sandbox failed (${message}); trying again`);
                attempt(number + 1);
              } else {
                this.report(`the sandbox could not be restarted: ${message}`);
              }
            },
          );
        },
        FIRST_RESTART_DELAY_MS * 2 ** number,
      );
      this.reportState();
    };
    attempt(0);
  }

  private reportState(): void {
    const { state } = this.status();
    if (state === this.reportedState) return;
    this.reportedState = state;
    this.options.onStateChange?.(state);
  }

  private report(line: string): void {
    (this.options.log ?? console.error)(line);
  }

  private async sandboxKey(keychain: SandboxOptions['keychain']) {
    try {
      return await keychain.getApiKeyPublic(SANDBOX_KEY_NAME);
    } catch (error) {
      if (error instanceof QkError && error.code === 'KEY_NOT_FOUND') return keychain.generateApiKey({ name: SANDBOX_KEY_NAME });
      throw error;
    }
  }
}
