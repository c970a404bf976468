/** The embedded sandbox service with the app's own keychain key, restarted over the same database. */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/main/client/api-client';
import { Exporter } from '../../src/main/exports/exporter';
import { Sandbox, SANDBOX_DB_FILE } from '../../src/main/sandbox/sandbox';
import { SANDBOX_SERVICE_SECRET_ACCOUNT } from '../../src/main/sandbox/service-secret';
import { serviceSecretFileOf, startService } from '../../src/service';
import { rejection } from '../support/assertions';
import { scanForSecrets } from '../support/scan-for-secrets';
import { newOperator, removeOperator, type Operator } from './helpers';

let operator: Operator | undefined;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.stop();
  if (operator) {
    await operator.store.delete(SANDBOX_SERVICE_SECRET_ACCOUNT);
    await removeOperator(operator);
  }
  operator = undefined;
  sandbox = undefined;
});

it('generates the sandbox key once, makes the Sandbox profile the default, and keeps the organization across restarts', async () => {
  operator = await newOperator();
  const logs: string[] = [];
  sandbox = new Sandbox({
    dataDir: operator.dataDir,
    keychain: operator.keychain,
    secrets: operator.store,
    profiles: operator.profiles,
    log: (line) => logs.push(line),
  });
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
  // Same port: whatever else was pointed at the Sandbox (a hosted profile, an SDK's baseUrl) keeps working.
  expect(second.info.baseUrl).toBe(first.info.baseUrl);
  expect(second.profile.id).toBe(first.profile.id);
  expect((await operator.profiles.list()).filter((profile) => profile.kind === 'sandbox')).toHaveLength(1);
  expect((await operator.keychain.listApiKeys()).map((key) => key.name).sort()).toEqual(['operator', 'sandbox']);
  const again = new ApiClient({ profile: second.profile, stamper: operator.stamper });
  expect((await again.query('whoami', {})).organizationId).toBe(first.info.organizationId);
  expect(await scanForSecrets(operator.dataDir, operator.store.secrets)).toEqual([]);
});

describe('finding 3 (app): the Sandbox service secret belongs in the OS keychain, not in a file', () => {
  function sandboxFor(op: Operator, start?: ConstructorParameters<typeof Sandbox>[0]['start']) {
    return new Sandbox({
      dataDir: op.dataDir,
      keychain: op.keychain,
      secrets: op.store,
      profiles: op.profiles,
      log: () => undefined,
      ...(start === undefined ? {} : { start }),
    });
  }

  it('keeps the secret in the keychain: no secret file beside the database, and no copy anywhere in the data directory', async () => {
    operator = await newOperator();
    sandbox = sandboxFor(operator);
    await sandbox.start();
    const db = join(operator.dataDir, SANDBOX_DB_FILE);
    expect(existsSync(serviceSecretFileOf(db))).toBe(false);
    const stored = await operator.store.get(SANDBOX_SERVICE_SECRET_ACCOUNT);
    expect(stored).toHaveLength(40);
    expect(await scanForSecrets(operator.dataDir, [stored!.subarray(0, 32)])).toEqual([]);
  });

  it('moves the secret file of an earlier version into the keychain, deletes the file, and still opens what it sealed', async () => {
    operator = await newOperator();
    const db = join(operator.dataDir, SANDBOX_DB_FILE);
    // An earlier version: the service keeps its secret in a file beside the database.
    sandbox = sandboxFor(operator, async ({ serviceSecret: _inKeychain, ...options }) => {
      const service = await startService(options);
      return { info: service.info, stop: () => service.close() };
    });
    const earlier = await sandbox.start();
    const client = new ApiClient({ profile: earlier.profile, stamper: operator.stamper });
    const created = await client.submit('create_wallet', {
      walletName: 'sealed before the move',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    });
    if (created.state !== 'completed') throw new Error(`create_wallet is ${created.state}`);
    await sandbox.stop();
    const fileSecret = Buffer.from((await readFile(serviceSecretFileOf(db), 'utf8')).trim(), 'hex');

    sandbox = sandboxFor(operator);
    const now = await sandbox.start();
    expect(existsSync(serviceSecretFileOf(db))).toBe(false);
    expect(Buffer.from((await operator.store.get(SANDBOX_SERVICE_SECRET_ACCOUNT))!.subarray(0, 32))).toEqual(fileSecret);
    const exporter = new Exporter({
      client: new ApiClient({ profile: now.profile, stamper: operator.stamper }),
      keychain: operator.keychain,
      enclaveSignerPublicKey: now.profile.enclaveSignerPublicKey,
    });
    const revealed = await exporter.reveal({ kind: 'wallet', walletId: created.result.walletId }, { kind: 'ephemeral' });
    expect(revealed.state === 'revealed' && revealed.secret.kind === 'mnemonic' && revealed.secret.mnemonic.split(' ')).toHaveLength(12);
  });

  it('refuses to make up a new secret for a database that holds sealed data when the keychain entry is gone', async () => {
    operator = await newOperator();
    sandbox = sandboxFor(operator);
    const { profile } = await sandbox.start();
    const created = await new ApiClient({ profile, stamper: operator.stamper }).submit('create_wallet', {
      walletName: 'sealed',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    });
    expect(created.state).toBe('completed');
    await sandbox.stop();
    await operator.store.delete(SANDBOX_SERVICE_SECRET_ACCOUNT);

    const error = await rejection(sandbox.start());
    expect(error.code).toBe('FAILED_PRECONDITION');
    expect(error.message).toContain(SANDBOX_SERVICE_SECRET_ACCOUNT);
  });
});

describe('issue 24 item 9: the Sandbox keeps its address', () => {
  it('serves at the same port after stop/start and reset, so a hosted profile pointing at it keeps working', async () => {
    operator = await newOperator();
    sandbox = new Sandbox({
      dataDir: operator.dataDir,
      keychain: operator.keychain,
      secrets: operator.store,
      profiles: operator.profiles,
      log: () => undefined,
    });
    const first = await sandbox.start();
    // A second operator's view of the same Sandbox: a hosted profile with the Sandbox's address and signer.
    const hosted = await operator.profiles.add({
      name: 'Shared sandbox',
      kind: 'hosted',
      baseUrl: first.info.baseUrl,
      organizationId: first.info.organizationId,
      apiKeyName: 'sandbox',
      enclaveSignerPublicKey: first.info.enclaveSignerPublicKey,
    });
    const client = new ApiClient({ profile: hosted, stamper: operator.stamper });
    await sandbox.stop();
    await sandbox.start();
    expect((await client.query('whoami', {})).organizationId).toBe(first.info.organizationId);
    const reset = await sandbox.reset();
    expect(reset.info.baseUrl).toBe(first.info.baseUrl);
    expect(sandbox.status().notice).toBeUndefined();
  });

  it('falls back to a free port when its port is taken, and says so until it stops', async () => {
    operator = await newOperator();
    const logs: string[] = [];
    sandbox = new Sandbox({
      dataDir: operator.dataDir,
      keychain: operator.keychain,
      secrets: operator.store,
      profiles: operator.profiles,
      log: (line) => logs.push(line),
    });
    const first = await sandbox.start();
    await sandbox.stop();
    const port = Number(new URL(first.info.baseUrl).port);
    const squatter = createServer();
    await new Promise<void>((listening) => squatter.listen(port, '127.0.0.1', listening));
    try {
      const moved = await sandbox.start();
      expect(moved.info.baseUrl).not.toBe(first.info.baseUrl);
      expect(moved.profile.baseUrl).toBe(moved.info.baseUrl);
      const { notice } = sandbox.status();
      expect(notice).toContain(`Port ${port}, where the Sandbox served before, is taken by another program`);
      expect(notice).toContain(moved.info.baseUrl);
      expect(logs).toContain(notice);
    } finally {
      await new Promise((closed) => squatter.close(closed));
    }
    await sandbox.stop();
    expect(sandbox.status().notice).toBeUndefined();
  });
});
