/**
 * Issue 37: the built CLI refuses a command it does not have, and a known command's missing or malformed flags, before
 * it loads the code that runs commands on the app's services. A preload records each chunk of the bundle the process
 * loads, so the test sees what was loaded rather than how long it took.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli } from './helpers';

let work: string;
let hook: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'qk-cli-early-'));
  hook = join(work, 'record-chunks.mjs');
  await writeFile(
    hook,
    [
      "import { registerHooks } from 'node:module';",
      "import { appendFileSync } from 'node:fs';",
      'registerHooks({ load(url, context, nextLoad) {',
      "  if (url.includes('/chunks/')) appendFileSync(process.env.QK_CHUNK_LOG, url + '\\n');",
      '  return nextLoad(url, context);',
      '} });',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface Run {
  code: number;
  stderr: string;
  /** The bundle's chunks the process loaded, by name without their hash. */
  chunks: string[];
}

let runs = 0;

/** `quorumkey --data-dir (a fresh dir) ...args`, recording the chunks it loads. */
async function run(args: string[]): Promise<Run> {
  runs += 1;
  const log = join(work, `chunks-${runs}.log`);
  await writeFile(log, '');
  const dataDir = join(work, `data-${runs}`);
  const env = { ...process.env, NODE_OPTIONS: `--import=${hook}`, QK_CHUNK_LOG: log };
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [builtCli(), '--data-dir', dataDir, ...args], { env }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
  const chunks = (await readFile(log, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((url) => basename(new URL(url).pathname).replace(/-[\w-]{8}\.js$/, ''));
  return { code, stderr, chunks };
}

describe('refused before the commands load', () => {
  it.each([
    [['frobnicate'], 'unknown command: frobnicate\n'],
    [['wallets', 'frob'], 'unknown command: wallets frob (wallets takes list, create or export)\n'],
    [['wallets'], 'wallets needs a subcommand: list, create or export\n'],
    [[], 'no command given\n'],
  ])('%j: the command, named', async (args, message) => {
    const refused = await run(args);
    expect(refused.code).toBe(2);
    expect(refused.stderr.startsWith(message)).toBe(true);
    expect(refused.stderr).toContain('quorumkey --help lists every command and its flags');
    expect(refused.chunks).not.toContain('flag-checks');
    expect(refused.chunks).not.toContain('commands');
  });

  it.each([
    [['activities', 'list', '--limit', '0'], '--limit must be a whole number from 1 to 100\n'],
    [['keys', 'generate', 'ops', '--curve', 'rsa'], '--curve must be p256, secp256k1, ed25519, got rsa\n'],
    [['users', 'credentials'], 'USER is required\n'],
    [['journal', 'export', '--output', 'out.jsonl', '--from', 'yesterday'], '--from must be a date like 2026-11-26 or an ISO time, got yesterday\n'],
    [['decrypt', '--bundle', 'b.json', '--encryption-key', 'k', '--plaintext-output', 'out'], '--organization is required\n'],
    [['sign', 'payload', '--sign-with', '0xabc', '--payload', 'x', '--hash', 'md5'], '--hash must be one of'],
  ])('%j: the flag or operand, named', async (args, message) => {
    const refused = await run(args);
    expect(refused.code).toBe(2);
    expect(refused.stderr.startsWith(message), refused.stderr).toBe(true);
    expect(refused.stderr).toContain('quorumkey --help lists every command and its flags');
    expect(refused.chunks).toContain('flag-checks');
    expect(refused.chunks).not.toContain('commands');
  });

  it('loads the commands for a well-formed command, which then answers from the services', async () => {
    const answered = await run(['--profile', 'nobody', 'activities', 'list']);
    expect(answered.code).toBe(1);
    expect(answered.stderr).toMatch(/^PROFILE_NOT_FOUND: no profile named or with id "nobody"/);
    expect(answered.chunks).toContain('commands');
  });
});
