/**
 * One offline stamped-request file for the CLI and the app: a vote the CLI stamps with `request --no-post` is posted
 * by the app's handlers, and a vote the app stamps (its offline vote file) is posted by the CLI's `post-stamped`.
 * Two operators under a 2-of-2 root quorum, each approving the other's proposal from a file; real keychain (run under
 * test/support/with-secret-service.sh), a local service in this process, the CLI in a child process.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Keychain } from '../../src/main/keychain/keychain';
import { Profiles } from '../../src/main/profiles/profiles';
import { createMainHandlers, createMainServices, STAMPED_REQUESTS_DIR, type MainServices } from '../../src/main/services';
import type { IpcHandlers } from '../../src/main/ipc/register';
import { startService, type RunningService } from '../../src/service';
import { apiKeyCredentialTypeByCurve } from '../../src/service/auth/credentials';
import { parseStampedRequest } from '../../src/shared/offline/stamped-request';
import { runCli, writeNoNetworkPreload, type CliRun } from './helpers';

const CLI_KEY = `offline-cli-${randomUUID()}`;

let service: RunningService;
let app: MainServices;
let handlers: IpcHandlers;
let cliDataDir: string;
let cliKeychain: Keychain;
let cliProfiles: Profiles;
let work: string;
let noNetwork: string;

async function cli(args: string[], options: { offline?: boolean } = {}): Promise<CliRun> {
  const run = await runCli(cliDataDir, args, options.offline ? { noNetwork } : {});
  expect(run.stderr, args.slice(0, 2).join(' ')).toBe('');
  expect(run.code).toBe(0);
  return run;
}

function voteBody(fingerprint: string): string {
  return JSON.stringify({
    type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
    timestampMs: String(Date.now()),
    organizationId: service.info.organizationId,
    parameters: { fingerprint },
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'qk-offline-work-'));
  noNetwork = await writeNoNetworkPreload(work);
  // The app: its own data dir and keychain service; its key is the service's root user.
  app = createMainServices({ dataDir: await mkdtemp(join(tmpdir(), 'qk-offline-app-')), keychainServiceName: `qk-test-${randomUUID()}` });
  handlers = createMainHandlers(app, {
    app: { version: '0.0.0-test', platform: process.platform, packaged: false },
    confirm: async () => true,
  });
  const appKey = await app.keychain.generateApiKey({ name: 'operator' });
  service = await startService({ db: ':memory:', rootPublicKeys: [{ publicKey: appKey.publicKey, curve: 'p256' }], log: () => undefined });
  const { info } = service;
  const hosted = {
    kind: 'hosted' as const,
    baseUrl: info.baseUrl,
    organizationId: info.organizationId,
    enclaveSignerPublicKey: info.enclaveSignerPublicKey,
  };
  const appProfile = await app.profiles.add({ name: 'Local', apiKeyName: 'operator', ...hosted });
  await app.profiles.setActive(appProfile.id);

  // The CLI: another data dir, the keychain the CLI opens (the default service), a second user of the organization.
  cliDataDir = await mkdtemp(join(tmpdir(), 'qk-offline-cli-'));
  cliProfiles = new Profiles({ dataDir: cliDataDir });
  cliKeychain = new Keychain({ dataDir: cliDataDir, profiles: cliProfiles });
  const cliKey = await cliKeychain.generateApiKey({ name: CLI_KEY });
  const cliProfile = await cliProfiles.add({ name: 'Local', apiKeyName: CLI_KEY, ...hosted });
  await cliProfiles.setActive(cliProfile.id);
  const cliUserId = randomUUID();
  await service.store.transaction((tx) => {
    tx.users.insert({ id: cliUserId, organizationId: info.organizationId, name: 'cli operator', now: Date.now() });
    tx.apiKeys.insert({
      id: randomUUID(),
      organizationId: info.organizationId,
      userId: cliUserId,
      name: 'cli key',
      publicKey: cliKey.publicKey,
      credentialType: apiKeyCredentialTypeByCurve.p256,
      expirationSeconds: undefined,
      sessionProfileId: undefined,
      now: Date.now(),
    });
    tx.organizations.setRootQuorum(info.organizationId, { threshold: 2, userIds: [info.rootUserId, cliUserId] }, Date.now());
  });
});

afterAll(async () => {
  await service.close();
  await app.close();
  for (const profile of await app.profiles.list()) await app.profiles.remove(profile.id);
  for (const { name } of await app.keychain.listApiKeys()) await app.keychain.deleteApiKey(name);
  for (const profile of await cliProfiles.list()) await cliProfiles.remove(profile.id);
  await cliKeychain.deleteApiKey(CLI_KEY);
  await rm(app.dataDir, { recursive: true, force: true });
  await rm(cliDataDir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

it("posts the CLI's request --no-post file from the app's handlers", async () => {
  // Allows only signing, so the CLI's proposal below still waits for the quorum.
  const proposal = await handlers['policies.create']({
    name: 'proposed in the app',
    effect: 'EFFECT_ALLOW',
    condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
  });
  expect(proposal.state).toBe('consensus-needed');

  const stampedDir = join(app.dataDir, STAMPED_REQUESTS_DIR);
  await mkdir(stampedDir, { recursive: true });
  const file = join(stampedDir, 'from-cli.json');
  const body = voteBody(proposal.activity.fingerprint);
  const path = '/public/v1/submit/approve_activity';
  await cli(['request', '--path', path, '--body', body, '--no-post', '--output', file], { offline: true });
  expect(parseStampedRequest(await readFile(file, 'utf8'), file)).toMatchObject({ version: 1, path, body });

  const posted = await handlers['approvals.postStampedFile']({ file: 'from-cli.json' });
  expect(posted).toMatchObject({ id: proposal.activity.id, status: 'ACTIVITY_STATUS_COMPLETED', approvals: 2 });
});

it("posts the app's offline vote file with the CLI's post-stamped", async () => {
  const proposed = JSON.parse(
    (
      await cli([
        'request',
        '--path',
        '/public/v1/submit/create_policy',
        '--body',
        JSON.stringify({
          type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
          timestampMs: String(Date.now()),
          organizationId: service.info.organizationId,
          parameters: { policyName: 'proposed with the CLI', effect: 'EFFECT_ALLOW', notes: '' },
        }),
      ])
    ).stdout,
  ) as { activity: { id: string; fingerprint: string; status: string } };
  expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');

  const stamped = await handlers['approvals.stampToFile']({ fingerprint: proposed.activity.fingerprint, file: 'from-app.json' });
  const posted = JSON.parse((await cli(['post-stamped', stamped.file])).stdout) as { activity: { id: string; status: string } };
  expect(posted.activity).toMatchObject({ id: proposed.activity.id, status: 'ACTIVITY_STATUS_COMPLETED' });
  expect((await handlers['policies.list']({})).map((policy) => policy.policyName).sort()).toEqual(['proposed in the app', 'proposed with the CLI']);
});

it('refuses an unversioned file (the old CLI output), naming what is wrong, and sends nothing', async () => {
  const file = join(app.dataDir, STAMPED_REQUESTS_DIR, 'unversioned.json');
  const stamp = { headerName: 'X-Stamp', headerValue: 'e30' };
  await writeFile(file, JSON.stringify({ path: '/public/v1/submit/approve_activity', body: voteBody(`sha256:${'ab'.repeat(32)}`), stamp }));
  const run = await runCli(cliDataDir, ['post-stamped', file], { noNetwork });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^FILE_ERROR: .*unversioned\.json is not a QuorumKey stamped request \(version 1\): version/);
  // An endless file is read no further than a stamped request can need.
  const endless = await runCli(cliDataDir, ['post-stamped', '/dev/zero'], { noNetwork });
  expect(endless.code).toBe(1);
  expect(endless.stderr).toMatch(/^FILE_ERROR: \/dev\/zero is larger than \d+ bytes, more than a stamped request can need/);
  await expect(handlers['approvals.postStampedFile']({ file: 'unversioned.json' })).rejects.toMatchObject({
    code: 'FILE_ERROR',
    message: expect.stringMatching(/is not a QuorumKey stamped request \(version 1\): version/),
  });
});
