/**
 * The embedded local service: its database lives in the app's data dir, its root user holds the app's own keychain
 * key "sandbox" (generated on first start), its service secret is in the OS keychain too, and the "Sandbox" profile
 * points at it, pinning its enclave signer.
 */
import { join } from 'node:path';
import { serviceSecretFileOf, startService, type RunningService, type ServiceInfo, type ServiceOptions } from '../../service';
import { QkError } from '../../shared/errors';
import type { Keychain } from '../keychain/keychain';
import type { SecretStore } from '../keychain/secret-store';
import type { Profile, Profiles } from '../profiles/profiles';
import { sandboxServiceSecret } from './service-secret';

export const SANDBOX_KEY_NAME = 'sandbox';
export const SANDBOX_PROFILE_NAME = 'Sandbox';
export const SANDBOX_DB_FILE = 'sandbox.db';

export interface SandboxOptions {
  dataDir: string;
  keychain: Pick<Keychain, 'getApiKeyPublic' | 'generateApiKey'>;
  /** The OS keychain store the service secret is kept in (the keychain's own). */
  secrets: SecretStore;
  profiles: Profiles;
  /** Where the service writes its log lines. */
  log?: (line: string) => void;
  now?: () => number;
  start?: (options: ServiceOptions) => Promise<RunningService>;
}

export interface RunningSandbox {
  info: ServiceInfo;
  profile: Profile;
}

export class Sandbox {
  private readonly options: SandboxOptions;
  private running: RunningService | undefined;
  private starting: Promise<RunningSandbox> | undefined;

  constructor(options: SandboxOptions) {
    this.options = options;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Starts the service (once; later calls share the first start) and brings the Sandbox profile up to date. */
  start(): Promise<RunningSandbox> {
    this.starting ??= this.startOnce().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  /** Stops the service; in-flight requests finish first. */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    this.starting = undefined;
    if (running === undefined) return;
    await running.close();
  }

  private async startOnce(): Promise<RunningSandbox> {
    const { dataDir, keychain, secrets, profiles, log, now, start = startService } = this.options;
    const key = await this.sandboxKey(keychain);
    const db = join(dataDir, SANDBOX_DB_FILE);
    const service = await start({
      db,
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
      const fields = {
        name: SANDBOX_PROFILE_NAME,
        kind: 'sandbox' as const,
        baseUrl: info.baseUrl,
        authProxyUrl: info.authProxyUrl,
        authProxyConfigId: info.authProxyConfigId,
        organizationId: info.organizationId,
        apiKeyName: SANDBOX_KEY_NAME,
        enclaveSignerPublicKey: info.enclaveSignerPublicKey,
      };
      const existing = (await profiles.list()).find((profile) => profile.kind === 'sandbox' && profile.name === SANDBOX_PROFILE_NAME);
      const profile = existing === undefined ? await profiles.add(fields) : await profiles.update(existing.id, fields);
      // First run: the sandbox is the default profile.
      if ((await profiles.getActive()) === undefined) await profiles.setActive(profile.id);
      this.running = service;
      return { info, profile };
    } catch (error) {
      await service.close();
      throw error;
    }
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
