/**
 * The Sandbox's snapshots (docs/sandbox.md#snapshots): a suite seeds once, takes a snapshot, and restores it between
 * tests. A snapshot is the database's image and the clock's lead over the wall clock, held in memory for the life of
 * the process; restoring it keeps it, so one snapshot serves every test.
 */
import { QkError } from '../shared/errors';
import type { SandboxClock } from './clock';
import type { Store } from './store';

/** Snapshots held at once: each is a copy of the database in memory. */
export const MAX_SNAPSHOTS = 64;

interface Snapshot {
  image: Uint8Array;
  clockAheadMs: number;
}

export interface SnapshotDeps {
  store: Store;
  clock: SandboxClock;
  /** Drops what the service keeps in memory about the database's rows (the enclave's seeds of wallets). */
  forgetCachedRows: () => void;
  newId: () => string;
}

export class SandboxSnapshots {
  private readonly held = new Map<string, Snapshot>();

  constructor(private readonly deps: SnapshotDeps) {}

  /** Takes a snapshot once the running transaction ends; answers its id. */
  async take(): Promise<string> {
    if (this.held.size >= MAX_SNAPSHOTS) {
      throw new QkError(
        'LIMIT_EXCEEDED',
        `the Sandbox holds ${MAX_SNAPSHOTS} snapshots, the most it keeps: restore one of them, which it keeps, rather than taking another`,
        { limit: MAX_SNAPSHOTS },
      );
    }
    const clockAheadMs = this.deps.clock.aheadMs;
    const image = await this.deps.store.snapshot();
    const id = this.deps.newId();
    this.held.set(id, { image, clockAheadMs });
    return id;
  }

  /** Makes the database and the clock what they were at snapshot `id`; the snapshot stays, to be restored again. */
  async restore(id: string): Promise<void> {
    const snapshot = this.held.get(id);
    if (snapshot === undefined) {
      throw new QkError(
        'NOT_FOUND',
        `no snapshot ${id} in this Sandbox: snapshots last as long as its process, and ids come from POST /sandbox/v1/snapshot`,
        {
          snapshotId: id,
        },
      );
    }
    await this.deps.store.restore(snapshot.image);
    this.deps.clock.returnTo(snapshot.clockAheadMs);
    this.deps.forgetCachedRows();
  }

  /** Drops every snapshot (the service stops). */
  clear(): void {
    this.held.clear();
  }
}
