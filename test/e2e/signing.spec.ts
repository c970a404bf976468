/**
 * Clear signing through the UI, on the real handlers and the real Sandbox. The root sets up (through the API) a wallet,
 * two non-root operators tagged ops with their own profiles, the USD Coin ABI and a labelled payroll contract, and
 * policies: one ops approver up to 1,000 USDC, two above it, two for SOL transfers. Operator A proposes on the Sign
 * screen; operator B sees the decoded card on Approvals (token, recipient label, amount, matched policy, "needs 1
 * more approver"), approves, and the signature recovers to the wallet. Typed data and an unlimited approval are
 * checked on the Sign screen. Screenshots of every new card and screen in both themes.
 */
import { PublicKey, SystemProgram, Transaction as SolanaTransaction } from '@solana/web3.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { encodeMultiSendData } from '@safe-global/protocol-kit';
import { encodeFunctionData, getAddress, maxUint256, parseAbi, recoverTransactionAddress, serializeTransaction, zeroAddress, type Hex } from 'viem';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import type { E2eHost } from '../support/e2e-host';
import { SCREENS_DIR, createKeyedUsers, done, test, expect, screenshotBothThemes, startSandbox } from './fixtures';
import { ERC20, ERC20_JSON } from '../support/erc20';

const USDC = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const PAYROLL = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
/** A token contract on no list: operators declare it on the Contracts screen. */
const ACME_TOKEN = getAddress('0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c');
const SOLANA_RECIPIENT = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
/**
 * An exactInputSingle on Uniswap's SwapRouter02 on Ethereum, unsigned: 0.0065 WETH for at least 13.9 USDT. It is the
 * registry's own test data for its Uniswap descriptor (uniswap/tests/calldata-UniswapV3Router02.tests.json).
 */
const UNISWAP_ROUTER = getAddress('0x68b3465833fb72a70ecdf485e0e4c7bd8665fc45');
const UNISWAP_SWAP =
  '0x02f9010c010d83989680843b9aca008304e2009468b3465833fb72a70ecdf485e0e4c7bd8665fc4580b8e404e45aaf000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2000000000000000000000000dac17f958d2ee523a2206206994597c13d831ec70000000000000000000000000000000000000000000000000000000000000bb8000000000000000000000000eced4025456b6c2987fac2e4c829889e681986a70000000000000000000000000000000000000000000000000016fdae8fefba690000000000000000000000000000000000000000000000000000000000d41da00000000000000000000000000000000000000000000000000000000000000000c0';
const PAYROLL_JSON = JSON.stringify([{ type: 'function', name: 'payAll', stateMutability: 'nonpayable', inputs: [], outputs: [] }]);
const LIMIT = 1_000_000_000n;

interface Organization {
  ethereum: string;
  solana: string;
  profiles: { a: string; b: string };
}

/** The root's setup, through the service's API; the operators act in the UI. */
async function organization(page: Page, host: E2eHost): Promise<Organization> {
  const { organizationId, enclaveSignerPublicKey, baseUrl } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
  const userIds = await createKeyedUsers(host, root, ['Operator A', 'Operator B']);
  const { userTagId } = await done(root.submit('create_user_tag', { userTagName: 'ops', userIds }));
  const { addresses } = await done(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      accounts: [
        { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
        { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' },
      ],
    }),
  );
  for (const [address, label, definition] of [
    [USDC, 'USD Coin', ERC20_JSON],
    [PAYROLL, 'Acme payroll', PAYROLL_JSON],
  ] as const) {
    await done(
      root.submit('create_smart_contract_interface', {
        smartContractAddress: address,
        smartContractInterface: definition,
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label,
      }),
    );
  }
  const ops = `user.tags.contains('${userTagId}')`;
  const transfer = `activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer'`;
  for (const [policyName, condition, consensus] of [
    ['ops transfer up to 1000 USDC', `${transfer} && eth.tx.contract_call_args['amount'] <= ${LIMIT}`, `approvers.any(user, ${ops})`],
    ['two ops above 1000 USDC', `${transfer} && eth.tx.contract_call_args['amount'] > ${LIMIT}`, `approvers.filter(user, ${ops}).count() >= 2`],
    [
      'two ops for SOL transfers',
      `activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && solana.tx.transfers.count() > 0`,
      `approvers.filter(user, ${ops}).count() >= 2`,
    ],
  ] as const) {
    await done(root.submit('create_policy', { policyName, effect: 'EFFECT_ALLOW', condition, consensus, notes: '' }));
  }
  const profile = async (name: string) =>
    (await host.services.profiles.add({ name, kind: 'hosted', baseUrl, organizationId, apiKeyName: name, enclaveSignerPublicKey })).id;
  return { ethereum: addresses[0]!, solana: addresses[1]!, profiles: { a: await profile('Operator A'), b: await profile('Operator B') } };
}

/** The whole card, however long, in both themes (the screen shots show only the viewport). */
async function screenshotCard(page: Page, card: Locator, name: string): Promise<void> {
  await mkdir(SCREENS_DIR, { recursive: true });
  const viewport = page.viewportSize();
  // A card inside the scrolling content area is clipped to the viewport: make the viewport as tall as the card.
  const height = Math.ceil((await card.boundingBox())?.height ?? 0) + 400;
  if (viewport !== null) await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await card.screenshot({ path: join(SCREENS_DIR, `${name}-${theme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (viewport !== null) await page.setViewportSize(viewport);
}

async function switchProfile(page: Page, host: E2eHost, profileId: string, name: string): Promise<void> {
  await host.services.profiles.setActive(profileId);
  await page.reload();
  await expect(page.getByText(`Profile: ${name}`)).toBeVisible();
}

async function openScreen(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: label, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: label === 'Contracts' ? 'Contract interfaces' : label, exact: true })).toBeVisible();
}

/** Fills the Sign screen and shows the card; answers the card. */
async function preview(page: Page, fields: { kind: 'Transaction' | 'Message'; account: string; chain?: string; encoding?: string; text: string }) {
  await openScreen(page, 'Sign');
  const form = page.getByRole('form', { name: 'Signing request' });
  await form.getByRole('button', { name: fields.kind, exact: true }).click();
  await form.getByLabel('Account').selectOption(fields.account);
  if (fields.chain !== undefined) await form.getByLabel('Chain').selectOption(fields.chain);
  if (fields.encoding !== undefined) await form.getByLabel('Encoding').selectOption(fields.encoding);
  await form.getByRole('textbox', { name: fields.kind === 'Transaction' ? 'Unsigned transaction' : 'Message' }).fill(fields.text);
  await form.getByRole('button', { name: 'Check what it signs' }).click();
  const card = page.getByRole('region', { name: 'Before you submit' }).getByRole('article');
  await expect(card).toBeVisible();
  return card;
}

/** Operator A submits what the Sign screen shows; answers the fingerprint the approvers vote on. */
async function submit(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Submit for signing' }).click();
  const waiting = page.getByRole('region', { name: 'Submitted' }).getByRole('status');
  await expect(waiting).toContainText('Waiting for votes (1 so far)');
  return (await waiting.locator('code.fingerprint').innerText()).trim();
}

/** Operator B opens the waiting activity on Approvals; answers its detail panel. */
async function openPending(page: Page, host: E2eHost, organization: Organization, title: string) {
  await switchProfile(page, host, organization.profiles.b, 'Operator B');
  await openScreen(page, 'Approvals');
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem');
  await expect(row).toHaveCount(1);
  await row.getByRole('button').click();
  // The detail panel is titled with what the request does, in words.
  const detail = page.getByRole('region', { name: title, exact: true });
  await expect(detail.getByRole('article')).toBeVisible();
  return detail;
}

/** The page only asks; main's confirmation (answered by the host) names the activity's fingerprint. */
async function approve(page: Page, host: E2eHost, fingerprint: string): Promise<void> {
  const asked = host.confirmations.length;
  await page.getByRole('button', { name: 'Approve…' }).click();
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();
  expect(host.confirmations.slice(asked).map((confirmation) => confirmation.detail)).toEqual([
    expect.stringContaining(`Fingerprint: ${fingerprint}`),
  ]);
}

async function signedResult(host: E2eHost, fingerprint: string): Promise<string> {
  const [activity] = (
    await host.handlers['activities.list']({ status: ['ACTIVITY_STATUS_COMPLETED'], type: ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2'] })
  ).filter((candidate) => candidate.fingerprint === fingerprint);
  const { result } = await host.handlers['signing.result']({ activityId: activity!.id });
  if (result?.kind !== 'signed-transaction') throw new Error('no signed transaction');
  return result.signedTransaction.replace(/^0x/, '');
}

test('an ERC-20 transfer above the limit: the second operator sees the decoded card, approves, and it signs', async ({ page, host }) => {
  const org = await organization(page, host);
  await switchProfile(page, host, org.profiles.a, 'Operator A');
  const unsigned = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 12,
    to: USDC,
    value: 0n,
    data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [PAYROLL, 2_500_000_000n] }),
    gas: 65_000n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  const card = await preview(page, { kind: 'Transaction', account: org.ethereum, chain: 'TRANSACTION_TYPE_ETHEREUM', text: unsigned });
  await expect(card).toContainText('Ethereum');
  await expect(card).toContainText('Treasury');
  await expect(card).toContainText('USD Coin');
  // USDC is on the known token list: the amount reads in USDC, the raw integer and the source beside it.
  await expect(card).toContainText('Transfer 2,500 USDC to Acme payroll on Ethereum');
  await screenshotBothThemes(page, 'sign-erc20-preview');
  await screenshotCard(page, card, 'card-erc20-transfer');
  const fingerprint = await submit(page);
  await screenshotBothThemes(page, 'sign-waiting');

  const detail = await openPending(page, host, org, 'Sign an Ethereum transaction');
  // The approval reads the request once, on the card, which knows the uploaded interfaces: no false "unknown contract".
  await expect(detail).not.toContainText('No interface is uploaded');
  const signing = detail.getByRole('article');
  // The card's lines are the reader's facts: the contract by its label, the call with its arguments nested under it.
  await expect(signing).toContainText('USD Coin · contract');
  await expect(signing).toContainText('transfer(address,uint256)');
  const args = signing.getByRole('list', { name: 'Call', exact: true });
  await expect(args).toContainText('Acme payroll');
  await expect(args).toContainText(PAYROLL);
  await expect(args).toContainText('2,500 USDC · raw 2500000000 · known token list');
  const standing = signing.getByRole('region', { name: 'Where the policies stand' });
  await expect(standing).toContainText('two ops above 1000 USDC');
  await expect(standing).toContainText('Needs 1 more approver tagged ops');
  await expect(standing).toContainText('you can approve');
  // Why it waits: the part of the policy that decided, the tag by name, and the value it read.
  const why = standing.getByRole('list', { name: 'Why' });
  await expect(why).toContainText('two ops above 1000 USDC: its consensus does not hold, because:');
  await expect(why).toContainText('approvers.filter(user, user.tags.contains(tag ops)).count() >= 2 (line 1, column 1) is false');
  await expect(why.getByRole('list', { name: 'Values read' })).toHaveText('approvers.filter(user, user.tags.contains(«tag ops»)).count() read 1');
  await expect(why).not.toContainText(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  await screenshotBothThemes(page, 'approval-signing-card');
  await screenshotCard(page, signing, 'card-erc20-approval');
  await approve(page, host, fingerprint);

  const signed = await signedResult(host, fingerprint);
  expect(await recoverTransactionAddress({ serializedTransaction: `0x${signed}` as never })).toBe(getAddress(org.ethereum));
});

test('a Solana transfer: the card names the System program and the amount in SOL; two operators sign it', async ({ page, host }) => {
  const org = await organization(page, host);
  await switchProfile(page, host, org.profiles.a, 'Operator A');
  const from = new PublicKey(org.solana);
  const transaction = new SolanaTransaction({ feePayer: from, recentBlockhash: 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k' });
  transaction.add(SystemProgram.transfer({ fromPubkey: from, toPubkey: new PublicKey(SOLANA_RECIPIENT), lamports: 500_000_000 }));
  const unsigned = Buffer.from(transaction.serialize({ requireAllSignatures: false, verifySignatures: false })).toString('hex');
  const card = await preview(page, { kind: 'Transaction', account: org.solana, chain: 'TRANSACTION_TYPE_SOLANA', text: unsigned });
  await expect(card).toContainText('0.5 SOL');
  const fingerprint = await submit(page);

  const detail = await openPending(page, host, org, 'Sign a Solana transaction');
  const signing = detail.getByRole('article');
  await expect(signing).toContainText('System');
  // The instruction's accounts and arguments are nested under it.
  const instruction = signing.getByRole('list', { name: 'Instruction 1', exact: true });
  await expect(instruction).toContainText('0.5 SOL');
  await expect(instruction).toContainText(SOLANA_RECIPIENT);
  await expect(detail.getByRole('region', { name: 'Where the policies stand' })).toContainText('two ops for SOL transfers');
  await screenshotBothThemes(page, 'approval-solana-card');
  await screenshotCard(page, detail.getByRole('article'), 'card-solana-transfer');
  await approve(page, host, fingerprint);

  const signedHex = await signedResult(host, fingerprint);
  const signed = SolanaTransaction.from(Buffer.from(signedHex, 'hex'));
  expect(signed.verifySignatures()).toBe(true);

  // The requester finds the signature on the activity, where main reads it, and saves it through main.
  await switchProfile(page, host, org.profiles.a, 'Operator A');
  await openScreen(page, 'Approvals');
  await page.getByRole('button', { name: 'History' }).click();
  await page
    .getByRole('list', { name: 'Activity history' })
    .getByRole('listitem')
    .filter({ hasText: 'Sign a Solana transaction' })
    .getByRole('button')
    .click();
  const done = page.getByRole('region', { name: 'Sign a Solana transaction', exact: true });
  const result = done.getByRole('region', { name: 'Signed result' });
  await expect(result.getByLabel('Signed transaction')).toContainText(signedHex);
  await result.getByLabel('File name').fill('solana-payout.json');
  await result.getByRole('button', { name: 'Save to file' }).click();
  await expect(result.getByRole('status').filter({ hasText: 'Saved to' })).toContainText('solana-payout.json');
  await screenshotBothThemes(page, 'approval-signature-found');
});

test('an EIP-712 permit shows its domain and message; an unlimited approval shows its warning', async ({ page, host }) => {
  const org = await organization(page, host);
  const permit = JSON.stringify({
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    domain: { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: USDC },
    message: { owner: getAddress(org.ethereum), spender: PAYROLL, value: '1000000', nonce: 0, deadline: 1_900_000_000 },
  });
  const typed = await preview(page, { kind: 'Message', account: org.ethereum, encoding: 'PAYLOAD_ENCODING_EIP712', text: permit });
  await expect(typed).toContainText('EIP-712 Permit');
  // Typed data hashes itself: the hash function is fixed to none, the other choices disabled.
  const hashFunction = page.getByRole('form', { name: 'Signing request' }).getByLabel('Hash function');
  await expect(hashFunction).toHaveValue('HASH_FUNCTION_NO_OP');
  await expect(hashFunction.locator('option:not([disabled])')).toHaveText(['None: the payload is a 32-byte digest (or EIP-712/7702)']);
  const domain = typed.getByRole('list', { name: 'domain', exact: true });
  await expect(domain).toContainText('USD Coin');
  await expect(domain).toContainText('verifyingContract');
  const message = typed.getByRole('list', { name: 'message', exact: true });
  await expect(message).toContainText('spender');
  await expect(message).toContainText('Acme payroll');
  await expect(message).toContainText('deadline');
  await screenshotBothThemes(page, 'sign-eip712-permit');
  await screenshotCard(page, typed, 'card-eip712-permit');

  const unlimited = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 13,
    to: USDC,
    data: encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [PAYROLL, maxUint256] }),
    gas: 50_000n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  const approval = await preview(page, { kind: 'Transaction', account: org.ethereum, chain: 'TRANSACTION_TYPE_ETHEREUM', text: unlimited });
  await expect(approval.getByRole('list', { name: 'Warnings' })).toContainText('Unlimited approval');
  await screenshotBothThemes(page, 'sign-unlimited-approval');
  await screenshotCard(page, approval, 'card-unlimited-approval');
});

test('contract interfaces, the policy editor’s signing tools and the warning thresholds', async ({ page, host }) => {
  const org = await organization(page, host);
  await openScreen(page, 'Contracts');
  const table = page.getByRole('table', { name: 'Contract interfaces' });
  await expect(table).toContainText('USD Coin');
  await expect(table).toContainText('2 functions');
  const upload = page.getByRole('form', { name: 'Upload a contract interface' });
  await upload.getByLabel('Contract address').fill('0x6b175474e89094c44da98b954eedeac495271d0f');
  await upload.getByLabel('Label').fill('Dai');
  await upload
    .getByLabel('Or paste the JSON')
    .fill('[{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint257"}]}]');
  await expect(upload).toContainText('ABI entry 0 (function transfer) is not valid');
  await expect(upload.getByRole('button', { name: 'Upload interface' })).toBeDisabled();
  await upload.getByLabel('Or paste the JSON').fill(ERC20_JSON);
  await expect(upload.getByRole('status')).toContainText('Checks: defines 2 functions.');
  await screenshotBothThemes(page, 'contracts');
  await upload.getByRole('button', { name: 'Upload interface' }).click();
  await expect(table).toContainText('Dai');
  await table.getByRole('button', { name: 'View Dai' }).click();
  await expect(page.getByRole('dialog', { name: 'Dai (Ethereum ABI)' })).toContainText('"transfer"');
  await screenshotBothThemes(page, 'contract-view');
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

  // A token off the known list reads in its units once an operator declares its symbol and decimals. An uploaded
  // interface's row starts a declaration with its address.
  const declare = page.getByRole('form', { name: 'Declare a token' });
  await table.getByRole('button', { name: 'Declare token Dai' }).click();
  await expect(declare.getByLabel('Token contract address')).toHaveValue('0x6b175474e89094c44da98b954eedeac495271d0f');
  await expect(declare.getByLabel('Symbol')).toBeFocused();
  await declare.getByLabel('Token contract address').fill(ACME_TOKEN.toLowerCase());
  await declare.getByLabel('Symbol').fill('ACME');
  await declare.getByLabel('Decimals').fill('2');
  await declare.getByRole('button', { name: 'Declare token' }).click();
  const declared = page.getByRole('table', { name: 'Declared tokens' });
  const acmeRow = declared.getByRole('row', { name: /ACME/ });
  await expect(acmeRow).toContainText('Ethereum (chain id 1)');
  // Stored checksummed, whatever the letter case typed.
  await expect(acmeRow).toContainText(ACME_TOKEN);
  await screenshotCard(page, page.getByRole('region', { name: 'Declared tokens' }), 'contracts-declared-tokens');
  await declare.getByLabel('Token contract address').fill(USDC);
  await declare.getByLabel('Symbol').fill('USDX');
  await declare.getByLabel('Decimals').fill('18');
  await declare.getByRole('button', { name: 'Declare token' }).click();
  await expect(page.getByRole('region', { name: 'Declared tokens' })).toContainText(
    'is USDC on the known token list (6 decimals); it needs no declaration',
  );
  await expect(declared.getByRole('row')).toHaveCount(2);
  const acmeTransfer = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 2,
    to: ACME_TOKEN,
    data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [PAYROLL, 123_456n] }),
    gas: 60_000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
  });
  const acmeCard = await preview(page, { kind: 'Transaction', account: org.ethereum, chain: 'TRANSACTION_TYPE_ETHEREUM', text: acmeTransfer });
  await expect(acmeCard).toContainText('Transfer 1,234.56 ACME to Acme payroll on Ethereum');
  await expect(acmeCard.getByRole('list', { name: 'Call', exact: true })).toContainText('1,234.56 ACME · raw 123456 · declared by an operator');

  await openScreen(page, 'Policies');
  await page.getByRole('button', { name: 'New policy' }).click();
  const condition = page.getByLabel('Condition', { exact: true });
  await condition.fill('eth.tx.fu');
  const completions = page.getByRole('group', { name: 'Completions for Condition' });
  await expect(completions.getByRole('button')).toHaveText(['function_name', 'function_signature']);
  await completions.getByRole('button', { name: 'function_name' }).click();
  await expect(condition).toHaveValue('eth.tx.function_name');
  await page.getByText('Start from a template').click();
  const template = page.getByRole('form', { name: 'Above an amount needs two of a tag' });
  await template.getByLabel('Above (ETH)').fill('10');
  // The approver tag is picked by name from the organization's tags, never typed as an id.
  await template.getByLabel('Approver tag').selectOption({ label: 'ops' });
  await template.getByRole('button').click();
  await expect(condition).toHaveValue("activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value > 10000000000000000000");
  await expect(page.getByRole('textbox', { name: 'Notes' })).toHaveValue(
    'Transactions moving more than 10 ETH are signed once two approvers tagged ops agree.',
  );
  await screenshotBothThemes(page, 'policy-editor-signing');
  await page.getByRole('button', { name: 'Cancel' }).click();

  const dryRun = page.getByRole('form', { name: 'Dry run a signing request' });
  await dryRun.getByLabel('Account').selectOption(org.ethereum);
  await dryRun.getByRole('textbox', { name: 'Unsigned transaction' }).fill(
    serializeTransaction({
      type: 'eip1559',
      chainId: 1,
      nonce: 1,
      to: USDC,
      data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [PAYROLL, 5n] }),
      gas: 60_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    }),
  );
  await dryRun.getByRole('button', { name: 'Dry run' }).click();
  const verdicts = page.getByRole('table', { name: 'Dry run verdicts' });
  // The root, who is not tagged ops, is looking: the small-transfer policy matches but needs an ops approver, and
  // the root quorum (the root alone) allows it anyway. The request reads as its card does.
  await expect(verdicts.getByRole('row', { name: /ops transfer up to 1000 USDC/ })).toContainText('matches; needs more approvals');
  const dryRunCard = page.getByRole('region', { name: 'Dry run' }).getByRole('article');
  await expect(dryRunCard).toContainText('Transfer 0.000005 USDC to Acme payroll on Ethereum');
  await expect(dryRunCard.getByRole('region', { name: 'Where the policies stand' })).toContainText('allowed');
  await expect(verdicts.getByRole('row', { name: /two ops above 1000 USDC/ })).toContainText('does not apply');
  await screenshotBothThemes(page, 'policy-dry-run');

  await openScreen(page, 'Settings');
  const thresholds = page.getByRole('form', { name: 'Value thresholds' });
  await thresholds.getByLabel('Warn above (ETH)').fill('1.5');
  await thresholds.getByRole('button', { name: 'Set thresholds' }).click();
  await expect.poll(async () => (await host.handlers['app.getSettings']({})).warnAbove).toEqual({ ETH: '1.5' });
  await screenshotBothThemes(page, 'settings-signing-warnings');
});

test('a Safe transaction running a MultiSend batch: each call a row, the DELEGATECALL to MultiSend not flagged', async ({ page, host }) => {
  // Only a signer is needed: no operators, policies or uploads.
  await startSandbox(page, host);
  const root = new ApiClient({ profile: (await host.services.profiles.getActive())!, stamper: new Stamper(host.services.keychain) });
  const { addresses } = await done(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  const safe = getAddress('0x5afe5afe5afe5afe5afe5afe5afe5afe5afe5afe');
  const multiSendCallOnly = getAddress('0x9641d764fc13c8b624c04430c7356c1c7c8102e2');
  const batch = encodeMultiSendData([
    { to: USDC, value: '0', data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [PAYROLL, 2_500_000_000n] }), operation: 0 },
    { to: PAYROLL, value: '250000000000000000', data: '0x', operation: 0 },
    { to: ACME_TOKEN, value: '0', data: encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [PAYROLL, maxUint256] }), operation: 0 },
  ]) as Hex;
  const safeAbi = parseAbi([
    'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool success)',
    'function multiSend(bytes transactions) payable',
  ]);
  const multiSend = encodeFunctionData({ abi: safeAbi, functionName: 'multiSend', args: [batch] });
  const execTransaction = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 21,
    to: safe,
    data: encodeFunctionData({
      abi: safeAbi,
      functionName: 'execTransaction',
      args: [multiSendCallOnly, 0n, multiSend, 1, 0n, 0n, 0n, zeroAddress, zeroAddress, `0x${'11'.repeat(65)}`],
    }),
    gas: 400_000n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  const card = await preview(page, { kind: 'Transaction', account: addresses[0]!, chain: 'TRANSACTION_TYPE_ETHEREUM', text: execTransaction });
  await expect(card).toContainText('Safe execTransaction');
  await expect(card).toContainText('Safe MultiSendCallOnly 1.4.1');
  await expect(card).toContainText('MultiSend batch of 3 calls');
  const rows = card
    .getByRole('list', { name: 'call', exact: true })
    .getByRole('listitem')
    .filter({ hasText: /^call \d/ });
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('2,500 USDC');
  await expect(rows.nth(1)).toContainText('0.25 ETH');
  await expect(rows.nth(2)).toContainText('token unknown: decimals unknown');
  await expect(card.getByRole('list', { name: 'Warnings' })).toContainText('Unlimited approval');
  await expect(card.getByRole('list', { name: 'Warnings' })).not.toContainText('Safe DELEGATECALL');
  await screenshotCard(page, card, 'card-safe-multisend');
});

test('a Uniswap swap: the approval card reads it by the registry’s Uniswap descriptor, the decoded call beside it', async ({ page, host }) => {
  // The organization's setup, a proposal and the second operator's card against the Sandbox.
  test.setTimeout(180_000);
  const org = await organization(page, host);
  // No ABI is uploaded for the router: what the card says about the swap comes from the shipped descriptor alone.
  const root = new ApiClient({ profile: (await host.services.profiles.getActive())!, stamper: new Stamper(host.services.keychain) });
  await done(
    root.submit('create_policy', {
      policyName: 'two approvers for Uniswap swaps',
      effect: 'EFFECT_ALLOW',
      condition: `activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '${UNISWAP_ROUTER}'`,
      consensus: 'approvers.count() >= 2',
      notes: '',
    }),
  );
  await switchProfile(page, host, org.profiles.a, 'Operator A');
  const described = "described by the registry's uniswap descriptor calldata-UniswapV3Router02.json";
  const card = await preview(page, { kind: 'Transaction', account: org.ethereum, chain: 'TRANSACTION_TYPE_ETHEREUM', text: UNISWAP_SWAP });
  await expect(card).toContainText(described);
  await submit(page);

  const detail = await openPending(page, host, org, 'Sign an Ethereum transaction');
  const signing = detail.getByRole('article');
  await expect(signing).toContainText(described);
  const reading = signing.getByRole('list', { name: 'Registry reading', exact: true });
  await expect(reading).toContainText('Uniswap Labs');
  await expect(reading).toContainText('0.006471375668623977 WETH');
  await expect(reading).toContainText('13.901216 USDT');
  await expect(reading).toContainText('0.3%');
  // Only the registry read the call: its intent and owner title it, and a note says so where "cannot be read" stood.
  await expect(signing.getByText(`Swap on Uniswap Labs’ contract ${UNISWAP_ROUTER} on Ethereum`, { exact: true })).toBeVisible();
  await expect(signing).toContainText(
    `No ABI uploaded for ${UNISWAP_ROUTER}; read by the registry's uniswap descriptor calldata-UniswapV3Router02.json; the raw call data is below`,
  );
  await expect(signing).not.toContainText('Unknown contract');
  await expect(signing).not.toContainText('cannot be read');
  // The raw facts stay: the router as an unknown contract, the call by its selector, the call data.
  await expect(signing).toContainText(UNISWAP_ROUTER);
  await expect(signing).toContainText('0x04e45aaf');
  await expect(detail.getByRole('region', { name: 'Where the policies stand' })).toContainText('two approvers for Uniswap swaps');
  await screenshotCard(page, signing, 'card-uniswap-swap');
});
