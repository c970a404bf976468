import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';

export type Row = Record<string, unknown>;
export type Params = Record<string, SQLInputValue>;

/** Statements run through `run` or `exec` on any connection; see `Connection.changeCounter`. */
let writeStatements = 0;

/** One SQLite connection with a prepared-statement cache (statements are compiled once per SQL text). */
export class Connection {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private keyMaterialErased = false;

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
    writeStatements += 1;
    return Number(this.statement(sql).run(params).changes);
  }

  /**
   * Changes whenever data any connection of this process reads may have changed: it counts the statements that
   * can write (`run`, `exec`), a COMMIT included. Readers compare it to keep derived data only while it holds.
   * The service owns its database file; a second process writing to it is not seen here.
   */
  static changeCounter(): number {
    return writeStatements;
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
    writeStatements += 1;
    this.db.exec(sql);
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
