/**
 * A FIFO async mutex. node:sqlite is synchronous on one connection, but a transaction may await
 * (enclave work such as HPKE is async), so transactions are serialized here rather than by SQLite.
 */
export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(task: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await task();
    } finally {
      release();
    }
  }
}
