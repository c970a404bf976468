/**
 * The database itself: connection settings, file modes (it holds the enclave's signing private key) and
 * schema migrations, on real files.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, Store, type Migration } from '../../src/service/store';
import { Connection, integer } from '../../src/service/store/connection';
import { migrations } from '../../src/service/store/migrations';
import { thrown } from '../support/assertions';

const directory = mkdtempSync(join(tmpdir(), 'quorumkey-store-'));
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function newPath(): string {
  return join(directory, `${randomUUID()}.db`);
}
function openStore(path: string): Store {
  const store = Store.open(path);
  cleanups.push(() => store.close());
  return store;
}
function openConnection(path: string): Connection {
  const connection = new Connection(path);
  cleanups.push(() => connection.close());
  return connection;
}
function modeOf(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}
function versionsOf(connection: Connection): number[] {
  return connection.all('SELECT version FROM schema_migrations ORDER BY version').map((row) => integer(row, 'version'));
}
function tablesOf(connection: Connection): string[] {
  return connection.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((row) => String(row.name));
}

describe('connection settings', () => {
  it('WAL journal and foreign keys on both connections, synchronous NORMAL on the writer', async () => {
    const store = openStore(newPath());
    expect(store.read.connection.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
    expect(store.read.connection.get('PRAGMA foreign_keys')).toEqual({ foreign_keys: 1 });
    const writer = await store.transaction((tx) => ({
      journal: tx.connection.get('PRAGMA journal_mode'),
      foreignKeys: tx.connection.get('PRAGMA foreign_keys'),
      synchronous: tx.connection.get('PRAGMA synchronous'),
    }));
    // synchronous 1 is NORMAL (SQLite's default is 2, FULL).
    expect(writer).toEqual({ journal: { journal_mode: 'wal' }, foreignKeys: { foreign_keys: 1 }, synchronous: { synchronous: 1 } });
  });
});

describe('file modes', () => {
  it('a new database, its WAL and shared memory are readable by the owner only', async () => {
    // The usual umask, which would leave a file SQLite creates readable by everyone (0644).
    const umask = process.umask(0o022);
    cleanups.push(() => process.umask(umask));
    const path = newPath();
    const store = openStore(path);
    await store.transaction((tx) => tx.organizations.insert({ id: randomUUID(), name: 'one', rootQuorumThreshold: 1, now: 1 }));
    expect([modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual(['600', '600', '600']);
  });

  it('an existing database readable by others is tightened to 0600 with its WAL and shared memory', () => {
    const path = newPath();
    // Another connection keeps the -wal and -shm files in place while the store opens.
    const other = new DatabaseSync(path);
    cleanups.push(() => other.close());
    other.exec("PRAGMA journal_mode = WAL; CREATE TABLE note (text TEXT); INSERT INTO note VALUES ('kept')");
    for (const file of [path, `${path}-wal`, `${path}-shm`]) chmodSync(file, 0o644);
    const store = openStore(path);
    expect([modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual(['600', '600', '600']);
    expect(store.read.connection.get('SELECT text FROM note')).toEqual({ text: 'kept' });
  });
});

describe('migrations', () => {
  it('a database at schema version 5 upgrades to the latest when opened, its rows kept', () => {
    const path = newPath();
    const old = openConnection(path);
    applyMigrations(
      old,
      migrations.filter((migration) => migration.version <= 5),
    );
    expect(versionsOf(old)).toEqual([1, 2, 4, 5]);
    const organizationId = randomUUID();
    const policyId = randomUUID();
    old.run("INSERT INTO organizations (id, name, root_quorum_threshold, created_at, updated_at) VALUES (:id, 'kept', 1, 1, 1)", {
      id: organizationId,
    });
    // Version 5's policies table: no time column yet.
    old.run(
      `INSERT INTO policies (id, organization_id, name, effect, condition, consensus, notes, created_at, updated_at)
       VALUES (:id, :organizationId, 'allow all', 'EFFECT_ALLOW', '', '', 'from version 5', 1, 1)`,
      { id: policyId, organizationId },
    );
    old.close();

    const store = openStore(path);
    expect(versionsOf(store.read.connection)).toEqual(migrations.map((migration) => migration.version));
    expect(store.read.organizations.get(organizationId)?.name).toBe('kept');
    expect(store.read.policies.get(organizationId, policyId)).toMatchObject({ name: 'allow all', notes: 'from version 5', time: '' });
  });

  const migration = (version: number): Migration => ({ version, name: `table ${version}`, sql: `CREATE TABLE t${version} (x)` });

  it('refuses a migration below the newest applied one that was never applied, and applies nothing', () => {
    const connection = openConnection(newPath());
    applyMigrations(connection, [migration(1), migration(2), migration(4)]);
    const error = thrown(() => applyMigrations(connection, [1, 2, 3, 4, 5].map(migration)));
    expect(error).toMatchObject({
      code: 'INTERNAL',
      message: 'the database has applied migration 4 but not the older 3; a migration added later needs a version above 4',
    });
    expect(versionsOf(connection)).toEqual([1, 2, 4]);
    expect(tablesOf(connection)).toEqual(['schema_migrations', 't1', 't2', 't4']);
  });

  it('refuses a database written by a newer build, one with a migration this build does not know', () => {
    const connection = openConnection(newPath());
    applyMigrations(connection, [1, 2, 3].map(migration));
    expect(thrown(() => applyMigrations(connection, [1, 2].map(migration)))).toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('the database has applied migration 3, newer than this version of the service knows (up to 2)'),
    });
  });

  it('refuses versions that are not strictly increasing, before touching the database', () => {
    const connection = openConnection(newPath());
    for (const versions of [
      [1, 2, 2],
      [1, 4, 2],
    ]) {
      const [, previous, next] = versions;
      expect(thrown(() => applyMigrations(connection, versions.map(migration)))).toMatchObject({
        code: 'INTERNAL',
        message: `database migrations must have strictly increasing versions, but ${previous} is followed by ${next}`,
      });
    }
    expect(tablesOf(connection)).toEqual([]);
  });
});
