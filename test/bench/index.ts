/**
 * Entry of `npm run bench`: runs each bench module in turn and prints its results. Every module exports
 * `run(): Promise<unknown>` and prints its own lines; add new modules to BENCHES.
 */
const BENCHES: Array<{ name: string; load: () => Promise<{ run: () => Promise<unknown> }> }> = [
  { name: 'stamps', load: () => import('./stamps.js') },
  { name: 'derivation', load: () => import('./derivation.js') },
];

async function main(): Promise<void> {
  let failed = false;
  for (const bench of BENCHES) {
    console.log(`\n== ${bench.name} ==`);
    try {
      const module = await bench.load();
      await module.run();
    } catch (error) {
      failed = true;
      console.error(`bench ${bench.name} failed:`, error);
    }
  }
  process.exitCode = failed ? 1 : 0;
}

void main();
