import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SeedCache } from '../../../src/service/enclave/seed-cache.js';

const LIFETIME_MS = 60_000;

/** A compute function that counts its calls and hands out seeds filled with its call number. */
function countingCompute() {
  const seeds: Uint8Array[] = [];
  const compute = () => {
    const seed = new Uint8Array(64).fill(seeds.length + 1);
    seeds.push(seed);
    return Promise.resolve(seed);
  };
  return { compute, seeds };
}

const firstByte = (seed: Uint8Array) => seed[0];
const isZeroed = (seed: Uint8Array) => seed.every((byte) => byte === 0);

describe('SeedCache', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('computes a seed once for repeated uses within its lifetime', async () => {
    const cache = new SeedCache({ maxSeeds: 4, lifetimeMs: LIFETIME_MS });
    const { compute, seeds } = countingCompute();
    expect(await cache.use('w1', 'blob-w1', compute, firstByte)).toBe(1);
    vi.advanceTimersByTime(LIFETIME_MS - 1);
    expect(await cache.use('w1', 'blob-w1', compute, firstByte)).toBe(1);
    expect(seeds).toHaveLength(1);
  });

  it('zeroes a seed when its lifetime ends, used or not, and computes it afresh afterwards', async () => {
    const cache = new SeedCache({ maxSeeds: 4, lifetimeMs: LIFETIME_MS });
    const { compute, seeds } = countingCompute();
    await cache.use('w1', 'blob-w1', compute, firstByte);
    vi.advanceTimersByTime(LIFETIME_MS);
    expect(isZeroed(seeds[0]!)).toBe(true);
    expect(await cache.use('w1', 'blob-w1', compute, firstByte)).toBe(2);
  });

  it('zeroes the oldest seed to make room beyond maxSeeds', async () => {
    const cache = new SeedCache({ maxSeeds: 2, lifetimeMs: LIFETIME_MS });
    const { compute, seeds } = countingCompute();
    await cache.use('w1', 'blob-w1', compute, firstByte);
    await cache.use('w2', 'blob-w2', compute, firstByte);
    await cache.use('w3', 'blob-w3', compute, firstByte);
    expect(seeds.map(isZeroed)).toEqual([true, false, false]);
    expect(await cache.use('w2', 'blob-w2', compute, firstByte)).toBe(2);
    expect(await cache.use('w1', 'blob-w1', compute, firstByte)).toBe(4);
  });

  it('keeps one seed when two requests compute it at once, zeroing the other', async () => {
    const cache = new SeedCache({ maxSeeds: 4, lifetimeMs: LIFETIME_MS });
    const { compute, seeds } = countingCompute();
    const results = await Promise.all([cache.use('w1', 'blob-w1', compute, firstByte), cache.use('w1', 'blob-w1', compute, firstByte)]);
    expect(results).toEqual([1, 1]);
    expect(seeds.map(isZeroed)).toEqual([false, true]);
  });

  it("computes afresh when the wallet's sealed blob is another, and forgets a deleted wallet", async () => {
    const cache = new SeedCache({ maxSeeds: 4, lifetimeMs: LIFETIME_MS });
    const { compute, seeds } = countingCompute();
    await cache.use('w1', 'blob-a', compute, firstByte);
    expect(await cache.use('w1', 'blob-b', compute, firstByte)).toBe(2);
    expect(isZeroed(seeds[0]!)).toBe(true);
    cache.forget('w1');
    expect(isZeroed(seeds[1]!)).toBe(true);
    expect(await cache.use('w1', 'blob-b', compute, firstByte)).toBe(3);
  });

  it('forgets only the entries forgetWhere() accepts, zeroing them', async () => {
    const cache = new SeedCache({ maxSeeds: 4, lifetimeMs: LIFETIME_MS });
    const { compute, seeds } = countingCompute();
    await cache.use('w1 a', 'blob-w1', compute, firstByte);
    await cache.use('w1 b', 'blob-w1', compute, firstByte);
    await cache.use('w2 a', 'blob-w2', compute, firstByte);
    cache.forgetWhere((id) => id.startsWith('w1 '));
    expect(seeds.map(isZeroed)).toEqual([true, true, false]);
    expect(await cache.use('w2 a', 'blob-w2', compute, firstByte)).toBe(3);
    expect(await cache.use('w1 a', 'blob-w1', compute, firstByte)).toBe(4);
  });

  it('zeroes every seed on clear() and keeps no failed computation', async () => {
    const cache = new SeedCache({ maxSeeds: 4, lifetimeMs: LIFETIME_MS });
    const { compute, seeds } = countingCompute();
    await cache.use('w1', 'blob-w1', compute, firstByte);
    await cache.use('w2', 'blob-w2', compute, firstByte);
    cache.clear();
    expect(seeds.every(isZeroed)).toBe(true);
    await expect(cache.use('w3', 'blob-w3', () => Promise.reject(new Error('bad mnemonic')), firstByte)).rejects.toThrow('bad mnemonic');
    expect(await cache.use('w3', 'blob-w3', compute, firstByte)).toBe(3);
  });
});
