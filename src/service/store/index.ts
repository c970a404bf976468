import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QkError } from '../../shared/errors';
import { ActivityRepository } from './activities';
import { ApiKeyRepository } from './api-keys';
import { AppProofRepository } from './app-proofs';
import { WalCheckpointer } from './checkpointer';
import { Connection, integer, text } from './connection';
import { DatabaseLock, MEMORY_DATABASE_FILE, MEMORY_FOLDER_PREFIX, sweepAbandonedMemoryFolders } from './database-lock';
import { SmartContractInterfaceRepository } from './contracts';
import { AuthenticatorRepository, OauthProviderRepository } from './credentials';
import { ImportTargetRepository } from './export-import';
import { FiatOnRampCredentialRepository } from './fiat-on-ramp-credentials';
import { InvitationRepository } from './invitations';
import { IpAllowlistRepository } from './ip-allowlists';
import { MfaPolicyRepository } from './mfa-policies';
import { type Migration, migrations as platformMigrations } from './migrations';
import { AsyncMutex } from './mutex';
import { OrganizationRepository } from './organizations';
import { OtpRepository, VerificationRepository } from './otp-auth';
import { PolicyRepository } from './policies';
import { PrivateKeyTagRepository } from './private-key-tags';
import { PrivateKeyRepository } from './private-keys';
import { Oauth2CredentialRepository } from './oauth2-credentials';
import { SecretRepository } from './secrets';
import { SeedRepository } from './seeds';
import { SentTransactionRepository } from './sent-transactions';
import { AuthProxyConfigRepository, ServiceKeyRepository } from './service-keys';
import { SessionProfileRepository } from './sessions';
import { TvcRepository } from './tvc';
import { UserTagRepository } from './user-tags';
import { UserRepository } from './users';
import { WalletAccountRepository, WalletRepository } from './wallets';
import { WebhookEndpointRepository } from './webhooks';

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
  readonly wallets: WalletRepository;
  readonly walletAccounts: WalletAccountRepository;
  readonly privateKeys: PrivateKeyRepository;
  readonly importTargets: ImportTargetRepository;
  readonly appProofs: AppProofRepository;
  readonly privateKeyTags: PrivateKeyTagRepository;
  readonly invitations: InvitationRepository;
  readonly ipAllowlists: IpAllowlistRepository;
  readonly mfaPolicies: MfaPolicyRepository;
  readonly secrets: SecretRepository;
  readonly oauth2Credentials: Oauth2CredentialRepository;
  readonly fiatOnRampCredentials: FiatOnRampCredentialRepository;
  readonly seeds: SeedRepository;
  readonly sentTransactions: SentTransactionRepository;
  readonly webhookEndpoints: WebhookEndpointRepository;

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
    this.wallets = new WalletRepository(connection);
    this.walletAccounts = new WalletAccountRepository(connection);
    this.privateKeys = new PrivateKeyRepository(connection);
    this.importTargets = new ImportTargetRepository(connection);
    this.appProofs = new AppProofRepository(connection);
    this.privateKeyTags = new PrivateKeyTagRepository(connection);
    this.invitations = new InvitationRepository(connection);
    this.ipAllowlists = new IpAllowlistRepository(connection);
    this.mfaPolicies = new MfaPolicyRepository(connection);
    this.secrets = new SecretRepository(connection);
    this.oauth2Credentials = new Oauth2CredentialRepository(connection);
    this.fiatOnRampCredentials = new FiatOnRampCredentialRepository(connection);
    this.seeds = new SeedRepository(connection);
    this.sentTransactions = new SentTransactionRepository(connection);
    this.webhookEndpoints = new WebhookEndpointRepository(connection);
  }

  /** Whether any row holds sealed data (a wallet, a private key, an import target or a secret). */
  holdsSealedData(): boolean {
    return (
      this.connection.get(
        `SELECT EXISTS (SELECT 1 FROM wallets) OR EXISTS (SELECT 1 FROM private_keys)
           OR EXISTS (SELECT 1 FROM import_targets) OR EXISTS (SELECT 1 FROM secrets) AS held`,
      )?.held === 1
    );
  }
}

export const IN_MEMORY = ':memory:';

/** Emptying the WAL after a deletion waits at most about a second for the checkpoint thread. */
const WAL_TRUNCATE_ATTEMPTS = 100;
const WAL_TRUNCATE_RETRY_MS = 10;

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
    private readonly lock: DatabaseLock,
  ) {
    restrictToOwner(path);
    const writer = new Connection(path);
    // NORMAL in WAL mode: a commit survives a crash of the process (the crash test kills -9); only a power
    // loss can lose the last commits before a checkpoint, never the database's consistency. secure_delete zeroes
    // deleted rows in their pages, so a deleted wallet's sealed secret does not linger in free space.
    writer.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON;');
    this.writer = new Repositories(writer);
    applyMigrations(writer, platformMigrations);
    this.read = new Repositories(new Connection(path));
    this.checkpointer = new WalCheckpointer(path, writer, (checkpoint) => this.mutex.run(checkpoint));
  }

  /**
   * Opens (creating if needed) the database at `path`, refusing one another live Sandbox holds (database-lock.ts).
   * `:memory:` gets a private temporary folder, so that it behaves exactly like a file database (two connections,
   * WAL); the folder, with the service secret beside the database, is removed on close, when the process exits
   * without closing, and, after a kill, by the next Sandbox to start.
   */
  static open(path: string, initialImage?: Uint8Array): Store {
    if (path !== IN_MEMORY) return Store.openLocked(path, undefined, initialImage);
    sweepAbandonedMemoryFolders();
    const directory = mkdtempSync(join(tmpdir(), MEMORY_FOLDER_PREFIX));
    return Store.openLocked(join(directory, MEMORY_DATABASE_FILE), directory, initialImage);
  }

  private static openLocked(path: string, temporaryDirectory: string | undefined, initialImage: Uint8Array | undefined): Store {
    let lock: DatabaseLock | undefined;
    try {
      lock = DatabaseLock.acquire(path);
      if (initialImage !== undefined) writeInitialImage(path, initialImage);
      const store = new Store(path, temporaryDirectory, lock);
      Store.cleanUpAtExit(store);
      return store;
    } catch (error) {
      lock?.release();
      if (temporaryDirectory !== undefined) rmSync(temporaryDirectory, { recursive: true, force: true });
      throw unreadableDatabase(path, error) ?? error;
    }
  }

  /** Stores not yet closed, whose leftovers the process's exit removes. */
  private static readonly leftOpen = new Set<Store>();
  private static exitWatched = false;

  private static cleanUpAtExit(store: Store): void {
    if (!Store.exitWatched) {
      Store.exitWatched = true;
      process.on('exit', () => {
        for (const open of Store.leftOpen) open.removeLeftovers();
      });
    }
    Store.leftOpen.add(store);
  }

  /** What a process that exits with this store open must not leave behind: the lock, and a `:memory:` folder. */
  private removeLeftovers(): void {
    this.lock.release();
    if (this.temporaryDirectory !== undefined) rmSync(this.temporaryDirectory, { recursive: true, force: true });
  }

  /** Runs `fn` in BEGIN IMMEDIATE … COMMIT; any throw rolls back everything it wrote. */
  transaction<T>(fn: (tx: Repositories) => T | Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      this.refuseIfClosed();
      const connection = this.writer.connection;
      connection.exec('BEGIN IMMEDIATE');
      try {
        const value = await fn(this.writer);
        connection.exec('COMMIT');
        if (connection.takeKeyMaterialErased()) await this.emptyWal();
        return value;
      } catch (error) {
        if (connection.db.isTransaction) connection.exec('ROLLBACK');
        connection.takeKeyMaterialErased();
        throw error;
      }
    });
  }

  /**
   * Copies the WAL into the (secure-deleted) database file and truncates it to nothing: its older frames hold the
   * pages as they were before a deletion, sealed secrets included. The checkpoint thread may hold the checkpoint
   * lock for a moment, so a busy attempt is retried briefly.
   */
  private async emptyWal(): Promise<void> {
    const connection = this.writer.connection;
    for (let attempt = 0; attempt < WAL_TRUNCATE_ATTEMPTS; attempt += 1) {
      const row = connection.get('PRAGMA wal_checkpoint(TRUNCATE)');
      if (row !== undefined && integer(row, 'busy') === 0) return;
      await new Promise((resolve) => setTimeout(resolve, WAL_TRUNCATE_RETRY_MS));
    }
    console.error(`could not empty the WAL of ${this.path} after deleting key material; it is emptied at the next deletion or on close`);
  }

  /**
   * The whole database as it is between transactions, as the bytes of a database file (Store.restore takes it back;
   * docs/sandbox.md#snapshots). The image is marked as a rollback-journal database: SQLite opens a WAL-mode image
   * only from a file with its WAL beside it, never from memory.
   */
  snapshot(): Promise<Uint8Array> {
    return this.mutex.run(async () => {
      this.refuseIfClosed();
      return standaloneImage(this.writer.connection.db.serialize());
    });
  }

  /**
   * Makes the database what `image` (a snapshot of this database) holds, in one transaction: it waits for the running
   * transaction, and a query on the read connection sees either the state before or the restored one. Only the rows
   * that differ are written (a test changes a few rows of thousands): each table loses the rows the snapshot does not
   * hold as they are and gets back the ones it lacks, rowids and AUTOINCREMENT counters included, so ids, sequence
   * numbers and the order of equal keys continue as they did after the snapshot. Rows that held key material and are
   * not in the snapshot are erased as a deletion erases them.
   */
  restore(image: Uint8Array): Promise<void> {
    return this.mutex.run(async () => {
      this.refuseIfClosed();
      const connection = this.writer.connection;
      connection.exec(`ATTACH DATABASE ':memory:' AS ${SNAPSHOT_SCHEMA}`);
      try {
        connection.deserialize(image, SNAPSHOT_SCHEMA);
        const tables = connection
          .all(`SELECT name, sql FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
          .map((row) => restoreStatements(connection, text(row, 'name'), text(row, 'sql')));
        const counters = connection.get(`SELECT 1 AS held FROM main.sqlite_schema WHERE name = 'sqlite_sequence'`) !== undefined;
        const erasesKeyMaterial = connection.get(SEALED_ROWS_NOT_IN_SNAPSHOT)?.erased === 1;
        connection.exec('BEGIN IMMEDIATE');
        try {
          // Every table loses its stale rows before any gets rows back: a deletion cascades to other tables' rows,
          // which the second pass then finds missing. References are checked once all are back.
          connection.exec('PRAGMA defer_foreign_keys = ON');
          for (const table of tables) connection.exec(table.deleteStale);
          for (const table of tables) connection.exec(table.insertMissing);
          // Last: inserting rows back moved the AUTOINCREMENT counters, which go back to the snapshot's.
          if (counters)
            connection.exec(
              `DELETE FROM main.sqlite_sequence; INSERT INTO main.sqlite_sequence (rowid, name, seq) SELECT rowid, name, seq FROM ${SNAPSHOT_SCHEMA}.sqlite_sequence`,
            );
          connection.exec('COMMIT');
        } catch (error) {
          if (connection.db.isTransaction) connection.exec('ROLLBACK');
          throw error;
        }
        if (erasesKeyMaterial) await this.emptyWal();
      } finally {
        connection.exec(`DETACH DATABASE ${SNAPSHOT_SCHEMA}`);
      }
    });
  }

  private refuseIfClosed(): void {
    if (this.closed) throw new QkError('INTERNAL', 'the service database is closed; restart the service');
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
    Store.leftOpen.delete(this);
    this.removeLeftovers();
  }
}

/** The name a snapshot being restored is attached under, beside `main`. */
const SNAPSHOT_SCHEMA = 'snapshot';

/** Whether restoring the attached snapshot removes a row that holds sealed data (see Repositories.holdsSealedData). */
const SEALED_ROWS_NOT_IN_SNAPSHOT = `SELECT EXISTS (SELECT 1 FROM main.wallets WHERE id NOT IN (SELECT id FROM ${SNAPSHOT_SCHEMA}.wallets))
  OR EXISTS (SELECT 1 FROM main.private_keys WHERE id NOT IN (SELECT id FROM ${SNAPSHOT_SCHEMA}.private_keys))
  OR EXISTS (SELECT 1 FROM main.import_targets WHERE id NOT IN (SELECT id FROM ${SNAPSHOT_SCHEMA}.import_targets))
  OR EXISTS (SELECT 1 FROM main.secrets WHERE id NOT IN (SELECT id FROM ${SNAPSHOT_SCHEMA}.secrets)) AS erased`;

/**
 * The two statements that make `table` of `main` what it is in the attached snapshot: a row identical in both (every
 * column, and the rowid) is left alone. A row is named by its rowid, or by its primary key in a WITHOUT ROWID table.
 */
function restoreStatements(connection: Connection, table: string, sql: string): { deleteStale: string; insertMissing: string } {
  const columns = connection.all(`SELECT name, type, pk FROM pragma_table_info(:table, 'main')`, { table });
  const primaryKey = columns.filter((column) => integer(column, 'pk') > 0);
  const rowidAlias = primaryKey.length === 1 && text(primaryKey[0]!, 'type').toUpperCase() === 'INTEGER';
  const withoutRowid = /\bWITHOUT\s+ROWID\b/i.test(sql);
  const names = columns.map((column) => `"${text(column, 'name')}"`);
  const keys = withoutRowid || rowidAlias ? primaryKey.map((column) => `"${text(column, 'name')}"`) : ['rowid'];
  const values = withoutRowid || rowidAlias ? names : ['rowid', ...names];
  // BINARY: a row that differs from the snapshot's only in letter case is still a different row.
  const compared = values.map((value) => `${value} COLLATE BINARY`).join(', ');
  const keyed = (schema: string) =>
    `SELECT ${keys.map((key, index) => `${key} AS restore_key_${index}`).join(', ')}, ${compared} FROM ${schema}."${table}"`;
  const keyNames = keys.map((_key, index) => `restore_key_${index}`).join(', ');
  return {
    deleteStale: `DELETE FROM main."${table}" WHERE (${keys.join(', ')}) IN (SELECT ${keyNames} FROM (${keyed('main')} EXCEPT ${keyed(SNAPSHOT_SCHEMA)}))`,
    insertMissing: `INSERT INTO main."${table}" (${values.join(', ')}) SELECT ${compared} FROM ${SNAPSHOT_SCHEMA}."${table}" EXCEPT SELECT ${compared} FROM main."${table}"`,
  };
}

/** Offsets of the file format's write and read versions in a database header: 1 rollback journal, 2 WAL. */
const FORMAT_VERSION_OFFSETS = [18, 19];
const ROLLBACK_JOURNAL_FORMAT = 1;

/** `image` (a serialized database) marked as a rollback-journal database, which SQLite opens from memory too. */
function standaloneImage(image: Uint8Array): Uint8Array {
  for (const offset of FORMAT_VERSION_OFFSETS) image[offset] = ROLLBACK_JOURNAL_FORMAT;
  return image;
}

/**
 * Makes a new database file `path` from `image` (a snapshot, or a state file's: docs/sandbox.md#state-files), before
 * SQLite opens it; the store then migrates it as any database. A database already there is refused, not replaced.
 */
function writeInitialImage(path: string, image: Uint8Array): void {
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing !== undefined && existing.size > 0) {
    throw new QkError('CONFIG_INVALID', `${path} already holds a database; --load-state starts a new one: give another --db, or --db :memory:`, {
      path,
    });
  }
  writeFileSync(path, image, { mode: 0o600 });
}

/** SQLite's result codes for a file that is no database, or a damaged one. */
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/** A database SQLite cannot read, as an error that names the file and what to do; undefined for any other error. */
function unreadableDatabase(path: string, error: unknown): QkError | undefined {
  const { errcode, message } = error as { errcode?: unknown; message?: unknown };
  if (errcode !== SQLITE_CORRUPT && errcode !== SQLITE_NOTADB) return undefined;
  return new QkError(
    'FILE_ERROR',
    `the database ${path} cannot be read (${String(message)}): it is not a Sandbox database, or it is damaged. Give --db another file (or :memory:), or restore this one from a copy; a new file starts a new Sandbox, with new keys`,
    { path },
  );
}

/**
 * The database holds the enclave's signing private key, so only its owner may read it. SQLite creates the -wal
 * and -shm files with the database file's mode, so a new database is created here, empty and 0600, before
 * SQLite opens it. An existing database with a looser mode (made by an earlier version, or by hand) is
 * tightened with its -wal and -shm rather than refused: the service owns these files, and removing group and
 * other access breaks nothing it needs. Windows has no POSIX modes; the profile directory's ACL protects it.
 */
function restrictToOwner(path: string): void {
  if (process.platform === 'win32') return;
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let mode: number;
    try {
      mode = statSync(file).mode;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if ((mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}

/**
 * Applies, in order, each migration of `list` that the database has not recorded. `list` must be strictly
 * increasing, and a migration below the newest applied one must already be applied: one inserted later with
 * a lower version would otherwise run out of order on some databases and never on others. A database that has
 * applied a migration this build does not know is refused: its schema may mean what this code cannot honour.
 */
export function applyMigrations(connection: Connection, list: readonly Migration[]): void {
  list.forEach((migration, index) => {
    const previous = list[index - 1];
    if (previous !== undefined && migration.version <= previous.version) {
      throw new QkError(
        'INTERNAL',
        `database migrations must have strictly increasing versions, but ${previous.version} is followed by ${migration.version}`,
      );
    }
  });
  connection.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const applied = new Set(connection.all('SELECT version FROM schema_migrations').map((row) => integer(row, 'version')));
  const newest = Math.max(0, ...applied);
  const known = list.at(-1)?.version ?? 0;
  if (newest > known) {
    throw new QkError(
      'INTERNAL',
      `the database has applied migration ${newest}, newer than this version of the service knows (up to ${known}); it was written by a newer QuorumKey: update this one`,
    );
  }
  const skipped = list.filter((migration) => migration.version < newest && !applied.has(migration.version));
  if (skipped.length > 0) {
    throw new QkError(
      'INTERNAL',
      `the database has applied migration ${newest} but not the older ${skipped.map((m) => m.version).join(', ')}; a migration added later needs a version above ${newest}`,
    );
  }
  for (const migration of list) {
    if (applied.has(migration.version)) continue;
    if (!migration.rebuildsReferencedTables) {
      applyMigration(connection, migration);
      continue;
    }
    // SQLite reads this pragma only outside a transaction.
    connection.exec('PRAGMA foreign_keys = OFF');
    try {
      applyMigration(connection, migration);
    } finally {
      connection.exec('PRAGMA foreign_keys = ON');
    }
  }
}

/** Applies `migration` and records it, in one transaction. */
function applyMigration(connection: Connection, migration: Migration): void {
  connection.exec('BEGIN IMMEDIATE');
  try {
    connection.exec(migration.sql);
    if (migration.rebuildsReferencedTables) refuseDanglingReferences(connection);
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

function refuseDanglingReferences(connection: Connection): void {
  const dangling = connection.all('PRAGMA foreign_key_check');
  if (dangling.length > 0) {
    const first = dangling[0]!;
    throw new Error(
      `${dangling.length} rows would reference rows that do not exist (the first: rowid ${String(first.rowid)} of ${String(first.table)}, referencing ${String(first.parent)})`,
    );
  }
}

export type { Migration } from './migrations';
