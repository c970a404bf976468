/**
 * `--dump-state FILE` and `--load-state FILE` (docs/sandbox.md#state-files): the Sandbox's whole state in one file,
 * written when it stops and read when a new one starts. The file is a SQLite database: the Sandbox's tables as a
 * snapshot holds them (Store.snapshot), plus one table `sandbox_state` with what lives outside the database and a
 * restored Sandbox needs to answer as before: the service secret its wallets and keys are sealed under, and its
 * time. It is as secret as the database and its secret file together, so it is written for its owner only.
 */
import { existsSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { QkError } from '../shared/errors';

/** Bumped when the `sandbox_state` table changes meaning; a file of another format is refused. */
const STATE_FORMAT = 1;
const STATE_TABLE = 'sandbox_state';

export interface SandboxState {
  /** The database, as Store.snapshot makes it. */
  image: Uint8Array;
  serviceSecret: { secret: Uint8Array; createdAtMs: number };
  /** The Sandbox's time when it was dumped. */
  nowMs: number;
}

/** Writes `state` to `file` (mode 0600), replacing it whole: a reader never sees half a file. */
export function writeStateFile(file: string, state: SandboxState): void {
  const db = new DatabaseSync(':memory:');
  try {
    db.deserialize(state.image);
    db.exec(
      `CREATE TABLE ${STATE_TABLE} (format INTEGER NOT NULL, service_secret TEXT NOT NULL, secret_created_at INTEGER NOT NULL, now_ms INTEGER NOT NULL)`,
    );
    db.prepare(`INSERT INTO ${STATE_TABLE} VALUES (?, ?, ?, ?)`).run(
      STATE_FORMAT,
      bytesToHex(state.serviceSecret.secret),
      state.serviceSecret.createdAtMs,
      state.nowMs,
    );
    const partial = `${file}.partial`;
    writeFileSync(partial, db.serialize(), { mode: 0o600 });
    renameSync(partial, file);
  } finally {
    db.close();
  }
}

/** Reads a file `writeStateFile` wrote; anything else is refused (CONFIG_INVALID) naming the file and why. */
export function readStateFile(file: string): SandboxState {
  if (!existsSync(file)) throw new QkError('CONFIG_INVALID', `--load-state ${file}: no such file`, { file });
  const refuse = (why: string): never => {
    throw new QkError('CONFIG_INVALID', `--load-state ${file}: ${why}; give a file a Sandbox wrote with --dump-state`, { file });
  };
  const db = new DatabaseSync(':memory:');
  try {
    try {
      db.deserialize(readFileSync(file));
      const table = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(STATE_TABLE);
      if (table === undefined) return refuse('not a Sandbox state file (no sandbox_state table)');
    } catch (error) {
      if (error instanceof QkError) throw error;
      return refuse(`not a Sandbox state file (${(error as Error).message})`);
    }
    const rows = db.prepare(`SELECT format, service_secret, secret_created_at, now_ms FROM ${STATE_TABLE}`).all();
    const row = rows[0];
    if (rows.length !== 1 || row === undefined) return refuse(`its sandbox_state table holds ${rows.length} rows, not one`);
    if (row.format !== STATE_FORMAT) return refuse(`it is in state format ${String(row.format)}; this Sandbox reads format ${STATE_FORMAT}`);
    const serviceSecret = { secret: hexToBytes(String(row.service_secret)), createdAtMs: Number(row.secret_created_at) };
    const nowMs = Number(row.now_ms);
    db.exec(`DROP TABLE ${STATE_TABLE}`);
    return { image: db.serialize(), serviceSecret, nowMs };
  } finally {
    db.close();
  }
}

/**
 * Writes the state's service secret where the new database's secret file goes (see serviceSecretFileOf), dated as
 * the original so that boot proofs read the same. The database is new, so a secret file already there belongs to
 * something else and is refused.
 */
export function placeServiceSecret(secretFile: string, serviceSecret: SandboxState['serviceSecret']): void {
  if (existsSync(secretFile)) {
    throw new QkError('CONFIG_INVALID', `--load-state: the new database's secret file ${secretFile} already exists; remove it or give another --db`, {
      file: secretFile,
    });
  }
  try {
    writeFileSync(secretFile, `${bytesToHex(serviceSecret.secret)}\n`, { mode: 0o600, flag: 'wx' });
    const dated = new Date(serviceSecret.createdAtMs);
    utimesSync(secretFile, dated, dated);
  } catch (error) {
    rmSync(secretFile, { force: true });
    throw error;
  }
}
