/**
 * `quorumkey-sandbox` as app developers get it (docs/sandbox.md#one-command): the Sandbox's own package
 * (`sandbox/`, whose prepack bundles the service), packed and installed with `npm install --omit=dev` into an empty
 * app, then run with plain node: its bin signs, its programmatic entry starts and stops a Sandbox, its types check.
 * The Dockerfile takes the same steps; this test holds it to them.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { recoverAddress, recoverTransactionAddress, serializeSignature, serializeTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { runActionsJob, type ActionsJob } from '../support/actions-job';
import { killCliProcesses, startCli } from './cli-process';

const ROOT = resolve(import.meta.dirname, '../..');
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'sandbox/package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
};
const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), 'quorumkey-package-'));
/** An app that depends on the package and nothing else. */
const app = join(directory, 'app');
const installed = join(app, 'node_modules', MANIFEST.name);
const bin = join(installed, MANIFEST.bin['quorumkey-sandbox']!);
const seed = join(directory, 'seed.yaml');
let npmOutput = '';
let tarball = '';

beforeAll(async () => {
  // Packed once per run by the project's global setup (test/support/sandbox-pack-setup.ts).
  tarball = inject('sandboxTarball');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
  const install = await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', tarball], { cwd: app });
  npmOutput = install.stdout + install.stderr;
  writeFileSync(
    seed,
    [
      'organization:',
      '  organizationName: Packaged',
      '  users: [{ userName: ci, apiKeys: [{ apiKeyName: ci, keyFile: ci.key.json }] }]',
      '  rootQuorum: { threshold: 1, userNames: [ci] }',
      '  wallets:',
      '    - walletName: Treasury',
      `      accounts: [{ curve: CURVE_SECP256K1, pathFormat: PATH_FORMAT_BIP32, path: "m/44'/60'/0'/0/0", addressFormat: ADDRESS_FORMAT_ETHEREUM }]`,
      '',
    ].join('\n'),
  );
}, 600_000);
afterAll(() => {
  killCliProcesses();
  rmSync(directory, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolvePort) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolvePort(port));
    });
  });
}

/** Runs `script` (an ES module) with plain node in a new empty folder; resolves with its output and what it left there. */
async function runInEmptyFolder(name: string, script: string): Promise<{ stdout: string; stderr: string; left: string[] }> {
  const file = join(app, name);
  writeFileSync(file, script);
  const cwd = mkdtempSync(join(directory, 'cwd-'));
  const { stdout, stderr } = await run(process.execPath, [file], { cwd, timeout: 60_000 });
  return { stdout, stderr, left: readdirSync(cwd) };
}

describe('the quorumkey-sandbox package', () => {
  it('installs without a warning and brings no other package: every library is bundled', () => {
    expect(npmOutput).not.toMatch(/warn/i);
    expect(readdirSync(join(app, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([MANIFEST.name]);
    expect(readdirSync(installed).sort()).toEqual(['README.md', 'dist', 'package.json']);
  });

  it('answers --version and --help from its entry alone, before loading the service', async () => {
    // A module hook that lists every file node loads, printed as the process exits.
    const hook = join(directory, 'loaded-files.mjs');
    writeFileSync(
      hook,
      "import { registerHooks } from 'node:module';\nconst files = [];\nregisterHooks({ load(url, context, next) { if (url.startsWith('file:')) files.push(url); return next(url, context); } });\nprocess.on('exit', () => process.stderr.write(JSON.stringify(files)));\n",
    );
    const version = await run(process.execPath, ['--import', hook, bin, '--version']);
    expect(version.stdout).toBe(`${MANIFEST.version}\n`);
    const help = await run(process.execPath, ['--import', hook, bin, '--help']);
    expect(help.stdout).toMatch(/^usage: quorumkey-sandbox \[--host 127\.0\.0\.1\]/);
    expect(help.stdout).toContain('[--version]');
    const loaded = (JSON.parse(help.stderr) as string[]).map((url) => fileURLToPath(url)).filter((file) => file.startsWith(installed));
    const loadedBytes = loaded.reduce((sum, file) => sum + statSync(file).size, 0);
    expect(loaded).toContain(bin);
    // The service is megabytes of bundled libraries; the command line's own code is a few kilobytes.
    expect(loadedBytes, loaded.join('\n')).toBeLessThan(50_000);
  });

  it('runs its bin with plain node: a seeded Sandbox answers @turnkey/http, signs a raw payload and an Ethereum transaction, and stops on SIGTERM', async () => {
    const sandbox = await startCli(['--db', ':memory:', '--seed', seed], [bin]);
    const key = JSON.parse(readFileSync(join(directory, 'ci.key.json'), 'utf8')) as { publicKey: string; privateKey: string };
    const { organizationId } = sandbox.info;
    const client = new TurnkeyClient(
      { baseUrl: sandbox.info.baseUrl },
      new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
    );
    expect(await client.getWhoami({ organizationId })).toMatchObject({
      organizationName: 'Packaged',
      username: 'ci',
      userId: sandbox.info.rootUserId,
    });
    const health = await fetch(`${sandbox.info.baseUrl}/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);

    const { wallets } = await client.getWallets({ organizationId });
    const { accounts } = await client.getWalletAccounts({ organizationId, walletId: wallets[0]!.walletId });
    const address = accounts[0]!.address as `0x${string}`;
    const digest = `0x${'ab'.repeat(32)}` as const;
    const raw = await client.signRawPayload({
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: { signWith: address, payload: digest, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' },
    });
    expect(raw.activity.status, sandbox.stderr()).toBe('ACTIVITY_STATUS_COMPLETED');
    const { r, s, v } = raw.activity.result.signRawPayloadResult!;
    expect(await recoverAddress({ hash: digest, signature: serializeSignature({ r: `0x${r}`, s: `0x${s}`, yParity: Number(v) }) })).toBe(address);

    const unsigned = serializeTransaction({
      type: 'eip1559',
      chainId: 31337,
      nonce: 0,
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const transaction = await client.signTransaction({
      type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: { signWith: address, unsignedTransaction: unsigned.slice(2), type: 'TRANSACTION_TYPE_ETHEREUM' },
    });
    expect(transaction.activity.status, sandbox.stderr()).toBe('ACTIVITY_STATUS_COMPLETED');
    const signed = transaction.activity.result.signTransactionResult!.signedTransaction;
    expect(await recoverTransactionAddress({ serializedTransaction: `0x${signed}` as `0x02${string}` })).toBe(address);

    sandbox.child.kill('SIGTERM');
    await sandbox.closed;
    expect(sandbox.child.exitCode).toBe(0);
    // The default log level writes a line per request.
    expect(sandbox.stderr()).toMatch(
      new RegExp(`^200 sign_transaction org=${organizationId} activity=\\S+ ACTIVITY_STATUS_COMPLETED \\d+\\.\\dms$`, 'm'),
    );
  });

  it('decides a costly policy on its bundled policy worker', async () => {
    const folder = join(directory, 'costly-policy');
    mkdirSync(folder);
    const digits = '[0,1,2,3,4,5,6,7,8,9]';
    // Four any/all deep over literal lists: about 23,000 steps, past the event loop's slice (docs/service.md#policy-language).
    const condition = `${digits}.all(a, ${digits}.all(b, ${digits}.all(c, ${digits}.all(d, true))))`;
    writeFileSync(
      join(folder, 'seed.yaml'),
      [
        'organization:',
        '  organizationName: Costly',
        '  users:',
        '    - { userName: ci, apiKeys: [{ apiKeyName: ci, keyFile: ci.key.json }] }',
        '    - { userName: member, apiKeys: [{ apiKeyName: member, keyFile: member.key.json }] }',
        '  rootQuorum: { threshold: 1, userNames: [ci] }',
        `  policies: [{ policyName: costly, effect: EFFECT_ALLOW, consensus: '', condition: '${condition}' }]`,
        '',
      ].join('\n'),
    );
    const sandbox = await startCli(['--db', ':memory:', '--seed', join(folder, 'seed.yaml')], [bin]);
    const key = JSON.parse(readFileSync(join(folder, 'member.key.json'), 'utf8')) as { publicKey: string; privateKey: string };
    const client = new TurnkeyClient(
      { baseUrl: sandbox.info.baseUrl },
      new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
    );
    const created = await client.createWallet({
      type: 'ACTIVITY_TYPE_CREATE_WALLET',
      timestampMs: String(Date.now()),
      organizationId: sandbox.info.organizationId,
      parameters: { walletName: 'decided off the event loop', accounts: [] },
    });
    expect(created.activity.status, sandbox.stderr()).toBe('ACTIVITY_STATUS_COMPLETED');
    sandbox.child.kill('SIGTERM');
    await sandbox.closed;
    expect(sandbox.child.exitCode).toBe(0);
  });

  it('run by npx, stops when npx is stopped with SIGTERM (npx does not pass it on)', async () => {
    const npx = spawn('npx', ['quorumkey-sandbox', '--db', ':memory:'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    npx.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let database: string | undefined;
    while (database === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      database = /with database (\S+)/.exec(stderr)?.[1];
    }
    const sandboxPid = Number(readFileSync(`${database}.lock`, 'utf8'));
    expect(sandboxPid).not.toBe(npx.pid);
    try {
      npx.kill('SIGTERM');
      // It stopped cleanly: the lock is gone with its :memory: folder.
      const deadline = Date.now() + 10_000;
      while (existsSync(database) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(existsSync(database)).toBe(false);
    } finally {
      if (existsSync(database)) process.kill(sandboxPid, 'SIGKILL');
    }
  });

  it('is a module: importing it starts and writes nothing; startSandbox serves the first line, and stop() lets the process end', async () => {
    const imported = await runInEmptyFolder(
      'import-only.mjs',
      `const sandbox = await import('${MANIFEST.name}');\nconsole.log(JSON.stringify(Object.keys(sandbox)));\n`,
    );
    expect([imported.stdout, imported.stderr, imported.left]).toEqual(['["sandboxGlobalSetup","startSandbox"]\n', '', []]);

    const started = await runInEmptyFolder(
      'start-stop.mjs',
      [
        `import { startSandbox } from '${MANIFEST.name}';`,
        `const sandbox = await startSandbox({ seed: ${JSON.stringify(seed)}, clockControl: true, log: () => {} });`,
        'const health = await fetch(`${sandbox.baseUrl}/health`);',
        'console.log(JSON.stringify({ keys: Object.keys(sandbox).sort(), health: health.status }));',
        'await sandbox.stop();',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(started.stdout)).toEqual({
      keys: [
        'attestationRootFingerprint',
        'authProxyConfigId',
        'authProxyUrl',
        'baseUrl',
        'enclaveSignerPublicKey',
        'organizationId',
        'otpTokenSignerPublicKey',
        'rootApiKey',
        'rootUserId',
        'sessionSignerPublicKey',
        'stop',
      ],
      health: 200,
    });
    expect(started.left).toEqual([]);
  });

  it('declares its types: a TypeScript app type-checks against them, and a wrong option is an error', async () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2023', strict: true, noEmit: true, types: [], lib: ['es2023', 'dom'] },
        files: ['app.ts'],
      }),
    );
    writeFileSync(
      join(app, 'app.ts'),
      [
        `import { sandboxGlobalSetup, startSandbox, type RunningSandbox, type SandboxEnvironment } from '${MANIFEST.name}';`,
        "const sandbox: RunningSandbox = await startSandbox({ seed: 'seed.yaml', port: 0, rpc: { 'eip155:31337': 'http://127.0.0.1:8545' }, clockControl: true });",
        'const organizationId: string = sandbox.organizationId;',
        'const stopped: Promise<void> = sandbox.stop();',
        "const teardown: Promise<() => Promise<void>> = sandboxGlobalSetup({ seed: 'seed.yaml', port: 0 });",
        "const baseUrl: SandboxEnvironment['TURNKEY_API_BASE_URL'] = sandbox.baseUrl;",
        '// @ts-expect-error: the port is a number',
        "void startSandbox({ port: '8080' });",
        'export { organizationId, stopped, teardown, baseUrl };',
        '',
      ].join('\n'),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    await expect(run(process.execPath, [tsc, '-p', app])).resolves.toMatchObject({ stdout: '' });
  });

  describe("docs/sandbox.md's GitHub Actions job, run as it is written", () => {
    const markdown = readFileSync(join(ROOT, 'docs/sandbox.md'), 'utf8');
    const workflow = /### GitHub Actions\n\n```yaml\n([\s\S]*?)```/.exec(markdown)![1]!;
    const job = (parse(workflow) as { jobs: { test: ActionsJob } }).jobs.test;
    const script = job.steps.find((step) => step.name === 'Start the Sandbox')!.run!;

    /** Runs the step as GitHub's runner does (bash -eo pipefail) in a new folder holding `seed` at the path it names. */
    async function runStep(
      seedText: string | undefined,
      port?: number,
    ): Promise<{ code: number | null; output: string; folder: string; stop: () => void }> {
      const folder = mkdtempSync(join(directory, 'ci-'));
      if (seedText !== undefined) {
        mkdirSync(join(folder, 'test'));
        writeFileSync(join(folder, 'test/turnkey.seed.yaml'), seedText);
      }
      port ??= await freePort();
      const env = {
        ...process.env,
        ...job.env,
        SANDBOX_PACKAGE: tarball,
        SANDBOX_PORT: String(port),
        TURNKEY_API_BASE_URL: `http://127.0.0.1:${port}`,
      };
      // Its own process group, so that the Sandbox it leaves running can be stopped with it.
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: folder, env, detached: true });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      return { code, output, folder, stop: () => process.kill(-child.pid!, 'SIGTERM') };
    }

    it('passes once the Sandbox answers, which then serves the seed', async () => {
      const seedText = readFileSync(seed, 'utf8');
      const step = await runStep(seedText);
      try {
        expect(step.code, step.output).toBe(0);
        const info = JSON.parse(readFileSync(join(step.folder, 'sandbox.json'), 'utf8')) as { baseUrl: string; organizationId: string };
        expect((await fetch(`${info.baseUrl}/health`)).status).toBe(200);
      } finally {
        step.stop();
      }
    });

    it('fails at once, printing the log, when the Sandbox cannot start', async () => {
      const step = await runStep(undefined);
      expect(step.code).toBe(1);
      expect(step.output).toContain('the Sandbox is not answering /health');
      expect(step.output).toMatch(/the service could not start: .*turnkey\.seed\.yaml/);
    });

    it('fails, rather than take its answer, when another program answers /health on the port', async () => {
      const impostor = createHttpServer((_request, response) => response.end('{"status":"ok"}'));
      await new Promise<void>((resolveListening) => impostor.listen(0, '127.0.0.1', resolveListening));
      try {
        const step = await runStep(readFileSync(seed, 'utf8'), (impostor.address() as AddressInfo).port);
        expect(step.code, step.output).toBe(1);
        expect(step.output).toContain('the Sandbox is not answering /health');
        expect(step.output).toContain('PORT_IN_USE');
      } finally {
        impostor.close();
      }
    });

    /**
     * The whole job in a new folder: the checkout holds the seed (unless `seedText` is undefined) and an app whose
     * `npm test` asks the Sandbox who its root user is, then passes or fails as `appPasses` says.
     */
    async function runWholeJob(seedText: string | undefined, appPasses: boolean) {
      const folder = mkdtempSync(join(directory, 'job-'));
      const artifactsDir = join(folder, '..', `${basename(folder)}-artifacts`);
      mkdirSync(join(folder, 'test'));
      if (seedText !== undefined) writeFileSync(join(folder, 'test/turnkey.seed.yaml'), seedText);
      writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'ci-app', private: true, scripts: { test: 'node app.test.mjs' } }));
      writeFileSync(
        join(folder, 'app.test.mjs'),
        [
          "import { readFileSync } from 'node:fs';",
          "const { organizationId } = JSON.parse(readFileSync('sandbox.json', 'utf8'));",
          '// Unstamped: the Sandbox refuses it, and its log says so.',
          'const reply = await fetch(`${process.env.TURNKEY_API_BASE_URL}/public/v1/query/whoami`, {',
          "  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ organizationId }),",
          '});',
          'console.log(`whoami answered ${reply.status}`);',
          `process.exit(reply.status === 401 && ${appPasses} ? 0 : 1);`,
          '',
        ].join('\n'),
      );
      const port = await freePort();
      const env = { SANDBOX_PACKAGE: tarball, SANDBOX_PORT: String(port), TURNKEY_API_BASE_URL: `http://127.0.0.1:${port}` };
      const result = await runActionsJob(job, { folder, env, artifactsDir });
      result.stop();
      const outcomes = Object.fromEntries(result.steps.map((step) => [step.name, step.outcome]));
      return { result, outcomes, artifactsDir };
    }

    it("runs the whole job: the app's tests pass against the Sandbox, and no log is kept", async () => {
      const { result, outcomes, artifactsDir } = await runWholeJob(readFileSync(seed, 'utf8'), true);
      expect(result.failed, JSON.stringify(result.steps)).toBe(false);
      expect(outcomes).toEqual({
        'actions/checkout@v4': 'success',
        'actions/setup-node@v4': 'success',
        'Start the Sandbox': 'success',
        'npm test': 'success',
        "Keep the Sandbox's log": 'skipped',
      });
      expect(result.steps.find((step) => step.name === 'npm test')!.output).toContain('whoami answered 401');
      expect(existsSync(artifactsDir)).toBe(false);
    });

    it("keeps the Sandbox's log when the app's tests fail, with their request in it", async () => {
      const { result, outcomes, artifactsDir } = await runWholeJob(readFileSync(seed, 'utf8'), false);
      expect(result.failed).toBe(true);
      expect(outcomes).toMatchObject({ 'Start the Sandbox': 'success', 'npm test': 'failure', "Keep the Sandbox's log": 'success' });
      const log = readFileSync(join(artifactsDir, 'sandbox-log', 'sandbox.log'), 'utf8');
      expect(log).toMatch(/^401 .*whoami/m);
    });

    it('keeps the log, and runs no tests, when the Sandbox cannot start', async () => {
      const { result, outcomes, artifactsDir } = await runWholeJob(undefined, true);
      expect(result.failed).toBe(true);
      expect(outcomes).toMatchObject({ 'Start the Sandbox': 'failure', 'npm test': 'skipped', "Keep the Sandbox's log": 'success' });
      expect(readFileSync(join(artifactsDir, 'sandbox-log', 'sandbox.log'), 'utf8')).toMatch(/the service could not start: .*turnkey\.seed\.yaml/);
    });
  });

  it("serves vitest's globalSetup: the tests reach the seeded Sandbox through the environment, and it stops with the run", async () => {
    const project = join(directory, 'vitest-app');
    mkdirSync(join(project, 'node_modules/@turnkey'), { recursive: true });
    // The project's dependencies: the installed package, and vitest and Turnkey's client from this repository.
    symlinkSync(installed, join(project, 'node_modules', MANIFEST.name));
    for (const dependency of ['vitest', '@turnkey/http', '@turnkey/api-key-stamper']) {
      symlinkSync(join(ROOT, 'node_modules', dependency), join(project, 'node_modules', dependency));
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'a-vitest-app', private: true, type: 'module' }));
    writeFileSync(
      join(project, 'vitest.config.mjs'),
      "export default { test: { globalSetup: ['./sandbox.setup.mjs'], include: ['*.test.mjs'] } };\n",
    );
    writeFileSync(
      join(project, 'sandbox.setup.mjs'),
      `import { sandboxGlobalSetup } from '${MANIFEST.name}';\nexport default () => sandboxGlobalSetup({ seed: ${JSON.stringify(seed)}, log: () => {} });\n`,
    );
    writeFileSync(
      join(project, 'whoami.test.mjs'),
      [
        "import { ApiKeyStamper } from '@turnkey/api-key-stamper';",
        "import { TurnkeyClient } from '@turnkey/http';",
        "import { expect, it } from 'vitest';",
        "it('reaches the Sandbox named by the environment', async () => {",
        '  const { TURNKEY_API_BASE_URL: baseUrl, TURNKEY_API_PUBLIC_KEY: apiPublicKey, TURNKEY_API_PRIVATE_KEY: apiPrivateKey } = process.env;',
        '  const client = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey, apiPrivateKey }));',
        "  expect((await client.getWhoami({ organizationId: process.env.TURNKEY_ORGANIZATION_ID })).username).toBe('ci');",
        '  console.log(`sandbox at ${baseUrl}`);',
        '});',
        '',
      ].join('\n'),
    );
    // Not this run's variables: the inner run is a vitest of its own.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
    const { stdout } = await run(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', project], {
      cwd: project,
      env: { ...env, NO_COLOR: '1' },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/Tests\s+1 passed/);
    const baseUrl = /sandbox at (\S+)/.exec(stdout)![1]!;
    await expect(fetch(`${baseUrl}/health`)).rejects.toThrow();
  }, 180_000);

  it("serves jest's globalSetup and globalTeardown as docs/sandbox.md writes them: the tests reach the seeded Sandbox, and it stops with the run", async () => {
    const project = join(directory, 'jest-app');
    mkdirSync(join(project, 'node_modules/@turnkey'), { recursive: true });
    mkdirSync(join(project, 'test'));
    symlinkSync(installed, join(project, 'node_modules', MANIFEST.name));
    for (const dependency of ['jest', '@turnkey/http', '@turnkey/api-key-stamper']) {
      symlinkSync(join(ROOT, 'node_modules', dependency), join(project, 'node_modules', dependency));
    }
    // A CommonJS app, as most jest projects are; the seed where the docs' setup names it.
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'a-jest-app', private: true }));
    writeFileSync(join(project, 'test/turnkey.seed.yaml'), readFileSync(seed, 'utf8'));
    // The docs' block is the three files, each under a comment naming it.
    const markdown = readFileSync(join(ROOT, 'docs/sandbox.md'), 'utf8');
    const block = /```js\n(\/\/ jest\.config\.js\n[\s\S]*?)```/.exec(markdown)![1]!;
    const files = block.split(/^\/\/ (?=\S+\.js\b)/m).filter((part) => part !== '');
    expect(files.map((part) => part.split(/\s/, 1)[0])).toEqual(['jest.config.js', 'test/sandbox.setup.js', 'test/sandbox.teardown.js']);
    for (const part of files) writeFileSync(join(project, part.split(/\s/, 1)[0]!), part.slice(part.indexOf('\n') + 1));
    writeFileSync(
      join(project, 'test/whoami.test.js'),
      [
        "const { ApiKeyStamper } = require('@turnkey/api-key-stamper');",
        "const { TurnkeyClient } = require('@turnkey/http');",
        "test('reaches the Sandbox named by the environment', async () => {",
        '  const { TURNKEY_API_BASE_URL: baseUrl, TURNKEY_API_PUBLIC_KEY: apiPublicKey, TURNKEY_API_PRIVATE_KEY: apiPrivateKey } = process.env;',
        '  const client = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey, apiPrivateKey }));',
        "  expect((await client.getWhoami({ organizationId: process.env.TURNKEY_ORGANIZATION_ID })).username).toBe('ci');",
        '  process.stdout.write(`sandbox at ${baseUrl}\\n`);',
        '});',
        '',
      ].join('\n'),
    );
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'node_modules/jest/bin/jest.js'), '--ci', '--runInBand'], {
      cwd: project,
      env: { ...env, NO_COLOR: '1' },
      timeout: 120_000,
    });
    // jest reports on stderr; what the test wrote goes to stdout.
    expect(stderr).toMatch(/Tests:\s+1 passed, 1 total/);
    const baseUrl = /sandbox at (\S+)/.exec(stdout)![1]!;
    await expect(fetch(`${baseUrl}/health`)).rejects.toThrow();
  }, 180_000);

  it('is what the Dockerfile builds and runs: its entrypoint serves on SANDBOX_PORT, where its health check looks', async () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/RUN npm pack \.\/sandbox --pack-destination /);
    expect(dockerfile).toMatch(/npm install --global --omit=dev [^\n]*quorumkey-sandbox\.tgz/);
    const instruction = (name: string) => JSON.parse(new RegExp(`^${name} (\\[.*\\])$`, 'm').exec(dockerfile)![1]!) as string[];
    const [entrypoint, ...entrypointArgs] = instruction('ENTRYPOINT');
    const [healthcheck, ...healthcheckArgs] = instruction('HEALTHCHECK --interval=10s --timeout=3s CMD');
    const port = /^ENV SANDBOX_PORT=(\d+)$/m.exec(dockerfile)![1]!;
    expect(new RegExp(`^EXPOSE ${port}$`, 'm').test(dockerfile)).toBe(true);
    // As the image runs them, with the installed bin on PATH, another port, and `docker run IMAGE --db :memory:`.
    const env = { ...process.env, PATH: `${join(app, 'node_modules/.bin')}:${process.env.PATH}`, SANDBOX_PORT: String(await freePort()) };
    const sandbox = spawn(entrypoint!, [...entrypointArgs, '--db', ':memory:'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const info = await new Promise<{ baseUrl: string }>((resolveInfo) =>
      createInterface({ input: sandbox.stdout }).once('line', (line) => resolveInfo(JSON.parse(line) as { baseUrl: string })),
    );
    expect(info.baseUrl).toBe(`http://127.0.0.1:${env.SANDBOX_PORT}`);
    const check = spawn(healthcheck === 'node' ? process.execPath : healthcheck!, healthcheckArgs, { env, stdio: 'ignore' });
    expect(await new Promise((resolveCode) => check.once('close', resolveCode))).toBe(0);
    // sh execs the bin, so the signal reaches the Sandbox itself.
    sandbox.kill('SIGTERM');
    expect(await new Promise((resolveCode) => sandbox.once('close', resolveCode))).toBe(0);
  });
});
