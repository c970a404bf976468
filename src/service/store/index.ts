import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QkError } from '../../shared/errors';
import { ActivityRepository } from './activities';
import { ApiKeyRepository } from './api-keys';
import { SmartContractInterfaceRepository, TvcRepository } from './apps';
import {
  AuthenticatorRepository,
  OauthProviderRepository,
  OtpRepository,
  SessionProfileRepository,
  VerificationRepository,
} from './auth-records';
import { WalCheckpointer } from './checkpointer';
import { Connection, integer } from './connection';
import { KeyMaterialRepositories } from './key-material';
import { type Migration, migrations as platformMigrations } from './migrations';
import { AsyncMutex } from './mutex';
import { OrganizationRepository } from './organizations';
import { PolicyRepository } from './policies';
import { AuthProxyConfigRepository, ServiceKeyRepository } from './service-keys';
import { UserTagRepository } from './user-tags';
import { UserRepository } from './users';

/** One repository per resource family, all bound to the same connection. */
export class Repositories {
  readonly organizations: OrganizationRepository;
  readonly users: UserRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly userTags: UserTagRepository;
  readonly policies: PolicyRepository;
  readonly activities: ActivityRepository;
  readonly serviceKeys: ServiceKeyRepository;
  readonly authProxyConfigs: AuthProxyConfigRepository;
  readonly authenticators: AuthenticatorRepository;
  readonly oauthProviders: OauthProviderRepository;
  readonly sessionProfiles: SessionProfileRepository;
  readonly otps: OtpRepository;
  readonly verifications: VerificationRepository;
  readonly smartContractInterfaces: SmartContractInterfaceRepository;
  readonly tvc: TvcRepository;
  readonly keyMaterial: KeyMaterialRepositories;

  constructor(readonly connection: Connection) {
    this.organizations = new OrganizationRepository(connection);
    this.users = new UserRepository(connection);
    this.apiKeys = new ApiKeyRepository(connection);
    this.userTags = new UserTagRepository(connection);
    this.policies = new PolicyRepository(connection);
    this.activities = new ActivityRepository(connection);
    this.serviceKeys = new ServiceKeyRepository(connection);
    this.authProxyConfigs = new AuthProxyConfigRepository(connection);
    this.authenticators = new AuthenticatorRepository(connection);
    this.oauthProviders = new OauthProviderRepository(connection);
    this.sessionProfiles = new SessionProfileRepository(connection);
    this.otps = new OtpRepository(connection);
    this.verifications = new VerificationRepository(connection);
    this.smartContractInterfaces = new SmartContractInterfaceRepository(connection);
    this.tvc = new TvcRepository(connection);
    this.keyMaterial = new KeyMaterialRepositories(connection);
  }
}

export const IN_MEMORY = ':memory:';

/**
 * The service's database. Writes go through `transaction` on the writer connection, serialized by an
 * async mutex (a transaction may await enclave work). `read` is a second connection: in WAL mode it sees
 * only committed data, so a query never observes a transaction that is still open or later rolls back.
 */
export class Store {
  readonly read: Repositories;
  private readonly writer: Repositories;
  private readonly mutex = new AsyncMutex();
  private readonly checkpointer: WalCheckpointer;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly temporaryDirectory: string | undefined,
  ) {
    const writer = new Connection(path);
    // NORMAL in WAL mode: a commit survives a crash of the process (the crash test kills -9); only a power
    // loss can lose the last commits before a checkpoint, never the database's consistency.
    writer.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    this.writer = new Repositories(writer);
    applyMigrations(writer, platformMigrations);
    this.read = new Repositories(new Connection(path));
    this.checkpointer = new WalCheckpointer(path, writer);
  }

  /**
   * Opens (creating if needed) the database at `path`. `:memory:` gets a private temporary file, removed
   * on close, so that it behaves exactly like a file database (two connections, WAL).
   */
  static open(path: string): Store {
    if (path === IN_MEMORY) {
      const directory = mkdtempSync(join(tmpdir(), 'quorumkey-service-'));
      return new Store(join(directory, 'service.db'), directory);
    }
    return new Store(path, undefined);
  }

  /** Runs `fn` in BEGIN IMMEDIATE … COMMIT; any throw rolls back everything it wrote. */
  transaction<T>(fn: (tx: Repositories) => T | Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      if (this.closed) throw new QkError('INTERNAL', 'the service database is closed; restart the service');
      const connection = this.writer.connection;
      connection.exec('BEGIN IMMEDIATE');
      try {
        const value = await fn(this.writer);
        connection.exec('COMMIT');
        return value;
      } catch (error) {
        if (connection.db.isTransaction) connection.exec('ROLLBACK');
        throw error;
      }
    });
  }

  integrityCheck(): string {
    const row = this.read.connection.get('PRAGMA integrity_check');
    return row === undefined ? 'no result' : String(Object.values(row)[0]);
  }

  /** Waits for the running and queued transactions, then checkpoints and closes both connections. */
  async close(): Promise<void> {
    await this.mutex.run(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.checkpointer.stop();
      this.read.connection.close();
      this.writer.connection.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      this.writer.connection.close();
    });
    if (this.temporaryDirectory !== undefined) rmSync(this.temporaryDirectory, { recursive: true, force: true });
  }
}

function applyMigrations(connection: Connection, list: readonly Migration[]): void {
  connection.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  const row = connection.get('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
  const current = row === undefined ? 0 : integer(row, 'version');
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    if (migration.version <= current) continue;
    connection.exec('BEGIN IMMEDIATE');
    try {
      connection.exec(migration.sql);
      connection.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (:version, :name, :now)', {
        version: migration.version,
        name: migration.name,
        now: Date.now(),
      });
      connection.exec('COMMIT');
    } catch (error) {
      connection.exec('ROLLBACK');
      throw new QkError('INTERNAL', `database migration ${migration.version} (${migration.name}) failed: ${String(error)}`);
    }
  }
}

export type { Migration } from './migrations';
