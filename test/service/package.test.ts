/**
 * `quorumkey-sandbox` as app developers get it (docs/sandbox.md#one-command): `npm pack` (whose prepack bundles the
 * service), the package installed from the lockfile with `--omit=dev` (from the npm cache where it can), and its bin
 * run with plain node: no tsx, no build. The Dockerfile takes the same steps; this test holds it to them.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killCliProcesses, startCli } from './cli-process';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), 'quorumkey-package-'));
const app = join(directory, 'app');
let npmOutput = '';

beforeAll(async () => {
  await run('npm', ['pack', '--pack-destination', directory], { cwd: ROOT });
  const tarball = readdirSync(directory).find((name) => name.endsWith('.tgz'))!;
  mkdirSync(app);
  await run('tar', ['-xzf', join(directory, tarball), '--strip-components=1', '-C', app]);
  copyFileSync(join(ROOT, 'package-lock.json'), join(app, 'package-lock.json'));
  const installed = await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app });
  npmOutput = installed.stdout + installed.stderr;
}, 600_000);
afterAll(() => {
  killCliProcesses();
  rmSync(directory, { recursive: true, force: true });
});

describe('the quorumkey-sandbox package', () => {
  it('installs without dev dependencies and without a warning', () => {
    expect(npmOutput).not.toMatch(/warn/i);
    // (typescript is installed anyway: @solana/kit's packages name it as an optional peer.)
    for (const devOnly of ['tsx', 'vite', 'electron', 'vitest', '@turnkey/http']) expect(existsSync(join(app, 'node_modules', devOnly))).toBe(false);
    // npm always packs the file `main` names, so a checkout with the app built ships that one file too, and no more.
    const appBuilt = existsSync(join(ROOT, 'out/main/index.js'));
    expect(readdirSync(app).sort()).toEqual([
      'README.md',
      'dist-sandbox',
      'docs',
      'node_modules',
      ...(appBuilt ? ['out'] : []),
      'package-lock.json',
      'package.json',
    ]);
    if (appBuilt) expect(readdirSync(join(app, 'out'), { recursive: true })).toEqual(['main', join('main', 'index.js')]);
  });

  it('runs its bin with plain node: a seeded Sandbox answers whoami to @turnkey/http, reports its health, and stops on SIGTERM', async () => {
    const bin = (JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['quorumkey-sandbox']!;
    const seed = join(directory, 'seed.yaml');
    writeFileSync(
      seed,
      'organization:\n  organizationName: Packaged\n  users: [{ userName: ci, apiKeys: [{ apiKeyName: ci, keyFile: ci.key.json }] }]\n  rootQuorum: { threshold: 1, userNames: [ci] }\n',
    );
    const sandbox = await startCli(['--db', ':memory:', '--seed', seed], [join(app, bin)]);
    const key = JSON.parse(readFileSync(join(directory, 'ci.key.json'), 'utf8')) as { publicKey: string; privateKey: string };
    const client = new TurnkeyClient(
      { baseUrl: sandbox.info.baseUrl },
      new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
    );
    expect(await client.getWhoami({ organizationId: sandbox.info.organizationId })).toMatchObject({
      organizationName: 'Packaged',
      username: 'ci',
      userId: sandbox.info.rootUserId,
    });
    const health = await fetch(`${sandbox.info.baseUrl}/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);

    sandbox.child.kill('SIGTERM');
    await sandbox.closed;
    expect(sandbox.child.exitCode).toBe(0);
  });

  it('is what the Dockerfile builds and runs', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const bin = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['quorumkey-sandbox']!;
    expect(dockerfile).toMatch(/RUN npm pack --pack-destination /);
    expect(dockerfile).toMatch(/tar -xzf \/tmp\/quorumkey\.tgz --strip-components=1/);
    expect(dockerfile).toMatch(/COPY package-lock\.json/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toContain(`ENTRYPOINT ["node", "${bin}"]`);
    expect(dockerfile).toContain("fetch('http://127.0.0.1:8080/health')");
  });
});
