import { Connection } from './connection';

/** Per memo; beyond this it starts over (its keys may come from requests, which anyone can make). */
const MAX_ENTRIES = 4096;

/**
 * Values derived from rows of some tables, kept while those tables are unchanged: `get` compares the process-wide
 * change count of the tables (`Connection.changeCounterOf`, no SQL), so a write to any of them is seen by the next
 * `get` exactly as without the memo, while writes elsewhere leave it whole.
 */
export class TableMemo<T> {
  private readonly entries = new Map<string, T>();
  private changeCounter: number | undefined;

  /** `tables`: every table the values are read from. */
  constructor(private readonly tables: readonly string[]) {}

  /**
   * Whether what `connection` reads of the tables now may be remembered: always outside a transaction, and inside one
   * that has not written them, since it then reads what is committed whether it commits or rolls back.
   */
  mayRemember(connection: Connection): boolean {
    return !connection.wroteInTransaction(this.tables);
  }

  /** The value remembered for `key`, else `load()`'s, remembered when `remember` holds. */
  get(key: string, load: () => T, remember: boolean): T {
    if (!remember) return load();
    const counter = Connection.changeCounterOf(this.tables);
    if (counter !== this.changeCounter) {
      this.entries.clear();
      this.changeCounter = counter;
    }
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const value = load();
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}

/**
 * A TableMemo for each connection's repositories (the writer's, the reader's): `read` remembers what `store` reads of
 * the tables, only while its transaction, if one is open, has not written them (TableMemo.mayRemember).
 */
export class ConnectionMemo<T> {
  private readonly memos = new WeakMap<{ readonly connection: Connection }, TableMemo<T>>();

  /** `tables`: every table the values are read from. */
  constructor(private readonly tables: readonly string[]) {}

  read(store: { readonly connection: Connection }, key: string, load: () => T): T {
    let memo = this.memos.get(store);
    if (memo === undefined) {
      memo = new TableMemo(this.tables);
      this.memos.set(store, memo);
    }
    return memo.get(key, load, memo.mayRemember(store.connection));
  }
}

/** `value` frozen throughout: what a memo hands out is shared by every later caller, none of which may change it. */
export function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFrozen(member);
    Object.freeze(value);
  }
  return value;
}
