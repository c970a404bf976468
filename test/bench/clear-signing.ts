/**
 * ERC-7730 conformance over a whole registry copy: every `testsv2` fixture run by the conformance runner
 * (src/main/clear-signing/conformance.ts), its cases counted by status, each case that does not pass listed with why,
 * and the time a case takes. The registry is the snapshot beside the repository (`../shared/erc7730-registry`) unless
 * ERC7730_REGISTRY names another folder. Also times the shipped data's first parse and a lookup in it. Prints numbers,
 * asserts nothing: the conformance goal and its failures are in docs/clear-signing.md.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runFixture, type CaseStatus } from '../../src/main/clear-signing/conformance';
import { shippedDescriptors } from '../../src/main/clear-signing/shipped-registry';

const ROOT = resolve(import.meta.dirname, '../..');

function fixtureFiles(registry: string): string[] {
  const files: string[] = [];
  for (const top of ['registry', 'ercs']) {
    const folder = join(registry, top);
    if (!existsSync(folder)) continue;
    for (const entity of readdirSync(folder).sort()) {
      const tests = join(folder, entity, 'testsv2');
      if (!existsSync(tests)) continue;
      for (const name of readdirSync(tests).sort()) if (name.endsWith('.tests.json')) files.push(join(tests, name));
    }
  }
  return files;
}

export async function run(): Promise<void> {
  const registry = resolve(process.env['ERC7730_REGISTRY'] ?? join(ROOT, '../shared/erc7730-registry'));
  const fixtures = fixtureFiles(registry);
  if (fixtures.length === 0) throw new Error(`${registry} holds no registry/<entity>/testsv2/*.tests.json fixtures: set ERC7730_REGISTRY`);
  const counts: Record<CaseStatus, number> = { pass: 0, fail: 0, error: 0, skipped: 0 };
  const misses: string[] = [];
  const began = performance.now();
  for (const fixture of fixtures) {
    for (const result of runFixture(fixture).cases) {
      counts[result.status]++;
      if (result.status !== 'pass')
        misses.push(
          `  ${result.status} ${fixture.slice(registry.length + 1)}: ${result.description}${result.message === undefined ? '' : ` (${result.message})`}`,
        );
    }
  }
  const elapsedMs = performance.now() - began;
  const total = counts.pass + counts.fail + counts.error + counts.skipped;
  console.log(`registry ${registry}: ${fixtures.length} fixtures, ${total} cases`);
  console.log(
    `pass ${counts.pass} (${((100 * counts.pass) / total).toFixed(1)}%), fail ${counts.fail}, error ${counts.error}, skipped ${counts.skipped}`,
  );
  for (const miss of misses) console.log(miss);
  console.log(
    `${elapsedMs.toFixed(0)} ms in all, ${(elapsedMs / total).toFixed(2)} ms a case (the registry's descriptors read once, then each fixture's)`,
  );

  const parseBegan = performance.now();
  const { index } = await shippedDescriptors();
  console.log(
    `shipped data: ${index.entries.length} descriptors parsed and indexed in ${(performance.now() - parseBegan).toFixed(0)} ms (first use only)`,
  );
}
