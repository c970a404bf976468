import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { monotonicMicros } from '../../bench/cpu-profile';
import { GC_TRACE_FLAG, GcTrace } from '../../bench/gc-trace';

/** Allocates on the main thread and then on a worker, and forces one full collection on the main thread. */
const ALLOCATING_SCRIPT = `
const { Worker } = require('node:worker_threads');
let kept = [];
for (let index = 0; index < 300000; index += 1) kept.push({ index });
kept = undefined;
globalThis.gc();
new Worker('let kept = []; for (let index = 0; index < 300000; index += 1) kept.push({ index });', { eval: true });
console.log('{"done":true}');
`;

describe('GcTrace', () => {
  it("counts the main thread's collections from this Node's own trace lines, and takes the workers' without counting them", () => {
    const from = monotonicMicros();
    const run = spawnSync(process.execPath, [GC_TRACE_FLAG, '--expose-gc', '-e', ALLOCATING_SCRIPT], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    const trace = new GcTrace();
    const lines = run.stdout.split('\n').filter((line) => line !== '');
    const untaken = lines.filter((line) => !trace.take(line));
    // Every line but the script's own is a collection's, whichever thread it ran on.
    expect(untaken).toEqual(['{"done":true}']);
    expect(lines.some((line) => /^\[\d+:0x[0-9a-f]+:[1-9]\d*\]/.test(line))).toBe(true);

    const summary = trace.describe({ fromMicros: from, toMicros: monotonicMicros() });
    const young = Number(/GC: (\d+) young-generation collections/.exec(summary)?.[1]);
    const mainThreadYoung = lines.filter((line) => /^\[\d+:0x[0-9a-f]+:0\].* gc=s /.test(line)).length;
    expect(young).toBe(mainThreadYoung);
    expect(young).toBeGreaterThan(0);
    expect(summary).toMatch(/, [1-9]\d* full \(pauses [\d.]+ ms on average/);
  });

  it('leaves out collections outside the window', () => {
    const trace = new GcTrace();
    trace.take('[1:0x1:0]       62 ms: pause=0.7 mutator=59.4 gc=s reduce_memory=0 promoted=1000000 allocated=1');
    const after = monotonicMicros() + 1;
    expect(trace.describe({ fromMicros: after, toMicros: after + 1_000_000 })).toBe(
      '  service main-thread GC: 0 young-generation collections in 1.0 s, 0 full',
    );
  });
});
