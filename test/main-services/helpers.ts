/**
 * Operators for the main-process service tests: each has its own data dir and its own OS keychain service name
 * (a real gnome-keyring, see test/support/with-secret-service.sh), so two operators never see each other's keys.
 * The local service is the shared test harness's, with its movable clock shared with the clients.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../src/main/client/api-client';
import { Keychain } from '../../src/main/keychain/keychain';
import { OsSecretStore } from '../../src/main/keychain/secret-store';
import { Profiles, type Profile } from '../../src/main/profiles/profiles';
import { Stamper } from '../../src/main/stamper/stamper';
import { RecordingStore } from '../support/recording-secret-store';
import { startTestService, type ApiPublicKey, type TestService } from '../support/service';

export interface Operator {
  dataDir: string;
  keychainServiceName: string;
  store: RecordingStore;
  keychain: Keychain;
  profiles: Profiles;
  stamper: Stamper;
  /** Compressed P-256 public key of the operator's API key "operator". */
  publicKey: string;
  profile?: Profile;
  client?: ApiClient;
}

export async function newOperator(): Promise<Operator> {
  const dataDir = await mkdtemp(join(tmpdir(), 'qk-main-services-'));
  const keychainServiceName = `qk-test-${randomUUID()}`;
  const store = new RecordingStore(new OsSecretStore(keychainServiceName));
  const profiles = new Profiles({ dataDir });
  const keychain = new Keychain({ dataDir, store, profiles });
  const { publicKey } = await keychain.generateApiKey({ name: 'operator' });
  return { dataDir, keychainServiceName, store, keychain, profiles, stamper: new Stamper(keychain), publicKey };
}

/** Removes the operator's profiles and keychain entries (the keychain is shared by the whole session) and its data dir. */
export async function removeOperator(operator: Operator): Promise<void> {
  for (const profile of await operator.profiles.list()) await operator.profiles.remove(profile.id);
  for (const key of await operator.keychain.listApiKeys()) await operator.keychain.deleteApiKey(key.name);
  for (const key of await operator.keychain.listEncryptionKeys()) await operator.keychain.deleteEncryptionKey(key.name);
  for (const { activityId } of await operator.keychain.listOneTimeKeys()) await operator.keychain.releaseOneTimeKey(activityId);
  await rm(operator.dataDir, { recursive: true, force: true });
}

export interface TestBed extends TestService<ApiPublicKey> {
  /** The first operator is the root user; the others are users added to the organization. */
  operators: (Operator & { profile: Profile; client: ApiClient; userId: string })[];
}

/** Starts a service whose root user holds the first operator's key and adds one user per further operator. */
export async function startTestBed(count = 1): Promise<TestBed> {
  const operators = await Promise.all(Array.from({ length: count }, () => newOperator()));
  const service = await startTestService({ rootPublicKey: { publicKey: operators[0]!.publicKey, curve: 'p256' } });
  const { info, clock } = service;
  const ready = [];
  for (const [index, operator] of operators.entries()) {
    const userId =
      index === 0
        ? info.rootUserId
        : (await service.addUser({ name: `operator ${index + 1}`, key: { publicKey: operator.publicKey, curve: 'p256' } })).userId;
    const profile = await operator.profiles.add({
      name: 'Sandbox',
      kind: 'sandbox',
      baseUrl: info.baseUrl,
      organizationId: info.organizationId,
      apiKeyName: 'operator',
      enclaveSignerPublicKey: info.enclaveSignerPublicKey,
    });
    const client = new ApiClient({ profile, stamper: operator.stamper, now: clock.now });
    ready.push({ ...operator, profile, client, userId });
  }
  let closing: Promise<void> | undefined;
  return {
    ...service,
    operators: ready,
    close() {
      // Once: a teardown that runs after a timed-out one waits for it rather than removing the same things again.
      closing ??= (async () => {
        await service.close();
        for (const operator of operators) await removeOperator(operator);
      })();
      return closing;
    },
  };
}
