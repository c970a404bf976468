/**
 * Entry of `npm run bench [-- NAME…]`: runs each bench module (or only the named ones) in turn and prints its
 * results. Every module exports `run(): Promise<unknown>` and prints its own lines; add new modules to BENCHES.
 */
const BENCHES: Array<{ name: string; load: () => Promise<{ run: () => Promise<unknown> }> }> = [
  { name: 'stamps', load: () => import('./stamps.js') },
  { name: 'derivation', load: () => import('./derivation.js') },
  { name: 'service', load: () => import('./service.js') },
  { name: 'signing', load: () => import('./signing.js') },
  { name: 'approvals-render', load: () => import('./approvals-render.js') },
  { name: 'approvals', load: () => import('./approvals-votes.js') },
  { name: 'journal', load: () => import('./journal.js') },
  { name: 'journal-hostile', load: () => import('./journal-hostile.js') },
  { name: 'policies', load: () => import('./policies.js') },
  { name: 'inbox', load: () => import('./inbox.js') },
  { name: 'hostile-service', load: () => import('./hostile-service.js') },
  { name: 'sandbox', load: () => import('./sandbox.js') },
  { name: 'sandbox-process', load: () => import('./sandbox-process.js') },
  { name: 'cli', load: () => import('./cli.js') },
  { name: 'clear-signing', load: () => import('./clear-signing.js') },
  { name: 'simulation', load: () => import('./simulation.js') },
];

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !BENCHES.some((bench) => bench.name === name));
  if (unknown.length > 0) {
    console.error(`unknown bench ${unknown.join(', ')}; choose from ${BENCHES.map((bench) => bench.name).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  let failed = false;
  for (const bench of BENCHES.filter(({ name }) => requested.length === 0 || requested.includes(name))) {
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
