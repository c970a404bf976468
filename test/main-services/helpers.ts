/**
 * Operators for the main-process service tests: each has its own data dir and its own OS keychain service name
 * (a real gnome-keyring, see test/support/with-secret-service.sh), so two operators never see each other's keys.
 * The local service runs in-process with a movable clock shared with the clients.
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
import { startService, type RunningService } from '../../src/service';
import { apiKeyCredentialTypeByCurve } from '../../src/service/auth/credentials';
import { RecordingStore } from '../support/recording-secret-store';

export { RecordingStore };

export interface Clock {
  now: () => number;
  advance: (ms: number) => void;
}

export function newClock(start = Date.now()): Clock {
  let nowMs = start;
  return { now: () => nowMs, advance: (ms) => void (nowMs += ms) };
}

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

export interface TestBed {
  service: RunningService;
  clock: Clock;
  logs: string[];
  /** The first operator is the root user; the others are users added to the organization. */
  operators: (Operator & { profile: Profile; client: ApiClient; userId: string })[];
  close(): Promise<void>;
}

/** Starts a service whose root user holds the first operator's key and adds one user per further operator. */
export async function startTestBed(count = 1): Promise<TestBed> {
  const clock = newClock();
  const logs: string[] = [];
  const operators = await Promise.all(Array.from({ length: count }, () => newOperator()));
  const service = await startService({
    db: ':memory:',
    rootPublicKeys: [{ publicKey: operators[0]!.publicKey, curve: 'p256' }],
    now: clock.now,
    log: (line) => logs.push(line),
  });
  const { info } = service;
  const ready = [];
  for (const [index, operator] of operators.entries()) {
    let userId = info.rootUserId;
    if (index > 0) {
      userId = randomUUID();
      const id = userId;
      await service.store.transaction((tx) => {
        tx.users.insert({ id, organizationId: info.organizationId, name: `operator ${index + 1}`, now: clock.now() });
        tx.apiKeys.insert({
          id: randomUUID(),
          organizationId: info.organizationId,
          userId: id,
          name: 'operator key',
          publicKey: operator.publicKey,
          credentialType: apiKeyCredentialTypeByCurve.p256,
          expirationSeconds: undefined,
          sessionProfileId: undefined,
          now: clock.now(),
        });
      });
    }
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
  return {
    service,
    clock,
    logs,
    operators: ready,
    async close() {
      await service.close();
      for (const operator of operators) {
        for (const key of await operator.keychain.listApiKeys()) {
          await operator.profiles.list().then((all) => Promise.all(all.map((p) => operator.profiles.remove(p.id))));
          await operator.keychain.deleteApiKey(key.name);
        }
        for (const key of await operator.keychain.listEncryptionKeys()) await operator.keychain.deleteEncryptionKey(key.name);
        await rm(operator.dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** Makes the root quorum `threshold` of the given users (test setup, straight through the store). */
export async function setRootQuorum(bed: TestBed, threshold: number, userIds: string[]): Promise<void> {
  await bed.service.store.transaction((tx) =>
    tx.organizations.setRootQuorum(bed.service.info.organizationId, { threshold, userIds }, bed.clock.now()),
  );
}
