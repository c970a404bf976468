/**
 * `sign transaction` and `sign payload` against the Sandbox profile: the CLI prints what is signed and where the
 * policies stand before it submits; `--no-post` stamps the request with networking disabled, described without the
 * organization's data, and `post-stamped` sends it later.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress, recoverTransactionAddress, serializeTransaction } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiClient } from '../../src/main/client/api-client';
import { DEFAULT_KEYCHAIN_SERVICE, Keychain } from '../../src/main/keychain/keychain';
import { OsSecretStore } from '../../src/main/keychain/secret-store';
import { Profiles } from '../../src/main/profiles/profiles';
import { Sandbox } from '../../src/main/sandbox/sandbox';
import { Stamper } from '../../src/main/stamper/stamper';
import { runCli, writeNoNetworkPreload } from './helpers';

const RECIPIENT = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');

let dataDir: string;
let work: string;
let noNetwork: string;
let keychain: Keychain;
let profiles: Profiles;
let address: string;

/** The JSON that ends stdout, after the printed description. */
function trailingJson<T>(stdout: string): T {
  return JSON.parse(stdout.slice(stdout.indexOf('\n{') + 1)) as T;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-cli-signing-data-'));
  work = await mkdtemp(join(tmpdir(), 'qk-cli-signing-work-'));
  noNetwork = await writeNoNetworkPreload(work);
  profiles = new Profiles({ dataDir });
  // The CLI opens the default keychain service, as the app does.
  const secrets = new OsSecretStore(DEFAULT_KEYCHAIN_SERVICE);
  keychain = new Keychain({ dataDir, store: secrets, profiles });
  const running = new Sandbox({ dataDir, keychain, secrets, profiles, log: () => undefined });
  const { info, profile } = await running.start();
  try {
    const client = new ApiClient({ profile, stamper: new Stamper(keychain) });
    const created = await client.submit('create_wallet', {
      walletName: 'treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    });
    if (created.state !== 'completed') throw new Error(`create_wallet is ${created.state}`);
    address = created.result.addresses[0]!;
  } finally {
    await running.stop();
  }
  // The same key and organization as an air-gapped machine's profile would have; its URL is never reached.
  await profiles.add({
    name: 'air-gapped',
    kind: 'hosted',
    baseUrl: 'https://unreachable.invalid',
    organizationId: info.organizationId,
    apiKeyName: profile.apiKeyName,
    enclaveSignerPublicKey: info.enclaveSignerPublicKey,
  });
});

afterAll(async () => {
  for (const profile of await profiles.list()) await profiles.remove(profile.id);
  for (const { name } of await keychain.listApiKeys()) await keychain.deleteApiKey(name);
  await rm(dataDir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

it('prints the decoded transaction and the policy standing, then signs it', async () => {
  const unsigned = serializeTransaction({
    type: 'eip1559',
    chainId: 11155111,
    nonce: 3,
    to: RECIPIENT,
    value: 1_500_000_000_000_000_000n,
    gas: 21_000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
  });
  const run = await runCli(dataDir, [
    '--profile',
    'Sandbox',
    'sign',
    'transaction',
    '--sign-with',
    address,
    '--type',
    'ethereum',
    '--unsigned',
    unsigned,
  ]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const description = run.stdout.slice(0, run.stdout.indexOf('\n{'));
  expect(description).toContain('Sign an Ethereum transaction');
  expect(description).toContain('Network: Sepolia (chain id 11155111)');
  expect(description).toContain(`Signer: treasury / m/44'/60'/0'/0/0 (${address})`);
  expect(description).toContain('Value: 1.5 ETH (1500000000000000000 wei)');
  expect(description).toContain('Policies: ALLOW (decided by the root quorum)');
  const outcome = trailingJson<{ state: string; result: { kind: string; signedTransaction: string } }>(run.stdout);
  expect(outcome.state).toBe('completed');
  const signed = outcome.result.signedTransaction.replace(/^0x/, '');
  expect(await recoverTransactionAddress({ serializedTransaction: `0x${signed}` as never })).toBe(getAddress(address));
});

it('stamps a payload with no network, described offline, and post-stamped sends it', async () => {
  const run = await runCli(
    dataDir,
    ['--profile', 'air-gapped', 'sign', 'payload', '--sign-with', address, '--payload', 'I approve the Q3 budget', '--no-post'],
    { noNetwork },
  );
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain('Sign a raw payload');
  expect(run.stderr).toContain('Payload: I approve the Q3 budget\n');
  expect(run.stderr).toContain('Policies: not evaluated offline');
  const stamped = JSON.parse(run.stdout) as { path: string; body: string };
  expect(stamped.path).toBe('/public/v1/submit/sign_raw_payload');
  expect(JSON.parse(stamped.body)).toMatchObject({
    type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    parameters: { payload: 'I approve the Q3 budget', hashFunction: 'HASH_FUNCTION_KECCAK256' },
  });

  const file = join(work, 'sign-1.json');
  await writeFile(file, run.stdout);
  const posted = await runCli(dataDir, ['--profile', 'Sandbox', 'post-stamped', file]);
  expect(posted.stderr).toBe('');
  expect(JSON.parse(posted.stdout)).toMatchObject({ activity: { status: 'ACTIVITY_STATUS_COMPLETED', type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' } });
});

it('refuses an unknown chain or encoding as a usage error, and a bad transaction with its reason', async () => {
  const chain = await runCli(dataDir, ['sign', 'transaction', '--sign-with', address, '--type', 'dogecoin', '--unsigned', '00']);
  expect(chain.code).toBe(2);
  expect(chain.stderr).toMatch(/^--type must be one of ethereum, solana, bitcoin; got dogecoin/);
  const encoding = await runCli(dataDir, ['sign', 'payload', '--sign-with', address, '--payload', 'x', '--encoding', 'base64']);
  expect(encoding.code).toBe(2);
  const garbled = await runCli(dataDir, [
    '--profile',
    'Sandbox',
    'sign',
    'transaction',
    '--sign-with',
    address,
    '--type',
    'ethereum',
    '--unsigned',
    'zz',
  ]);
  expect(garbled.code).toBe(1);
  expect(garbled.stdout).toBe('');
  expect(garbled.stderr).toMatch(/^ENCODING_INVALID/);
});
