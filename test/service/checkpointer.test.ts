/**
 * Commits only append to the WAL; the checkpoint thread copies them into the database file, and closing the
 * store stops the thread and leaves no WAL behind.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/service/store';
import { RESTART_AFTER_FRAMES } from '../../src/service/store/checkpointer';
import { integer } from '../../src/service/store/connection';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** The first salt of the WAL's header (bytes 16 to 19), which SQLite changes each time it starts the WAL over. */
function walSalt(databasePath: string): number {
  const descriptor = openSync(`${databasePath}-wal`, 'r');
  try {
    const salt = Buffer.alloc(4);
    readSync(descriptor, salt, 0, 4, 16);
    return salt.readUInt32BE(0);
  } finally {
    closeSync(descriptor);
  }
}

describe('WAL checkpoints', () => {
  it('happen off the committing connection and reach the database file', async () => {
    store = Store.open(':memory:');
    const fileSizeAfterMigrations = statSync(store.path).size;
    await store.transaction((tx) => {
      for (let index = 0; index < 200; index += 1) {
        tx.organizations.insert({ id: randomUUID(), name: `organization ${index} ${'x'.repeat(200)}`, rootQuorumThreshold: 1, now: index });
      }
    });
    // 200 small rows stay far below SQLite's automatic threshold (1,000 pages): only the thread copies them.
    expect(await until(() => statSync(store!.path).size > fileSizeAfterMigrations, 5_000)).toBe(true);
    const count = store.read.connection.get('SELECT count(*) AS n FROM organizations');
    expect(integer(count!, 'n')).toBe(200);
  });

  it('let the WAL start over while commits keep coming', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'quorumkey-checkpoint-'));
    try {
      const path = join(directory, 'service.db');
      const fileStore = Store.open(path);
      store = fileStore;
      let commits = 0;
      // Two rows of 60,000 characters: at least 30 pages of 4 KiB, so at least 30 frames a commit.
      const framesPerCommit = 30;
      const commit = () =>
        fileStore.transaction((tx) => {
          for (let row = 0; row < 2; row += 1) {
            tx.organizations.insert({ id: randomUUID(), name: `${commits} ${row} ${'x'.repeat(60_000)}`, rootQuorumThreshold: 1, now: commits });
          }
          commits += 1;
        });
      await commit();
      // The thread has started once it has copied that commit.
      expect(await until(() => statSync(path).size > 4096, 5_000)).toBe(true);
      // The next commit starts the WAL over (all of it was copied): its header's first salt, which SQLite changes at
      // each start, is where this test begins.
      await commit();
      const firstSalt = walSalt(path);
      // One after another, each a moment after the last (as a service's requests come): without the pause every
      // checkpoint would end behind the commits made while it ran, and the WAL would never start over. How many frames
      // it holds before the pause takes effect follows the machine's load, so the test waits for the start over
      // itself, within a bound the old code's WAL passed without one (159 to 173 MB).
      const framesBound = 8 * RESTART_AFTER_FRAMES;
      let startedOver = false;
      while (!startedOver && commits * framesPerCommit < framesBound) {
        await commit();
        await new Promise((resolve) => setTimeout(resolve, 1));
        startedOver = walSalt(path) !== firstSalt;
      }
      expect(startedOver, `the WAL did not start over in ${commits} commits`).toBe(true);
      expect(integer(fileStore.read.connection.get('SELECT count(*) AS n FROM organizations')!, 'n')).toBe(2 * commits);
    } finally {
      await store?.close();
      store = undefined;
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('do not hold open a process whose store is never closed', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'quorumkey-checkpoint-'));
    try {
      const script = join(directory, 'left-open.mts');
      const storeModule = resolve(import.meta.dirname, '../../src/service/store/index.ts');
      writeFileSync(
        script,
        `import { Store } from '${storeModule}';\n` +
          `const store = Store.open(':memory:');\n` +
          `await store.transaction((tx) => tx.organizations.insert({ id: 'left open', name: 'left open', rootQuorumThreshold: 1, now: 1 }));\n` +
          // Past the thread's first checks: its timer and its messages must not hold the process either.
          `await new Promise((resolve) => setTimeout(resolve, 300));\n`,
      );
      // Ends on its own: a process the thread held open would be killed by the timeout, and the call would reject.
      await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { timeout: 15_000 });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('stop when the store closes, which then leaves an empty WAL', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'quorumkey-checkpoint-'));
    try {
      const path = join(directory, 'service.db');
      const fileStore = Store.open(path);
      await fileStore.transaction((tx) => tx.organizations.insert({ id: randomUUID(), name: 'one', rootQuorumThreshold: 1, now: 1 }));
      await fileStore.close();
      const wal = `${path}-wal`;
      expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
      const reopened = Store.open(path);
      expect(integer(reopened.read.connection.get('SELECT count(*) AS n FROM organizations')!, 'n')).toBe(1);
      await reopened.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
