/**
 * scripts/api-coverage.ts (docs/sandbox.md#api-coverage) against a real service: the count the docs state is a floor
 * the service still reaches (operations are added, never taken away), every swagger operation is counted once, and
 * the Sandbox's own routes are listed apart. Run as `npm run --silent api-coverage`, it prints the same figures.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { coverageOf, servedRoutes, type ApiCoverage } from '../../scripts/api-coverage';

const ROOT = resolve(import.meta.dirname, '../..');
const docs = readFileSync(join(ROOT, 'docs/sandbox.md'), 'utf8');
const stated = /serves at least (\d+) of the (\d+) operations/.exec(docs);

let coverage: ApiCoverage;
beforeAll(async () => {
  coverage = coverageOf(await servedRoutes());
}, 60_000);

describe('the API coverage script', () => {
  it('finds at least the count docs/sandbox.md states, out of the swagger it names', () => {
    expect(stated, 'docs/sandbox.md states "serves at least N of the M operations"').not.toBeNull();
    const [, floor, total] = stated!.map(Number);
    expect(coverage.publicApi.total).toBe(total);
    expect(coverage.publicApi.served).toBeGreaterThanOrEqual(floor!);
  });

  it('counts each swagger operation once, served or not, under its tag', () => {
    const counted = coverage.publicApi.tags.flatMap((tag) => [...tag.served, ...tag.unserved.map((operation) => operation.path)]);
    expect(new Set(counted).size).toBe(counted.length);
    expect(counted).toHaveLength(coverage.publicApi.total);
    const wallets = coverage.publicApi.tags.find((tag) => tag.tag === 'Wallets')!;
    expect(wallets.served).toContain('/public/v1/submit/create_wallet');
  });

  it("lists the Sandbox's own routes apart, and the auth proxy against its swagger", () => {
    expect(coverage.sandboxOnly).toEqual(
      expect.arrayContaining(['GET /health', 'POST /sandbox/v1/clock', 'POST /sandbox/v1/snapshot', 'POST /sandbox/v1/restore']),
    );
    expect(coverage.sandboxOnly.some((route) => route.includes('/public/v1/submit/'))).toBe(false);
    expect(coverage.authProxy.served).toBeGreaterThan(0);
    expect(coverage.authProxy.served + coverage.authProxy.unserved.length).toBe(coverage.authProxy.total);
  });

  it('prints the same count through npm run api-coverage', async () => {
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'api-coverage'], { cwd: ROOT, timeout: 120_000 });
    expect(stdout.split('\n')[0]).toBe(
      `Turnkey public API (test/unit/api/fixtures/turnkey-public-api.swagger.json): the Sandbox serves ${coverage.publicApi.served} of ${coverage.publicApi.total} operations`,
    );
    expect(stdout).toContain("The Sandbox's own routes");
  }, 120_000);
});
