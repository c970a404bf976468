/**
 * BIP-39 seeds of wallets that signed in the last minute, so that a run of signatures by one wallet pays for PBKDF2
 * (2,048 rounds of HMAC-SHA512, most of a wallet-account signature's CPU) once instead of every time; the enclave
 * keeps stored private keys it opened and checked, and wallet-account keys it derived and checked, in two more, for the
 * same reason (enclave/index.ts).
 *
 * Why holding them is no weaker than not: the enclave holds the sealing key, which opens every wallet in the
 * database, for its whole life, so a reader of its memory gains nothing from a seed it could not get anyway; and a
 * hit spares unsealing the mnemonic, whose JSON text (an immutable string) would otherwise linger unzeroed until
 * collected. Bounds: at most `maxSeeds` seeds, each zeroed `lifetimeMs` after it was computed (used or not), when
 * evicted to make room, when its wallet is deleted, and by clear() when the service stops.
 */
export interface SeedCacheLimits {
  maxSeeds: number;
  lifetimeMs: number;
}

interface Entry {
  /** What the seed was computed from (a hash of the sealed wallet): a seed is only ever used for that. */
  source: string;
  seed: Uint8Array;
  expiry: NodeJS.Timeout;
}

export class SeedCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly limits: SeedCacheLimits) {}

  /**
   * Runs `use` with the seed cached for wallet `id`, computing it with `compute` when absent or computed from another
   * `source`. `use` is synchronous so the seed cannot be zeroed while it runs; it must not keep the seed.
   */
  async use<T>(id: string, source: string, compute: () => Promise<Uint8Array>, use: (seed: Uint8Array) => T): Promise<T> {
    let entry = this.current(id, source);
    if (entry === undefined) {
      const seed = await compute();
      // A concurrent request may have cached the same seed while this one computed it: keep that one.
      entry = this.current(id, source);
      if (entry === undefined) {
        entry = this.add(id, source, seed);
      } else {
        seed.fill(0);
      }
    }
    return use(entry.seed);
  }

  /** Zeroes and forgets the seed of wallet `id` (the wallet is being deleted). */
  forget(id: string): void {
    this.drop(id);
  }

  /** Zeroes and forgets every entry whose id `belongs` accepts (a wallet's account keys, when the wallet goes). */
  forgetWhere(belongs: (id: string) => boolean): void {
    for (const id of [...this.entries.keys()]) if (belongs(id)) this.drop(id);
  }

  /** Zeroes and forgets every seed. */
  clear(): void {
    for (const id of [...this.entries.keys()]) this.drop(id);
  }

  private current(id: string, source: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.source === source) return entry;
    this.drop(id);
    return undefined;
  }

  private add(id: string, source: string, seed: Uint8Array): Entry {
    // Map iteration follows insertion, so the first key is the oldest seed.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < this.limits.maxSeeds) break;
      this.drop(oldest);
    }
    const expiry = setTimeout(() => this.drop(id), this.limits.lifetimeMs);
    // The timer zeroes the seed; it must not keep the process alive on its own.
    expiry.unref();
    const entry = { source, seed, expiry };
    this.entries.set(id, entry);
    return entry;
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    clearTimeout(entry.expiry);
    entry.seed.fill(0);
    this.entries.delete(id);
  }
}
