/**
 * The lock the app and the CLI take to append to one journal: an OS file lock, which the OS lets go of when its holder
 * exits however it exits. So a crash leaves no lock for anyone to judge stale and take over (two takers would both
 * append after the same entry), and a live holder keeps it however long it takes (a keychain prompt). Node has no
 * call for an OS lock; SQLite takes one (fcntl on POSIX, LockFileEx on Windows) for an exclusive transaction, so the
 * lock is an exclusive transaction on an empty SQLite file beside the journal, through node:sqlite, which Node and
 * Electron carry (the service's store uses it too).
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { QkError } from '../../shared/errors';

/** How often a waiting append tries the lock again. */
const RETRY_MS = 20;

/** SQLite's "database is locked" (SQLITE_BUSY) and "table is locked" (SQLITE_LOCKED). */
const BUSY_CODES = new Set([5, 6]);

/**
 * Runs `fn` holding the lock on `lockFile`, waiting up to `waitMs` for another process (or another Journal of this
 * one) holding it; FILE_ERROR when it is still held after that, or the lock file cannot be used.
 */
export async function withJournalLock<R>(lockFile: string, waitMs: number, fn: () => Promise<R>): Promise<R> {
  let database: DatabaseSync;
  try {
    await mkdir(dirname(lockFile), { recursive: true, mode: 0o700 });
    // No busy timeout: SQLite would wait by blocking the event loop, so the waiting is done here, between tries.
    database = new DatabaseSync(lockFile, { timeout: 0 });
  } catch (error) {
    throw lockError(lockFile, error);
  }
  try {
    // The real clock: an injected one may stand still in tests.
    const deadline = Date.now() + waitMs;
    while (!tryLock(database, lockFile)) {
      if (Date.now() > deadline) {
        throw new QkError(
          'FILE_ERROR',
          `another QuorumKey process (the app or the CLI) has been appending to the journal for over ${waitMs / 1000} s, holding ${lockFile}; try again once it is done`,
          { path: lockFile },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    try {
      return await fn();
    } finally {
      database.exec('ROLLBACK');
    }
  } finally {
    database.close();
  }
}

/** Takes the lock if nobody holds it; false when someone does. */
function tryLock(database: DatabaseSync, lockFile: string): boolean {
  try {
    database.exec('BEGIN EXCLUSIVE');
    return true;
  } catch (error) {
    if (BUSY_CODES.has((error as { errcode?: number }).errcode ?? -1)) return false;
    throw lockError(lockFile, error);
  }
}

function lockError(lockFile: string, error: unknown): QkError {
  return new QkError('FILE_ERROR', `cannot take the journal's lock ${lockFile}: ${(error as Error).message}`, { path: lockFile });
}
