/**
 * `clear-signing test` and `clear-signing refresh` through the built CLI: results files in the registry's format, one
 * per fixture in one process; the shipped data written from a registry folder or a .tar.gz of one, with its commit
 * and counts reported. Neither needs a profile, the keychain or the network.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShippedRegistry } from '../../src/main/clear-signing/shipped-registry';
import { runCli, writeNoNetworkPreload } from './helpers';

const FIXTURES = join(import.meta.dirname, '../fixtures/erc7730-registry');
const POAP = join(FIXTURES, 'registry/poap/testsv2/calldata-PoapBridge.tests.json');
const PERMIT = join(FIXTURES, 'registry/permit/testsv2/eip712-permit-arbitrum-arb.tests.json');

let work: string;
let noNetwork: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cli-clear-signing-'));
  noNetwork = await writeNoNetworkPreload(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Results {
  runner: string;
  implementation: string;
  cases: { description: string; status: string }[];
}

const readResults = (path: string): Results => JSON.parse(readFileSync(path, 'utf8')) as Results;

describe('clear-signing test', () => {
  it('writes one fixture’s results to --output', async () => {
    const output = join(work, 'poap.json');
    const run = await runCli(join(work, 'data'), ['clear-signing', 'test', POAP, '--output', output], { noNetwork });
    expect(run).toMatchObject({ code: 0, stdout: '1 fixture: 1 pass, 0 fail, 0 error, 0 skipped\n' });
    const results = readResults(output);
    expect(results.runner).toBe('@ethereum-sourcify/clear-signing-test-runner');
    expect(results.cases).toEqual([expect.objectContaining({ description: 'Mint POAP token', status: 'pass' })]);
  });

  it('writes each fixture’s <name>.results.json to --output-dir', async () => {
    const dir = join(work, 'results');
    const run = await runCli(join(work, 'data'), ['clear-signing', 'test', POAP, PERMIT, '--output-dir', dir], { noNetwork });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^2 fixtures: \d+ pass, 0 fail, 0 error, 0 skipped\n$/);
    expect(readResults(join(dir, 'calldata-PoapBridge.results.json')).cases).toHaveLength(1);
    expect(readResults(join(dir, 'eip712-permit-arbitrum-arb.results.json')).cases.every((result) => result.status === 'pass')).toBe(true);
  });

  it('exits 1 when a case fails, the results still written', async () => {
    const fixture = join(work, 'calldata-PoapBridge.tests.json');
    const json = JSON.parse(readFileSync(POAP, 'utf8')) as { descriptor: string; tests: { expected: { intent: string } }[] };
    json.descriptor = join(FIXTURES, 'registry/poap/calldata-PoapBridge.json');
    for (const test of json.tests) test.expected.intent = 'Something else';
    writeFileSync(fixture, JSON.stringify(json));
    const output = join(work, 'failing.json');
    const run = await runCli(join(work, 'data'), ['clear-signing', 'test', fixture, '--output', output], { noNetwork });
    expect(run).toMatchObject({ code: 1, stdout: '1 fixture: 0 pass, 1 fail, 0 error, 0 skipped\n' });
    expect(readResults(output).cases[0]?.status).toBe('fail');
  });

  it('refuses --output with several fixtures, and a missing fixture', async () => {
    const several = await runCli(join(work, 'data'), ['clear-signing', 'test', POAP, PERMIT, '--output', join(work, 'x.json')]);
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('use --output-dir DIR for 2 fixtures');
    const missing = await runCli(join(work, 'data'), ['clear-signing', 'test', join(work, 'nothing.tests.json'), '--output', join(work, 'x.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nothing.tests.json is not a file');
  });
});

describe('clear-signing refresh', () => {
  it('writes the shipped data from a .tar.gz, with the registry commit and its counts', async () => {
    const archive = join(work, 'registry.tar.gz');
    const tar = spawnSync('tar', ['-czf', archive, '-C', join(FIXTURES, '..'), 'erc7730-registry']);
    expect(tar.status).toBe(0);
    const output = join(work, 'registry.generated.ts');
    const run = await runCli(join(work, 'data'), ['clear-signing', 'refresh', '--from', archive, '--output', output], { noNetwork });
    const commit = readFileSync(join(FIXTURES, 'REGISTRY_COMMIT'), 'utf8').trim();
    expect(run).toMatchObject({
      code: 0,
      stdout: `registry commit ${commit}\n3 descriptors written to ${output} (1 calldata, 2 EIP-712)\n0 refused\n`,
    });
    const module = readFileSync(output, 'utf8');
    const json = /^export const SHIPPED_REGISTRY_JSON = (.*);$/m.exec(module)?.[1];
    const shipped = parseShippedRegistry(JSON.parse(json ?? '""') as string);
    expect(shipped.registryCommit).toBe(commit);
    expect(shipped.index.entries.map((entry) => entry.source)).toEqual([
      { entity: 'permit', file: 'eip712-permit-arbitrum-arb.json' },
      { entity: 'poap', file: 'calldata-PoapBridge.json' },
      { entity: 'ercs', file: 'eip712-erc2612-permit.json' },
    ]);
  });

  it('names a descriptor it refuses, and why', async () => {
    const root = join(work, 'broken-registry');
    cpSync(FIXTURES, root, { recursive: true });
    writeFileSync(
      join(root, 'registry/poap/calldata-Broken.json'),
      JSON.stringify({ context: { contract: {} }, display: { formats: { 'not a signature': {} } } }),
    );
    const run = await runCli(join(work, 'data'), ['clear-signing', 'refresh', '--from', root, '--output', join(work, 'broken.generated.ts')], {
      noNetwork,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 descriptors written');
    expect(run.stdout).toMatch(/1 refused:\n {2}registry\/poap\/calldata-Broken\.json: display\.formats\["not a signature"\]: /);
  });

  it('refuses a folder that is not a registry', async () => {
    const run = await runCli(join(work, 'data'), ['clear-signing', 'refresh', '--from', work, '--output', join(work, 'none.generated.ts')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('holds no registry/ folder');
  });
});
