/**
 * A transfer's simulated balance changes on the approval card, before the vote, on the real handlers, the real
 * Sandbox and a real Anvil node. The root sets up (through the API) a wallet with two Ethereum accounts, two
 * operators tagged ops with their own profiles and a policy asking two ops to approve a signature; the token (Uniswap
 * V2's test ERC-20 on Anvil) is declared as ACME and Anvil is set as chain 31337's node in Settings. Operator A
 * proposes a transfer of 5 ACME from Treasury to Payroll; operator B opens it on Approvals and the card shows what it
 * would do at Anvil's latest block: Treasury −5 ACME and its fee, Payroll +5 ACME. Then an overdraw reads as a revert
 * with its reason. Screenshots of the card in both themes.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { createTestClient, createWalletClient, encodeFunctionData, getAddress, http, parseEther, serializeTransaction, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import type { E2eHost } from '../support/e2e-host';
import { SIGNER, TOKEN_ABI, startSimulationChain, type SimulationChain } from '../support/simulation-chain';
import { SCREENS_DIR, createKeyedUsers, done, expect, startSandbox, test } from './fixtures';

const CHAIN_ID = 31337;

let chain: SimulationChain;
test.beforeAll(async () => {
  chain = await startSimulationChain();
});
test.afterAll(() => chain?.stop());

interface Organization {
  treasury: Hex;
  payroll: Hex;
  operatorA: ApiClient;
  profileB: string;
}

/** The root's setup through the service's API; operator A proposes through it too, operator B acts in the UI. */
async function organization(page: Page, host: E2eHost): Promise<Organization> {
  const { organizationId, enclaveSignerPublicKey, baseUrl } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
  const userIds = await createKeyedUsers(host, root, ['Operator A', 'Operator B']);
  const { userTagId } = await done(root.submit('create_user_tag', { userTagName: 'ops', userIds }));
  const { addresses } = await done(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  const payroll = await done(
    root.submit('create_wallet', {
      walletName: 'Payroll',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  await done(
    root.submit('create_policy', {
      policyName: 'two ops sign',
      effect: 'EFFECT_ALLOW',
      condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
      consensus: `approvers.filter(user, user.tags.contains('${userTagId}')).count() >= 2`,
      notes: '',
    }),
  );
  const profile = async (name: string) =>
    host.services.profiles.add({ name, kind: 'hosted', baseUrl, organizationId, apiKeyName: name, enclaveSignerPublicKey });
  const profileA = await profile('Operator A');
  const profileB = await profile('Operator B');
  return {
    treasury: getAddress(addresses[0]!),
    payroll: getAddress(payroll.addresses[0]!),
    operatorA: new ApiClient({ profile: profileA, stamper: new Stamper(host.services.keychain) }),
    profileB: profileB.id,
  };
}

/** Treasury holds 10 ETH for fees and 100 ACME, from Anvil's first account. */
async function fund(treasury: Hex): Promise<void> {
  await createTestClient({ mode: 'anvil', chain: foundry, transport: http(chain.anvil.url) }).setBalance({
    address: treasury,
    value: parseEther('10'),
  });
  const deployer = createWalletClient({ account: SIGNER, chain: foundry, transport: http(chain.anvil.url) });
  await deployer.writeContract({ address: chain.token, abi: TOKEN_ABI, functionName: 'transfer', args: [treasury, parseEther('100')] });
}

function transfer(to: Hex, amount: bigint): string {
  return serializeTransaction({
    type: 'eip1559',
    chainId: CHAIN_ID,
    nonce: 0,
    to: chain.token,
    value: 0n,
    data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [to, amount] }),
    gas: 100_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
}

/** Operator B's Approvals: the waiting activity whose row reads `summary`, opened; answers its simulation section. */
async function openPending(page: Page, host: E2eHost, profileB: string, summary: string): Promise<Locator> {
  await host.services.profiles.setActive(profileB);
  await page.reload();
  await expect(page.getByText('Profile: Operator B')).toBeVisible();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Approvals', exact: true }).click();
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').filter({ hasText: summary });
  await expect(row).toHaveCount(1);
  await row.getByRole('button').click();
  return page.getByRole('region', { name: 'What this would do' });
}

/** The card's detail panel, however long, in both themes. */
async function screenshotDetail(page: Page, section: Locator, name: string): Promise<void> {
  await mkdir(SCREENS_DIR, { recursive: true });
  await section.scrollIntoViewIfNeeded();
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await page.screenshot({ path: join(SCREENS_DIR, `${name}-${theme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('the approval card shows a transfer’s simulated balance changes before the vote, and a revert’s reason', async ({ page, host }) => {
  // The Sandbox, Anvil and a simulation worker started from source (tsx) each take seconds on a busy machine.
  test.setTimeout(240_000);
  const org = await organization(page, host);
  await fund(org.treasury);
  await host.handlers['tokens.declare']({
    token: { family: 'ethereum', chainId: CHAIN_ID, address: getAddress(chain.token), symbol: 'ACME', decimals: 18 },
  });

  // Without a node for the chain, the card says it is not simulated and why.
  await org.operatorA.submit('sign_transaction', {
    signWith: org.treasury,
    unsignedTransaction: transfer(org.payroll, parseEther('5')),
    type: 'TRANSACTION_TYPE_ETHEREUM',
  });
  let section = await openPending(page, host, org.profileB, 'Transfer 5 ACME');
  await expect(section).toContainText(`Not simulated: no node set for Anvil (eip155:${CHAIN_ID}) in Settings`);

  await host.handlers['app.setSettings']({ nodeUrls: { [`eip155:${CHAIN_ID}`]: chain.anvil.url } });
  await page.reload();
  section = await openPending(page, host, org.profileB, 'Transfer 5 ACME');
  await expect(section.getByRole('heading')).toHaveText(/^What this would do \(simulated at block \d+\)$/, { timeout: 60_000 });
  const lines = section.getByRole('list', { name: 'Simulated changes' });
  await expect(lines).toContainText(`Treasury / m/44'/60'/0'/0/0 (${org.treasury}): −5 ACME`);
  await expect(lines).toContainText(`Payroll / m/44'/60'/0'/0/0 (${org.payroll}): +5 ACME`);
  await expect(lines).toContainText(/Treasury \/ m\/44'\/60'\/0'\/0\/0 \(0x[0-9a-fA-F]{40}\): −0\.\d+ ETH \(network fee included\)/);
  await expect(section).toContainText(`From the state ${chain.anvil.url} gave for block`);
  // Before the vote: the vote's buttons are still there.
  await expect(page.getByRole('button', { name: 'Approve…' })).toBeVisible();
  await screenshotDetail(page, section, 'card-simulated-transfer');

  // Main's confirmation of the vote restates the same lines under the same block.
  host.answerConfirmations('wait');
  await page.getByRole('button', { name: 'Approve…' }).click();
  const shown = await host.nextConfirmation();
  expect(shown.text).toMatch(/What this would do \(simulated at block \d+, 0x[0-9a-f]{64}, with the state http:\/\/127\.0\.0\.1:\d+ gave\):/);
  expect(shown.text).toContain(`Payroll / m/44'/60'/0'/0/0 (${org.payroll}): +5 ACME`);
  shown.answer(false);
  await expect(page.getByRole('alert')).toContainText("declined in QuorumKey's confirmation");
  host.answerConfirmations('continue');

  // A transfer of more than Treasury holds would revert: the card says so, with the token's reason, and no ACME moves.
  await org.operatorA.submit('sign_transaction', {
    signWith: org.treasury,
    unsignedTransaction: transfer(org.payroll, parseEther('1000')),
    type: 'TRANSACTION_TYPE_ETHEREUM',
  });
  section = await openPending(page, host, org.profileB, 'Transfer 1,000 ACME');
  const reverted = section.getByRole('list', { name: 'Simulated changes' });
  await expect(reverted).toContainText('It would revert: “ds-math-sub-underflow”; nothing but the network fee would change.', { timeout: 60_000 });
  await expect(reverted).not.toContainText('ACME');
  await screenshotDetail(page, section, 'card-simulated-revert');
});
