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
/** Every row of `tables`, with the rowids that order them. */
function rowsOf(connection: Connection, tables: readonly string[]): Record<string, Record<string, unknown>[]> {
  return Object.fromEntries(tables.map((table) => [table, connection.all(`SELECT rowid AS row_id, * FROM ${table} ORDER BY rowid`)]));
}
function indexesOf(connection: Connection, table: string): string[] {
  return connection
    .all("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = :table ORDER BY name", { table })
    .map((row) => String(row.name));
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

  /** A database at version 20 holding three activities; returns them, and the votes (in order) of the second. */
  function databaseAtVersion20(path: string): { organizationId: string; activityIds: string[]; voteIds: string[]; old: Connection } {
    const old = openConnection(path);
    applyMigrations(
      old,
      migrations.filter((migration) => migration.version <= 20),
    );
    const organizationId = randomUUID();
    old.run("INSERT INTO organizations (id, name, root_quorum_threshold, created_at, updated_at) VALUES (:id, 'kept', 1, 1, 1)", {
      id: organizationId,
    });
    // Seqs with a gap (an activity deleted) and votes whose rowids run against their ids' order.
    const activityIds = [randomUUID(), randomUUID(), randomUUID()];
    activityIds.forEach((id, index) =>
      old.run(
        `INSERT INTO activities (seq, id, organization_id, type, status, fingerprint, body, intent, proposer_user_id, created_at, updated_at)
         VALUES (:seq, :id, :organizationId, 'ACTIVITY_TYPE_CREATE_POLICY_V3', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', :fingerprint, '{}', '{}', 'u', 1, 1)`,
        { seq: [3, 7, 8][index]!, id, organizationId, fingerprint: `f${index}` },
      ),
    );
    const voteIds = ['c', 'b', 'a'];
    voteIds.forEach((voteId, index) =>
      old.run(
        `INSERT INTO votes (id, activity_id, user_id, selection, message, public_key, signature, scheme, credential_id, credential_type, created_at)
         VALUES (:voteId, :activityId, :voteId, 'VOTE_SELECTION_APPROVED', 'm', 'k', 's', 'SIGNATURE_SCHEME_TK_API_P256', 'c', 'API_KEY', :createdAt)`,
        { voteId, activityId: activityIds[1]!, createdAt: 10 + index },
      ),
    );
    return { organizationId, activityIds, voteIds, old };
  }

  function insertEvaluation(connection: Connection, activityId: string, voteId: string, createdAt: number): void {
    connection.run(
      `INSERT INTO policy_evaluations (id, activity_id, vote_id, outcomes, created_at) VALUES (:id, :activityId, :voteId, :outcomes, :createdAt)`,
      { id: `e-${voteId}`, activityId, voteId, outcomes: JSON.stringify([{ policyId: `p-${voteId}`, outcome: 'OUTCOME_ALLOW' }]), createdAt },
    );
  }

  it('version 21 rebuilds the activity records without AUTOINCREMENT or id indexes, evaluations kept with their votes, every row, seq and order kept', () => {
    const path = newPath();
    const { organizationId, activityIds, voteIds, old } = databaseAtVersion20(path);
    // The first and last votes asked the policy engine; the middle one (a rejection, say) did not.
    insertEvaluation(old, activityIds[1]!, 'a', 12);
    insertEvaluation(old, activityIds[1]!, 'c', 10);
    old.run(
      `INSERT INTO mfa_requirements (activity_id, user_id, mfa_policy_id, required_methods, presented_methods, satisfied, created_at, updated_at)
       VALUES (:activityId, 'a', 'p', '[]', '[]', 0, 1, 1)`,
      { activityId: activityIds[2]! },
    );
    old.run(`INSERT INTO app_proofs (activity_id, scheme, public_key, proof_payload, signature) VALUES (:activityId, 's', 'k', 'p', 'g')`, {
      activityId: activityIds[0]!,
    });
    const rowsBefore = rowsOf(old, ['activities', 'votes', 'mfa_requirements', 'app_proofs']);
    old.close();

    const store = openStore(path);
    const connection = store.read.connection;
    expect(versionsOf(connection)).toEqual(migrations.map((migration) => migration.version));
    const rowsAfter = rowsOf(connection, ['activities', 'votes', 'mfa_requirements', 'app_proofs']);
    expect(rowsAfter).toEqual({
      ...rowsBefore,
      votes: rowsBefore.votes!.map((vote) => ({
        ...vote,
        policy_evaluation_id: vote.id === 'b' ? null : `e-${String(vote.id)}`,
        policy_outcomes: vote.id === 'b' ? null : `[{"policyId":"p-${String(vote.id)}","outcome":"OUTCOME_ALLOW"}]`,
      })),
    });
    // Listed in the order their votes were cast, as they were listed in the order they were recorded.
    expect(store.read.activities.policyEvaluations(activityIds[1]!)).toEqual(
      ['c', 'a'].map((voteId) => ({
        id: `e-${voteId}`,
        activityId: activityIds[1]!,
        voteId,
        outcomes: [{ policyId: `p-${voteId}`, outcome: 'OUTCOME_ALLOW' }],
        createdAt: 10 + voteIds.indexOf(voteId),
      })),
    );
    expect(tablesOf(connection)).not.toContain('policy_evaluations');
    expect(connection.all("SELECT name FROM sqlite_sequence WHERE name = 'activities'")).toEqual([]);
    expect(indexesOf(connection, 'votes')).toEqual(['votes_activity']);
    expect(indexesOf(connection, 'activities')).toEqual([
      'activities_organization',
      'sqlite_autoindex_activities_1',
      'sqlite_autoindex_activities_2',
    ]);
    expect(connection.get('PRAGMA foreign_keys')).toEqual({ foreign_keys: 1 });
    // The references still hold and still cascade.
    expect(connection.all('PRAGMA foreign_key_check')).toEqual([]);
    const writer = new Connection(path);
    cleanups.push(() => writer.close());
    writer.run('DELETE FROM organizations WHERE id = :id', { id: organizationId });
    expect(Object.values(rowsOf(writer, ['activities', 'votes', 'mfa_requirements', 'app_proofs'])).flat()).toEqual([]);
  });

  it('version 21 refuses, changing nothing, a policy evaluation it cannot keep with its vote', () => {
    for (const [case_, evaluate] of [
      ['no such vote', (old, activityIds) => insertEvaluation(old, activityIds[1]!, 'z', 10)],
      ['another activity', (old, activityIds) => insertEvaluation(old, activityIds[0]!, 'c', 10)],
      ['another time', (old, activityIds) => insertEvaluation(old, activityIds[1]!, 'c', 99)],
      [
        'two for one vote',
        (old, activityIds) => {
          insertEvaluation(old, activityIds[1]!, 'c', 10);
          old.run(`UPDATE policy_evaluations SET id = 'first'`);
          insertEvaluation(old, activityIds[1]!, 'c', 10);
        },
      ],
    ] as const satisfies readonly (readonly [string, (old: Connection, activityIds: string[]) => void])[]) {
      const path = newPath();
      const { activityIds, old } = databaseAtVersion20(path);
      evaluate(old, activityIds);
      const before = rowsOf(old, ['activities', 'votes', 'policy_evaluations']);
      expect(
        thrown(() => applyMigrations(old, migrations)),
        case_,
      ).toMatchObject({
        code: 'INTERNAL',
        message: expect.stringMatching(/^database migration 21 \(.*\) failed: .*CHECK constraint failed: every_policy_evaluation_is_one_votes$/),
      });
      expect(versionsOf(old), case_).toEqual(migrations.filter((migration) => migration.version <= 20).map((migration) => migration.version));
      expect(rowsOf(old, ['activities', 'votes', 'policy_evaluations']), case_).toEqual(before);
      expect(old.get('PRAGMA foreign_keys'), case_).toEqual({ foreign_keys: 1 });
    }
  });

  it('runs a migration that rebuilds a referenced table with foreign keys off, and refuses one that leaves a reference dangling', () => {
    const connection = openConnection(newPath());
    applyMigrations(connection, [
      {
        version: 1,
        name: 'parent and child',
        sql: 'CREATE TABLE parent (id TEXT PRIMARY KEY); CREATE TABLE child (parent_id TEXT REFERENCES parent(id) ON DELETE CASCADE);',
      },
    ]);
    connection.run("INSERT INTO parent (id) VALUES ('p')");
    connection.run("INSERT INTO child (parent_id) VALUES ('p')");
    const rebuild = (version: number, kept: string): Migration => ({
      version,
      name: `parent rebuilt, keeping ${kept}`,
      rebuildsReferencedTables: true,
      sql: `CREATE TABLE parent_rebuilt (id TEXT PRIMARY KEY); INSERT INTO parent_rebuilt SELECT id FROM parent WHERE id = '${kept}';
            DROP TABLE parent; ALTER TABLE parent_rebuilt RENAME TO parent;`,
    });
    const list: Migration[] = [{ version: 1, name: 'parent and child', sql: '' }];
    applyMigrations(connection, [...list, rebuild(2, 'p')]);
    expect(connection.all('SELECT parent_id FROM child')).toEqual([{ parent_id: 'p' }]);
    expect(thrown(() => applyMigrations(connection, [...list, rebuild(2, 'p'), rebuild(3, 'nothing')]))).toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(
        'database migration 3 (parent rebuilt, keeping nothing) failed: Error: 1 rows would reference rows that do not exist',
      ),
    });
    expect(versionsOf(connection)).toEqual([1, 2]);
    expect(connection.all('SELECT id FROM parent')).toEqual([{ id: 'p' }]);
    expect(connection.get('PRAGMA foreign_keys')).toEqual({ foreign_keys: 1 });
  });

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
