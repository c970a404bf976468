import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { z } from 'zod';
import { QkError } from '../../shared/errors';

/**
 * One JSON document on disk, validated by a zod schema on every read and write.
 * Writes are atomic (temp file in the same directory, fsync, rename) so a crash leaves either the old or the new
 * document, never a torn one. Files are created 0600 in a 0700 directory: they hold no secrets, but do hold which keys
 * and organizations this user works with.
 */
export class JsonFile<T> {
  /**
   * Pending writes per absolute path, shared by every instance in this process, so that concurrent read-modify-write
   * cycles on one file never lose each other's changes even when two services each hold their own JsonFile.
   */
  private static readonly queues = new Map<string, Promise<unknown>>();

  readonly path: string;

  constructor(
    path: string,
    private readonly schema: z.ZodType<T>,
  ) {
    this.path = resolve(path);
  }

  /** The stored document, or `undefined` when the file does not exist yet. */
  async read(): Promise<T | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw new QkError('FILE_ERROR', `cannot read ${this.path}: ${errorMessage(error)}; check its permissions`, {
        path: this.path,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new QkError(
        'FILE_ERROR',
        `${this.path} is not valid JSON (${errorMessage(error)}); restore it from a backup or move it aside to start empty`,
        { path: this.path },
      );
    }
    const parsed = this.schema.safeParse(json);
    if (!parsed.success) {
      throw new QkError(
        'FILE_ERROR',
        `${this.path} does not have the expected structure: ${describeIssues(parsed.error)}; restore it from a backup or move it aside to start empty`,
        { path: this.path, issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })) },
      );
    }
    return parsed.data;
  }

  /** Replaces the document atomically. */
  async write(value: T): Promise<void> {
    await this.enqueue(() => this.writeNow(value));
  }

  /**
   * Reads the document, lets `change` compute the next one, and writes it, with no other update of this instance in
   * between. `change` may do other work first (e.g. write a secret elsewhere) so that it happens before the write.
   * Returns what `change` returned alongside the document.
   */
  async update<R>(change: (current: T | undefined) => Promise<{ next: T; result: R }>): Promise<R> {
    return this.enqueue(async () => {
      const { next, result } = await change(await this.read());
      await this.writeNow(next);
      return result;
    });
  }

  private enqueue<R>(task: () => Promise<R>): Promise<R> {
    const run = (JsonFile.queues.get(this.path) ?? Promise.resolve()).then(task);
    const settled = run.catch(() => undefined);
    JsonFile.queues.set(this.path, settled);
    // Forget the queue once idle so long-running processes do not accumulate one entry per file ever touched.
    void settled.then(() => {
      if (JsonFile.queues.get(this.path) === settled) JsonFile.queues.delete(this.path);
    });
    return run;
  }

  private async writeNow(value: T): Promise<void> {
    const checked = this.schema.safeParse(value);
    if (!checked.success) {
      // The caller built an invalid document: a bug here, never something the user can fix.
      throw new QkError('INTERNAL', `refusing to write ${this.path}: ${describeIssues(checked.error)}`);
    }
    const directory = dirname(this.path);
    const temporary = join(directory, `.${basename(this.path)}.${randomUUID()}.tmp`);
    try {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(checked.data, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.path);
      await syncDirectory(directory);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw new QkError('FILE_ERROR', `cannot write ${this.path}: ${errorMessage(error)}; check free space and permissions`, {
        path: this.path,
      });
    }
  }
}

/** Makes the rename itself durable. Directories cannot be opened for fsync on Windows, where rename is durable anyway. */
async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message)).join('; ');
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
