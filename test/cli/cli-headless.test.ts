/**
 * Issue 24 item 10: a headless machine starts from an empty data directory with the CLI alone — the Sandbox
 * initialized as the app's first run would, profiles managed with the app's confirmation rules on the terminal.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_KEYCHAIN_SERVICE, Keychain } from '../../src/main/keychain/keychain';
import { OsSecretStore } from '../../src/main/keychain/secret-store';
import { Profiles } from '../../src/main/profiles/profiles';
import { SANDBOX_RESET_PHRASE } from '../../src/shared/ipc/contract';
import { runCli, type CliRun } from './helpers';

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-cli-headless-'));
});

afterAll(async () => {
  const profiles = new Profiles({ dataDir });
  const keychain = new Keychain({ dataDir, store: new OsSecretStore(DEFAULT_KEYCHAIN_SERVICE), profiles });
  for (const profile of await profiles.list()) await profiles.remove(profile.id);
  for (const { name } of await keychain.listApiKeys()) await keychain.deleteApiKey(name);
  await rm(dataDir, { recursive: true, force: true });
});

function cli(args: string[], input?: string): Promise<CliRun> {
  return runCli(dataDir, args, input === undefined ? {} : { input });
}

async function cliJson<T>(args: string[], input?: string): Promise<T> {
  const run = await cli(args, input);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as T;
}

interface ProfileRow {
  id: string;
  name: string;
  kind: string;
  baseUrl: string;
  enclaveSignerPublicKey: string;
  active: boolean;
}

it('from an empty data directory: initializes the Sandbox, creates a wallet and lists it, with no app run', async () => {
  expect(await cliJson<{ initialized: boolean }>(['sandbox', 'status'])).toMatchObject({ initialized: false, profileId: null });
  const before = await cli(['wallets', 'list']);
  expect(before.code).toBe(1);
  expect(before.stderr).toMatch(/PROFILE_NOT_FOUND: no active profile .*run "sandbox init"/);

  const init = await cliJson<{ profileId: string; organizationId: string; baseUrl: string }>(['sandbox', 'init']);
  const status = await cliJson<{ initialized: boolean; profileId: string; active: boolean; apiKey: string }>(['sandbox', 'status']);
  expect(status).toMatchObject({
    initialized: true,
    profileId: init.profileId,
    organizationId: init.organizationId,
    active: true,
    apiKey: 'sandbox',
  });

  const created = await cliJson<{ state: string; walletId: string; addresses: string[] }>([
    'wallets',
    'create',
    'treasury',
    '--chain',
    'ethereum',
    '--chain',
    'solana',
  ]);
  expect(created.state).toBe('completed');
  expect(created.addresses).toHaveLength(2);
  expect(created.addresses[0]).toMatch(/^0x[0-9a-fA-F]{40}$/);
  const wallets = await cliJson<{ walletId: string; walletName: string }[]>(['wallets', 'list']);
  expect(wallets).toEqual([expect.objectContaining({ walletId: created.walletId, walletName: 'treasury' })]);

  // Each command runs the Sandbox for its own duration, at the same address.
  expect((await cliJson<{ baseUrl: string }>(['sandbox', 'init'])).baseUrl).toBe(init.baseUrl);

  const badChain = await cli(['wallets', 'create', 'x', '--chain', 'dogecoin']);
  expect(badChain.code).toBe(2);
  expect(badChain.stderr).toContain('--chain must be one of ethereum, bitcoin, solana, cosmos, tron, got dogecoin');
}, 300_000);

it('adds, edits, uses and removes profiles; a new URL or signer needs "yes" typed on the terminal', async () => {
  const add = [
    'profiles',
    'add',
    '--name',
    'Staging',
    '--base-url',
    'https://api.staging.example',
    '--organization',
    randomUUID(),
    '--api-key',
    'sandbox',
  ];

  const declined = await cli(add, 'no\n');
  expect(declined.code).toBe(1);
  expect(declined.stderr).toContain('Send signed requests to a new service?');
  expect(declined.stderr).toContain('Service URL: https://api.staging.example');
  expect(declined.stderr).toContain('USER_DECLINED');
  const silent = await cli(add);
  expect(silent.code).toBe(1);
  expect((await cliJson<ProfileRow[]>(['profiles', 'list'])).map(({ name }) => name)).toEqual(['Sandbox']);

  const staging = await cliJson<ProfileRow>(add, 'yes\n');
  expect(staging).toMatchObject({ name: 'Staging', kind: 'hosted', baseUrl: 'https://api.staging.example' });

  // A rename alone redirects nothing: no question asked.
  expect(await cliJson<ProfileRow>(['profiles', 'edit', 'Staging', '--name', 'Staging EU'])).toMatchObject({ name: 'Staging EU' });
  const signer = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));
  const unconfirmed = await cli(['profiles', 'edit', 'Staging EU', '--signer-public-key', signer]);
  expect(unconfirmed.code).toBe(1);
  expect(unconfirmed.stderr).toContain('Change where a profile sends requests?');
  expect(await cliJson<ProfileRow>(['profiles', 'edit', 'Staging EU', '--signer-public-key', signer], 'yes\n')).toMatchObject({
    enclaveSignerPublicKey: signer,
  });

  expect(await cliJson<ProfileRow>(['profiles', 'use', 'Staging EU'])).toMatchObject({ active: true });
  const listed = await cliJson<ProfileRow[]>(['profiles', 'list']);
  expect(listed.filter(({ active }) => active).map(({ name }) => name)).toEqual(['Staging EU']);

  const removed = await cli(['profiles', 'remove', 'Staging EU']);
  expect(removed.code).toBe(0);
  expect((await cliJson<ProfileRow[]>(['profiles', 'list'])).map(({ name }) => name)).toEqual(['Sandbox']);
  const missing = await cli(['profiles', 'use', 'Staging EU']);
  expect(missing.stderr).toContain('PROFILE_NOT_FOUND');
  expect((await cliJson<ProfileRow>(['profiles', 'use', 'Sandbox'])).active).toBe(true);

  // Each change made is in this data directory's journal, as the app's are; the declined ones made none.
  const journalFile = join(dataDir, 'journal.jsonl');
  const entries = (await readFile(journalFile, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { action: string; profileName?: string; reading: { title: string } });
  expect(
    entries.filter(({ action }) => action.startsWith('profile.')).map(({ reading, profileName }) => `${reading.title} (${profileName})`),
  ).toEqual([
    'Profile added (Staging)',
    'Profile changed: name (Staging EU)',
    'Profile changed: enclaveSignerPublicKey (Staging EU)',
    'Profile made active (Staging EU)',
    'Profile removed (Staging EU)',
    'Profile made active (Sandbox)',
  ]);
  expect((await cli(['journal', 'verify', journalFile])).code).toBe(0);
}, 300_000);

it('resets the Sandbox only when the phrase is typed', async () => {
  const before = await cliJson<{ organizationId: string }>(['sandbox', 'status']);
  const refused = await cli(['sandbox', 'reset'], 'reset\n');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('USER_DECLINED');
  expect((await cliJson<{ organizationId: string }>(['sandbox', 'status'])).organizationId).toBe(before.organizationId);

  const reset = await cliJson<{ organizationId: string }>(['sandbox', 'reset'], `${SANDBOX_RESET_PHRASE}\n`);
  expect(reset.organizationId).not.toBe(before.organizationId);
  expect(await cliJson<unknown[]>(['wallets', 'list'])).toEqual([]);
}, 300_000);
