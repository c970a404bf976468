/**
 * `clear-signing test FIXTURE… (--output FILE | --output-dir DIR)`: the registry's conformance runner, one results
 * file per fixture (docs/clear-signing.md#conformance).
 * `clear-signing refresh --from FOLDER|FILE.tar.gz [--output FILE]`: reads a registry, checks its descriptors and
 * writes the data the app ships (docs/clear-signing.md#the-shipped-registry).
 * Neither needs the keychain, a profile or the network.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { runFixture } from '../clear-signing/conformance';
import { refreshRegistryData, SHIPPED_REGISTRY_FILE } from '../clear-signing/refresh';
import type { CommandLine } from './arguments';
import { UsageError } from './usage-error';

export function clearSigningCommand({ values, positionals }: CommandLine): void {
  const [, sub, ...operands] = positionals;
  if (sub === 'test') return testFixtures(operands, values.output, values['output-dir']);
  if (sub === 'refresh') {
    const from = values.from;
    if (from === undefined || from === '') throw new UsageError('--from FOLDER or --from FILE.tar.gz is required (a copy of the ERC-7730 registry)');
    const report = refreshRegistryData(from, values.output ?? SHIPPED_REGISTRY_FILE);
    process.stdout.write(report);
    return;
  }
  throw new UsageError(`clear-signing takes test or refresh${sub === undefined ? '' : `, not ${sub}`}`);
}

function testFixtures(fixtures: string[], output: string | undefined, outputDir: string | undefined): void {
  if (fixtures.length === 0) throw new UsageError('clear-signing test needs at least one FIXTURE.tests.json');
  if ((output === undefined) === (outputDir === undefined))
    throw new UsageError('give exactly one of --output FILE (one fixture) and --output-dir DIR');
  if (output !== undefined && fixtures.length > 1)
    throw new UsageError(`--output writes one fixture's results; use --output-dir DIR for ${fixtures.length} fixtures`);
  for (const fixture of fixtures) {
    if (!existsSync(fixture) || !statSync(fixture).isFile()) throw new UsageError(`${fixture} is not a file`);
  }
  if (outputDir !== undefined) mkdirSync(outputDir, { recursive: true });
  const totals = { pass: 0, fail: 0, error: 0, skipped: 0 };
  for (const fixture of fixtures) {
    const results = runFixture(fixture);
    for (const result of results.cases) totals[result.status]++;
    const target = output ?? join(outputDir ?? '.', `${basename(fixture).replace(/\.tests\.json$|\.json$/, '')}.results.json`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify(results, null, 2)}\n`);
  }
  process.stdout.write(
    `${fixtures.length} fixture${fixtures.length === 1 ? '' : 's'}: ${totals.pass} pass, ${totals.fail} fail, ${totals.error} error, ${totals.skipped} skipped\n`,
  );
  if (totals.fail + totals.error > 0) process.exitCode = 1;
}
