/**
 * Issue 37: one live Sandbox per database. A second process is refused a database another live Sandbox holds,
 * naming its pid; a lock whose process was killed is taken over. A `:memory:` database's private folder (with the
 * service secret) goes on every exit: on close, on an exit without close, and after a kill, at the next start. A
 * database SQLite cannot read is refused naming the file and the fix.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/service';
import { Store } from '../../src/service/store';
import { lockFileOf } from '../../src/service/store/database-lock';
import { killCliProcesses, startCli, type CliProcess } from './cli-process';

const directory = mkdtempSync(join(tmpdir(), 'quorumkey-lock-'));
afterAll(() => {
  killCliProcesses();
  rmSync(directory, { recursive: true, force: true });
});

/** The database file the CLI says it serves (for `:memory:`, the file in its private folder). */
async function servedDatabase(cli: CliProcess): Promise<string> {
  for (;;) {
    const match = /with database (\S+)/.exec(cli.stderr());
    if (match !== null) return match[1]!;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function killed(cli: CliProcess): Promise<void> {
  cli.child.kill('SIGKILL');
  await cli.closed;
}

describe('the database lock', () => {
  it('refuses a database another live Sandbox holds, naming its pid, and takes over once that one was killed', async () => {
    const db = join(directory, 'shared.db');
    const first = await startCli(['--db', db]);
    expect(await servedDatabase(first)).toBe(db);
    const pid = first.child.pid!;
    await expect(startService({ db, log: () => undefined })).rejects.toMatchObject({
      code: 'DATABASE_IN_USE',
      message: expect.stringContaining(`${db} is open in another Sandbox, process ${pid}: stop it`),
    });

    await killed(first);
    expect(existsSync(lockFileOf(db))).toBe(true);
    const second = await startService({ db, log: () => undefined });
    expect(second.info.organizationId).toBe(first.info.organizationId);
    await second.close();
    expect(existsSync(lockFileOf(db))).toBe(false);
  });

  it('takes over a lock that names no live process', async () => {
    const db = join(directory, 'stale.db');
    writeFileSync(lockFileOf(db), '2147483646\n');
    const store = Store.open(db);
    await store.close();
    expect(existsSync(lockFileOf(db))).toBe(false);
  });
});

describe('a :memory: database', () => {
  it('removes the folder a killed Sandbox left, at the next start', async () => {
    const cli = await startCli(['--db', ':memory:']);
    const folder = dirname(await servedDatabase(cli));
    expect(existsSync(join(folder, 'service.db.service-secret'))).toBe(true);
    await killed(cli);
    expect(existsSync(folder)).toBe(true);
    const store = Store.open(':memory:');
    expect(existsSync(folder)).toBe(false);
    await store.close();
    expect(existsSync(dirname(store.path))).toBe(false);
  });

  it('removes its folder when the process exits without closing it', async () => {
    const script = join(directory, 'exit-open.ts');
    const storeModule = resolve(import.meta.dirname, '../../src/service/store/index.ts');
    writeFileSync(script, `import { Store } from '${storeModule}';\nconsole.log(Store.open(':memory:').path);\nprocess.exit(0);\n`);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script]);
    const path = stdout.trim();
    expect(path).toMatch(/quorumkey-service-.*service\.db$/);
    expect(existsSync(dirname(path))).toBe(false);
  });
});

describe('a database SQLite cannot read', () => {
  it('is refused with an error that names the file and what to do, and leaves no lock behind', () => {
    const db = join(directory, 'not-a-database.db');
    writeFileSync(db, Buffer.alloc(8192, 0x5a));
    expect(() => Store.open(db)).toThrow(
      expect.objectContaining({
        code: 'FILE_ERROR',
        message: expect.stringMatching(new RegExp(`^the database ${db} cannot be read \\(file is not a database\\).*Give --db another file`)),
      }),
    );
    expect(existsSync(lockFileOf(db))).toBe(false);
  });
});
