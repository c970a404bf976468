/**
 * One live Sandbox per database (docs/sandbox.md#the-database): a lock file beside it, `<db>.lock`, holds the pid
 * of the process that has it open. A second process refuses the database while that pid lives; a lock whose process
 * is gone (killed, crashed) is taken over. Also what a `:memory:` database's private folder is swept by: a folder
 * whose lock names a process that is gone was left by a killed Sandbox, and the next one to start removes it.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QkError } from '../../shared/errors';

export function lockFileOf(databasePath: string): string {
  return `${databasePath}.lock`;
}

/** The pid a lock file names; undefined when there is none, or it holds anything else (a write cut short). */
function holderOf(lockFile: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(lockFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock naming this very process is stale too: it was left by an earlier life of the same pid (a container
 * restarted, where the Sandbox is always pid 1).
 */
function heldByAnother(lockFile: string): number | undefined {
  const holder = holderOf(lockFile);
  return holder !== undefined && holder !== process.pid && isAlive(holder) ? holder : undefined;
}

export class DatabaseLock {
  private constructor(readonly file: string) {}

  /** Takes the lock of the database at `databasePath`, or refuses it (DATABASE_IN_USE) naming the holder's pid. */
  static acquire(databasePath: string): DatabaseLock {
    const file = lockFileOf(databasePath);
    // Twice at most: once more after removing a lock whose process is gone.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
        return new DatabaseLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = heldByAnother(file);
      if (holder !== undefined) {
        throw new QkError(
          'DATABASE_IN_USE',
          `${databasePath} is open in another Sandbox, process ${holder}: stop it, or give this one another --db (or --db :memory:); if process ${holder} is no Sandbox, delete ${file}`,
          { pid: holder, lockFile: file },
        );
      }
      rmSync(file, { force: true });
    }
    throw new QkError('DATABASE_IN_USE', `${databasePath}: another Sandbox took it while this one was starting`, { lockFile: file });
  }

  /** Removes the lock file, unless another process has taken it over meanwhile. */
  release(): void {
    if (holderOf(this.file) === process.pid) rmSync(this.file, { force: true });
  }
}

export const MEMORY_FOLDER_PREFIX = 'quorumkey-service-';
export const MEMORY_DATABASE_FILE = 'service.db';

/** Removes the private folders of `:memory:` databases whose Sandbox was killed before it could remove them. */
export function sweepAbandonedMemoryFolders(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(MEMORY_FOLDER_PREFIX)) continue;
    const folder = join(tmpdir(), name);
    const holder = holderOf(lockFileOf(join(folder, MEMORY_DATABASE_FILE)));
    if (holder !== undefined && holder !== process.pid && !isAlive(holder)) rmSync(folder, { recursive: true, force: true });
  }
}
