/**
 * `sign --preview` against the Sandbox profile and an Anvil node: the CLI prints what the request signs, naming the
 * recipient this desktop's address book names, and what the transaction would do on the node Settings name (the
 * balance changes, or a revert and its reason), then submits nothing. Without a node for the chain it says why it
 * is not simulated; `--no-post` names the recipient from the address book with no network at all.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestClient, encodeFunctionData, getAddress, http, parseEther, serializeTransaction, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AddressBook } from '../../src/main/address-book/address-book';
import { Settings } from '../../src/main/settings/settings';
import { TOKEN_ABI, startSimulationChain, type SimulationChain } from '../support/simulation-chain';
import { runCli, writeNoNetworkPreload } from './helpers';
import { prepareSandboxDataDir, type SandboxDataDir } from './sandbox-data-dir';

const CHAIN_ID = 31337;
/** Anvil's third account: a stranger to the organization, named only by the address book. */
const PAYROLL = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');

let dataDir: string;
let work: string;
let noNetwork: string;
let chain: SimulationChain;
let address: string;
let sandboxDataDir: SandboxDataDir;

function unsignedTransaction({
  to,
  chainId = CHAIN_ID,
  value = parseEther('1.5'),
  data,
}: {
  to: Hex;
  chainId?: number;
  value?: bigint;
  data?: Hex;
}): string {
  return serializeTransaction({
    chainId,
    type: 'eip1559',
    nonce: 0,
    to,
    value,
    ...(data === undefined ? {} : { data }),
    gas: 100_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
}

const signTransaction = (unsigned: string, ...more: string[]) => [
  'sign',
  'transaction',
  '--sign-with',
  address,
  '--type',
  'ethereum',
  '--unsigned',
  unsigned,
  ...more,
];

/** How many signing activities the Sandbox recorded (it runs only while a command or this asks). */
function signingActivities(): Promise<number> {
  return sandboxDataDir.whileRunning(async (client) => {
    const { activities } = await client.query('list_activities', { filterByType: ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2'] });
    return activities.length;
  });
}

beforeAll(async () => {
  chain = await startSimulationChain();
  sandboxDataDir = await prepareSandboxDataDir('qk-cli-preview-data-');
  ({ dataDir } = sandboxDataDir);
  address = sandboxDataDir.addresses[0]!;
  work = await mkdtemp(join(tmpdir(), 'qk-cli-preview-work-'));
  noNetwork = await writeNoNetworkPreload(work);
  await createTestClient({ mode: 'anvil', chain: foundry, transport: http(chain.anvil.url) }).setBalance({
    address: address as Hex,
    value: parseEther('10'),
  });
  await new Settings({ dataDir }).set({ nodeUrls: { [`eip155:${CHAIN_ID}`]: chain.anvil.url } });
  const { organizationId } = sandboxDataDir.sandbox.info;
  await new AddressBook({ dataDir }).add(organizationId, { family: 'ethereum', chainId: CHAIN_ID, address: PAYROLL, name: 'Payroll' });
  await sandboxDataDir.addAirGappedProfile();
}, 120_000);

afterAll(async () => {
  chain?.stop();
  await sandboxDataDir?.remove();
  await rm(work, { recursive: true, force: true });
});

it('prints the named recipient and the simulated balance changes, and submits nothing', async () => {
  const run = await runCli(dataDir, ['--profile', 'Sandbox', ...signTransaction(unsignedTransaction({ to: PAYROLL }), '--preview')]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^ {2}Send 1\.5 ETH to Payroll on /m);
  expect(run.stdout).toMatch(/^ {2}What this would do \(simulated at block \d+, 0x[0-9a-f]{64}, with the state http:\/\/127\.0\.0\.1:\d+ gave\):$/m);
  expect(run.stdout).toMatch(
    new RegExp(`^ {4}treasury / m/44'/60'/0'/0/0 \\(${getAddress(address)}\\): −1\\.5\\d* ETH \\(network fee included\\)$`, 'm'),
  );
  expect(run.stdout).toContain(`\n    Payroll (${PAYROLL}): +1.5 ETH\n`);
  expect(run.stdout).not.toContain('"state"');
  expect(await signingActivities()).toBe(0);
});

it('prints a revert and its reason: a token transfer from an account that holds none', async () => {
  const data = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [PAYROLL, 1n] });
  const run = await runCli(dataDir, [
    '--profile',
    'Sandbox',
    ...signTransaction(unsignedTransaction({ to: chain.token, value: 0n, data }), '--preview'),
  ]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('\n    It would revert: “ds-math-sub-underflow”; nothing but the network fee would change.\n');
});

it('says why a transaction on a chain without a node is not simulated', async () => {
  const run = await runCli(dataDir, ['--profile', 'Sandbox', ...signTransaction(unsignedTransaction({ to: PAYROLL, chainId: 1 }), '--preview')]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('\n  What this would do: not simulated: no node set for Ethereum (eip155:1) in Settings\n');
});

it('names the recipient from the address book with no network, and refuses --preview with --no-post', async () => {
  const unsigned = unsignedTransaction({ to: PAYROLL });
  const stamped = await runCli(dataDir, ['--profile', 'air-gapped', ...signTransaction(unsigned, '--no-post')], { noNetwork });
  expect(stamped.code, stamped.stderr).toBe(0);
  expect(stamped.stderr).toMatch(/^ {2}Send 1\.5 ETH to Payroll on /m);
  const both = await runCli(dataDir, ['--profile', 'air-gapped', ...signTransaction(unsigned, '--no-post', '--preview')], { noNetwork });
  expect(both.code).toBe(2);
  expect(both.stderr).toMatch(/^--preview and --no-post do not go together/);
});
