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
import { runCli, writeNoNetworkPreload } from './helpers';
import { prepareSandboxDataDir, type SandboxDataDir } from './sandbox-data-dir';

const RECIPIENT = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');

let dataDir: string;
let work: string;
let noNetwork: string;
let address: string;
let sandboxDataDir: SandboxDataDir;

/** The JSON that ends stdout, after the printed description. */
function trailingJson<T>(stdout: string): T {
  return JSON.parse(stdout.slice(stdout.indexOf('\n{') + 1)) as T;
}

beforeAll(async () => {
  sandboxDataDir = await prepareSandboxDataDir('qk-cli-signing-data-');
  ({ dataDir } = sandboxDataDir);
  address = sandboxDataDir.addresses[0]!;
  await sandboxDataDir.addAirGappedProfile();
  work = await mkdtemp(join(tmpdir(), 'qk-cli-signing-work-'));
  noNetwork = await writeNoNetworkPreload(work);
});

afterAll(async () => {
  await sandboxDataDir?.remove();
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
