/**
 * The set-up of the test files that run the CLI against the Sandbox profile: a data dir as the app's first start leaves
 * it (the Sandbox profile, its API key in the OS keychain, which the CLI opens as the app does) with a wallet named
 * `treasury`, made once per file. The Sandbox is stopped between uses, since each CLI command starts it over the same
 * database.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../src/main/client/api-client';
import { DEFAULT_KEYCHAIN_SERVICE, Keychain } from '../../src/main/keychain/keychain';
import { OsSecretStore, type SecretStore } from '../../src/main/keychain/secret-store';
import { Profiles } from '../../src/main/profiles/profiles';
import { Sandbox, type RunningSandbox } from '../../src/main/sandbox/sandbox';
import { Stamper } from '../../src/main/stamper/stamper';
import type { WalletAccountParams } from '../../src/shared/api';

export const ETHEREUM_ACCOUNT: WalletAccountParams = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
};

export interface SandboxDataDir {
  dataDir: string;
  keychain: Keychain;
  profiles: Profiles;
  /** The first start's service info and Sandbox profile. */
  sandbox: RunningSandbox;
  /** The `treasury` wallet's addresses, one per account asked for. */
  addresses: string[];
  /** Runs `use` with the Sandbox started (on the port it had before, so the profile still reaches it), then stops it. */
  whileRunning<T>(use: (client: ApiClient) => Promise<T>): Promise<T>;
  /** Adds the hosted profile an air-gapped machine would have: the same organization and key; its URL is never reached. */
  addAirGappedProfile(): Promise<void>;
  /** Removes the profiles, the keychain's API and encryption keys, and the folder. */
  remove(): Promise<void>;
}

export async function prepareSandboxDataDir(
  prefix: string,
  {
    accounts = [ETHEREUM_ACCOUNT],
    secrets = new OsSecretStore(DEFAULT_KEYCHAIN_SERVICE),
  }: { accounts?: WalletAccountParams[]; secrets?: SecretStore } = {},
): Promise<SandboxDataDir> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const profiles = new Profiles({ dataDir });
  const keychain = new Keychain({ dataDir, store: secrets, profiles });
  const stamper = new Stamper(keychain);

  async function whileRunning<T>(use: (client: ApiClient, running: RunningSandbox) => Promise<T>): Promise<T> {
    const sandbox = new Sandbox({ dataDir, keychain, secrets, profiles, log: () => undefined });
    const running = await sandbox.start();
    try {
      return await use(new ApiClient({ profile: running.profile, stamper }), running);
    } finally {
      await sandbox.stop();
    }
  }

  const { sandbox, addresses } = await whileRunning(async (client, running) => {
    const created = await client.submit('create_wallet', { walletName: 'treasury', accounts });
    if (created.state !== 'completed') throw new Error(`create_wallet is ${created.state}`);
    return { sandbox: running, addresses: created.result.addresses };
  });

  return {
    dataDir,
    keychain,
    profiles,
    sandbox,
    addresses,
    whileRunning: (use) => whileRunning((client) => use(client)),
    addAirGappedProfile: async () => {
      await profiles.add({
        name: 'air-gapped',
        kind: 'hosted',
        baseUrl: 'https://unreachable.invalid',
        organizationId: sandbox.info.organizationId,
        apiKeyName: sandbox.profile.apiKeyName,
        enclaveSignerPublicKey: sandbox.info.enclaveSignerPublicKey,
      });
    },
    remove: async () => {
      for (const profile of await profiles.list()) await profiles.remove(profile.id);
      for (const { name } of await keychain.listEncryptionKeys()) await keychain.deleteEncryptionKey(name);
      for (const { name } of await keychain.listApiKeys()) await keychain.deleteApiKey(name);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
