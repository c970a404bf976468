/** The embedded sandbox service with the app's own keychain key, restarted over the same database. */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ApiClient } from '../../src/main/client/api-client';
import { Sandbox, SANDBOX_DB_FILE } from '../../src/main/sandbox/sandbox';
import { scanForSecrets } from '../support/scan-for-secrets';
import { newOperator, type Operator } from './helpers';

let operator: Operator | undefined;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.stop();
  if (operator) {
    for (const profile of await operator.profiles.list()) await operator.profiles.remove(profile.id);
    for (const key of await operator.keychain.listApiKeys()) await operator.keychain.deleteApiKey(key.name);
    await rm(operator.dataDir, { recursive: true, force: true });
  }
  operator = undefined;
  sandbox = undefined;
});

it('generates the sandbox key once, makes the Sandbox profile the default, and keeps the organization across restarts', async () => {
  operator = await newOperator();
  const logs: string[] = [];
  sandbox = new Sandbox({ dataDir: operator.dataDir, keychain: operator.keychain, profiles: operator.profiles, log: (line) => logs.push(line) });
  const first = await sandbox.start();
  expect(await sandbox.start()).toBe(first);
  expect(existsSync(join(operator.dataDir, SANDBOX_DB_FILE))).toBe(true);
  expect(first.profile).toMatchObject({
    name: 'Sandbox',
    kind: 'sandbox',
    apiKeyName: 'sandbox',
    organizationId: first.info.organizationId,
    enclaveSignerPublicKey: first.info.enclaveSignerPublicKey,
  });
  expect((await operator.profiles.getActive())?.id).toBe(first.profile.id);
  const client = new ApiClient({ profile: first.profile, stamper: operator.stamper });
  expect((await client.query('whoami', {})).userId).toBe(first.info.rootUserId);

  await sandbox.stop();
  expect(sandbox.isRunning).toBe(false);
  await expect(client.query('whoami', {})).rejects.toMatchObject({ code: 'NETWORK_ERROR' });

  const second = await sandbox.start();
  expect(second.info.organizationId).toBe(first.info.organizationId);
  expect(second.profile.id).toBe(first.profile.id);
  expect((await operator.profiles.list()).filter((profile) => profile.kind === 'sandbox')).toHaveLength(1);
  expect((await operator.keychain.listApiKeys()).map((key) => key.name).sort()).toEqual(['operator', 'sandbox']);
  const again = new ApiClient({ profile: second.profile, stamper: operator.stamper });
  expect((await again.query('whoami', {})).organizationId).toBe(first.info.organizationId);
  expect(await scanForSecrets(operator.dataDir, operator.store.secrets)).toEqual([]);
});
