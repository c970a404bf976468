/**
 * `simulate ACTIVITY_ID` with state bundles, against the Sandbox profile and an Anvil node: `--save-state-bundle`
 * writes the bundle of a signing activity's transaction while Settings name a node; once no node is set, the same
 * activity is not simulated, and `--state-bundle` simulates it from the file to the same balance changes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestClient, http, parseEther, serializeTransaction } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Settings } from '../../src/main/settings/settings';
import { parseStateBundle } from '../../src/shared/offline/state-bundle';
import { RECIPIENT, startSimulationChain, type SimulationChain } from '../support/simulation-chain';
import { runCli } from './helpers';
import { prepareSandboxDataDir, type SandboxDataDir } from './sandbox-data-dir';

const CHAIN_ID = 31337;

let dataDir: string;
let work: string;
let chain: SimulationChain;
let sandboxDataDir: SandboxDataDir;
let activityId: string;

beforeAll(async () => {
  chain = await startSimulationChain();
  sandboxDataDir = await prepareSandboxDataDir('qk-cli-bundle-data-');
  ({ dataDir } = sandboxDataDir);
  work = await mkdtemp(join(tmpdir(), 'qk-cli-bundle-work-'));
  const address = sandboxDataDir.addresses[0]!;
  const anvil = createTestClient({ mode: 'anvil', chain: foundry, transport: http(chain.anvil.url) });
  await anvil.setBalance({ address: address as `0x${string}`, value: parseEther('10') });
  // Anvil sets a balance without a block: the latest header's state root would not hold it, and no proof would check.
  await anvil.mine({ blocks: 1 });
  const unsignedTransaction = serializeTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce: 0,
    to: RECIPIENT,
    value: parseEther('1.5'),
    gas: 100_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  const signed = await sandboxDataDir.whileRunning((client) =>
    client.submit('sign_transaction', { signWith: address, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' }),
  );
  activityId = signed.activity.id;
}, 120_000);

afterAll(async () => {
  chain?.stop();
  await sandboxDataDir?.remove();
  await rm(work, { recursive: true, force: true });
});

it('saves a state bundle with a node, and simulates from it once no node is set', async () => {
  const settings = new Settings({ dataDir });
  await settings.set({ nodeUrls: { [`eip155:${CHAIN_ID}`]: chain.anvil.url } });
  const file = join(work, 'bundle.json');
  const saved = await runCli(dataDir, ['--profile', 'Sandbox', 'simulate', activityId, '--save-state-bundle', file]);
  expect(saved.code, saved.stderr).toBe(0);
  expect(saved.stdout).toMatch(
    /^Saved the state bundle of block \d+ \(0x[0-9a-f]{64}\) to .*bundle\.json: \d+ accounts and \d+ storage slots, each with its proof\.\n$/,
  );
  const bundle = parseStateBundle(await readFile(file, 'utf8'), 'bundle.json');
  const online = await runCli(dataDir, ['--profile', 'Sandbox', 'simulate', activityId]);
  expect(online.code, online.stderr).toBe(0);

  await settings.set({ nodeUrls: {} });
  const offline = await runCli(dataDir, ['--profile', 'Sandbox', 'simulate', activityId]);
  expect(offline.stdout).toBe(`What this would do: not simulated: no node set for Anvil (eip155:${CHAIN_ID}) in Settings\n`);
  const fromBundle = await runCli(dataDir, ['--profile', 'Sandbox', 'simulate', activityId, '--state-bundle', file]);
  expect(fromBundle.code, fromBundle.stderr).toBe(0);
  const [heading, ...lines] = fromBundle.stdout.trimEnd().split('\n');
  expect(heading).toBe(
    `What this would do (simulated at block ${BigInt(bundle.block.number)}, ${bundle.block.hash}, from a state bundle, proofs checked, made by ${bundle.madeBy}; compare the block hash with one you trust):`,
  );
  expect(lines).toEqual(online.stdout.trimEnd().split('\n').slice(1));
  expect(lines.join('\n')).toMatch(/^ {2}treasury \/ m\/44'\/60'\/0'\/0\/0 \(0x[0-9a-fA-F]{40}\): −1\.5\d* ETH \(network fee included\)$/m);
});

it('refuses both flags at once', async () => {
  const both = await runCli(dataDir, ['simulate', activityId, '--state-bundle', 'a.json', '--save-state-bundle', 'b.json']);
  expect(both.code).toBe(2);
  expect(both.stderr).toMatch(/^--state-bundle simulates from a bundle and --save-state-bundle makes one: give one of them/);
});
