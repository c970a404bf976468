import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';

export type Row = Record<string, unknown>;
export type Params = Record<string, SQLInputValue>;

/**
 * What the statements run through `run` or `exec` on any connection of this process have changed (see
 * `Connection.changeCounterOf`): a count per table, and one for statements that may have changed any table.
 */
const changesByTable = new Map<string, number>();
let changesToAnyTable = 0;

/** The table an INSERT or UPDATE names (REPLACE deletes rows too, so it is not one of these). */
const INSERT_OR_UPDATE =
  /^\s*(?:INSERT(?:\s+OR\s+(?:IGNORE|ABORT|FAIL|ROLLBACK))?\s+INTO|UPDATE(?:\s+OR\s+(?:IGNORE|ABORT|FAIL|ROLLBACK))?)\s+"?([A-Z_]\w*)"?[\s(]/i;
/** One statement that begins or marks a transaction: it changes no table. */
const TRANSACTION_START = /^\s*(?:BEGIN|SAVEPOINT|RELEASE)\b[^;]*;?$/i;
/** One statement that ends a transaction or undoes part of it: what it wrote is now seen by other connections, or undone. */
const TRANSACTION_END = /^\s*(?:COMMIT|END|ROLLBACK)\b[^;]*;?$/i;

/** Counted in place of a table for a statement that may have changed any table. */
const ANY_TABLE = '*';

function noteChanged(table: string): void {
  if (table === ANY_TABLE) changesToAnyTable += 1;
  else changesByTable.set(table, (changesByTable.get(table) ?? 0) + 1);
}

/** One SQLite connection with a prepared-statement cache (statements are compiled once per SQL text). */
export class Connection {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private keyMaterialErased = false;
  /** Per SQL text run through `run`: the one table it changes, or ANY_TABLE. */
  private readonly changedBy = new Map<string, string>();
  /** Tables whose INSERT or UPDATE also changes other tables (a trigger, an ON UPDATE action); read when needed. */
  private tablesWithSideEffects: ReadonlySet<string> | undefined;
  /** What the open transaction has written, counted again when it ends: only then do other connections see it. */
  private readonly writtenInTransaction = new Set<string>();

  constructor(path: string, options: { readOnly?: boolean } = {}) {
    this.db = new DatabaseSync(path, {
      readOnly: options.readOnly ?? false,
      enableForeignKeyConstraints: true,
      timeout: 5_000,
    });
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  get(sql: string, params: Params = {}): Row | undefined {
    return this.statement(sql).get(params);
  }

  all(sql: string, params: Params = {}): Row[] {
    return this.statement(sql).all(params);
  }

  run(sql: string, params: Params = {}): number {
    const changes = Number(this.statement(sql).run(params).changes);
    this.noteWritten(this.tableChangedBy(sql));
    return changes;
  }

  /**
   * Changes whenever data of `tables` that any connection of this process reads may have changed: it counts the
   * statements that can write them (`run`, `exec`), and the COMMIT that shows their writes to other connections.
   * Readers compare it to keep derived data only while it holds. A DELETE (which may cascade or fire a trigger), a
   * REPLACE, an `exec` and an INSERT or UPDATE of a table with a trigger or an ON UPDATE action count for every table.
   * The service owns its database file; a second process writing to it is not seen here.
   */
  static changeCounterOf(tables: readonly string[]): number {
    return tables.reduce((sum, table) => sum + (changesByTable.get(table) ?? 0), changesToAnyTable);
  }

  private tableChangedBy(sql: string): string {
    let table = this.changedBy.get(sql);
    if (table === undefined) {
      const named = INSERT_OR_UPDATE.exec(sql)?.[1]?.toLowerCase();
      table = named === undefined || this.withSideEffects().has(named) ? ANY_TABLE : named;
      this.changedBy.set(sql, table);
    }
    return table;
  }

  private withSideEffects(): ReadonlySet<string> {
    if (this.tablesWithSideEffects !== undefined) return this.tablesWithSideEffects;
    const triggered = this.db
      .prepare(`SELECT tbl_name AS name, sql FROM sqlite_schema WHERE type = 'trigger'`)
      .all()
      .filter((row) => !/\bAFTER\s+DELETE\b|\bBEFORE\s+DELETE\b/i.test(String(row.sql)))
      .map((row) => String(row.name).toLowerCase());
    const updatedOnUpdate = this.db
      .prepare(
        `SELECT DISTINCT f."table" AS name FROM sqlite_schema t, pragma_foreign_key_list(t.name) f
         WHERE t.type = 'table' AND f.on_update <> 'NO ACTION'`,
      )
      .all()
      .map((row) => String(row.name).toLowerCase());
    this.tablesWithSideEffects = new Set([...triggered, ...updatedOnUpdate]);
    return this.tablesWithSideEffects;
  }

  /** Whether the open transaction has written any of `tables` (so what it reads of them may still roll back). */
  wroteInTransaction(tables: readonly string[]): boolean {
    if (!this.db.isTransaction) return false;
    return this.writtenInTransaction.has(ANY_TABLE) || tables.some((table) => this.writtenInTransaction.has(table));
  }

  private noteWritten(table: string): void {
    noteChanged(table);
    if (this.db.isTransaction) this.writtenInTransaction.add(table);
  }

  /**
   * Notes that the open transaction deletes key material: once it commits, the store empties the WAL, whose older
   * frames still hold the deleted rows (Store.transaction).
   */
  noteKeyMaterialErased(): void {
    this.keyMaterialErased = true;
  }

  /** Whether key material was erased since the last call; clears the note. */
  takeKeyMaterialErased(): boolean {
    const erased = this.keyMaterialErased;
    this.keyMaterialErased = false;
    return erased;
  }

  /**
   * Loads a serialized database into the attached schema `dbName`. SQLite finalizes every prepared statement of the
   * connection as it does, so the cache is emptied with them.
   */
  deserialize(image: Uint8Array, dbName: string): void {
    this.db.deserialize(image, { dbName });
    this.statements.clear();
  }

  exec(sql: string): void {
    this.db.exec(sql);
    if (TRANSACTION_START.test(sql)) return;
    if (TRANSACTION_END.test(sql)) {
      for (const table of this.writtenInTransaction) noteChanged(table);
      if (!this.db.isTransaction) this.writtenInTransaction.clear();
      return;
    }
    // Anything else (a schema change, a restore's statements) may change any table, and which tables have side effects.
    this.tablesWithSideEffects = undefined;
    this.changedBy.clear();
    this.noteWritten(ANY_TABLE);
  }

  close(): void {
    this.statements.clear();
    if (this.db.isOpen) this.db.close();
  }
}

/** Column readers: the schema guarantees the types, these only narrow `unknown`. */
export function text(row: Row, column: string): string {
  return row[column] as string;
}
export function optionalText(row: Row, column: string): string | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : (value as string);
}
export function integer(row: Row, column: string): number {
  return Number(row[column]);
}
export function optionalInteger(row: Row, column: string): number | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : Number(value);
}
export function blob(row: Row, column: string): Uint8Array {
  return row[column] as Uint8Array;
}
