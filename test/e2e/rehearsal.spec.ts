/**
 * Seeing a policy change's effect before saving it, on the real handlers and the real Sandbox. The root sets up two
 * operators tagged ops, a wallet, the USD Coin ABI and two policies: one ops approver for USDC transfers up to 1,000,
 * two ops for any USDC transfer. Lowering the limit to 100 USDC lists Operator A's two past transfers (500 and 250
 * USDC, allowed on A's vote alone) as now waiting for more approvals, and the dry run of a third transfer says who must
 * still approve. Raising it to 500,000 USDC, once the root quorum is the two operators, lists a 250,000 USDC transfer
 * that needed both operators' votes as now needing one. The replay reproduces every recorded outcome, the root's setup
 * included, and names the tag where the consensus field holds its id. Nothing is saved.
 */
import { encodeFunctionData, getAddress, parseAbi, serializeTransaction } from 'viem';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import type { Page } from '@playwright/test';
import type { E2eHost } from '../support/e2e-host';
import { createKeyedUsers, done, expect, openScreen, screenshotBothThemes, startSandbox, test } from './fixtures';

const USDC = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const PAYEE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
const ERC20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);
const ERC20_JSON = JSON.stringify([
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
]);
/** USDC has 6 decimals. */
const usdc = (units: bigint) => units * 1_000_000n;

function usdcTransfer(nonce: number, units: bigint): string {
  const data = encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [PAYEE, usdc(units)] });
  return serializeTransaction({ type: 'eip1559', chainId: 1, nonce, to: USDC, data, gas: 60_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n });
}

/** The root's setup: two operators tagged ops, the Treasury wallet, the USD Coin ABI and the two policies. */
async function setUp(page: Page, host: E2eHost) {
  const { organizationId, enclaveSignerPublicKey, baseUrl } = await startSandbox(page, host);
  const stamper = new Stamper(host.services.keychain);
  const root = new ApiClient({ profile: (await host.services.profiles.getActive())!, stamper });
  const userIds = await createKeyedUsers(host, root, ['Operator A', 'Operator B']);
  const { userTagId } = await done(root.submit('create_user_tag', { userTagName: 'ops', userIds }));
  const { addresses } = await done(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  const account = addresses[0]!;
  await done(
    root.submit('create_smart_contract_interface', {
      smartContractAddress: USDC,
      smartContractInterface: ERC20_JSON,
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label: 'USD Coin',
    }),
  );
  const ops = `user.tags.contains('${userTagId}')`;
  const transfer = `activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer'`;
  const limited = `${transfer} && eth.tx.contract_call_args['amount'] <= ${usdc(1_000n)}`;
  await done(
    root.submit('create_policy', {
      policyName: 'one ops up to 1000 USDC',
      effect: 'EFFECT_ALLOW',
      condition: limited,
      consensus: `approvers.any(user, ${ops})`,
      notes: '',
    }),
  );
  await done(
    root.submit('create_policy', {
      policyName: 'two ops for USDC',
      effect: 'EFFECT_ALLOW',
      condition: transfer,
      consensus: `approvers.filter(user, ${ops}).count() >= 2`,
      notes: '',
    }),
  );

  const asOperator = async (name: 'Operator A' | 'Operator B') => {
    const profile = await host.services.profiles.add({ name, kind: 'hosted', baseUrl, organizationId, apiKeyName: name, enclaveSignerPublicKey });
    return { profile, client: new ApiClient({ profile, stamper }) };
  };
  return { root, userIds, account, limited, asOperator };
}

test('lowering a transfer limit shows the two past transfers that would now wait for more votes, and who must approve, before saving', async ({
  page,
  host,
}) => {
  // The setup submits eight activities, and the history holds the service's decisions on each of them.
  test.setTimeout(180_000);
  const { root, account, limited, asOperator } = await setUp(page, host);
  // Operator A's history: two transfers the first policy allowed with A's approval alone.
  const { profile: operatorA, client: asOperatorA } = await asOperator('Operator A');
  for (const [nonce, units] of [
    [0, 500n],
    [1, 250n],
  ] as const) {
    await done(
      asOperatorA.submit('sign_transaction', {
        signWith: account,
        unsignedTransaction: usdcTransfer(nonce, units),
        type: 'TRANSACTION_TYPE_ETHEREUM',
      }),
    );
  }

  await host.services.profiles.setActive(operatorA.id);
  await page.reload();
  await expect(page.getByText('Profile: Operator A')).toBeVisible();
  await openScreen(page, 'Policies');
  await page.getByRole('table', { name: 'Policies' }).getByRole('button', { name: 'Edit one ops up to 1000 USDC' }).click();
  const editor = page.getByRole('form', { name: 'Edit policy one ops up to 1000 USDC' });
  await editor.getByLabel('Condition', { exact: true }).fill(limited.replace(`<= ${usdc(1_000n)}`, `<= ${usdc(100n)}`));

  const rehearsal = page.getByRole('region', { name: 'Rehearse against history' });
  await rehearsal.getByRole('button', { name: 'Rehearse against history' }).click();
  const result = rehearsal.getByLabel('Rehearsal result');
  // The replay reads every activity's recorded evaluations first, one request each.
  await expect(result).toContainText('Outcomes that change (2)', { timeout: 60_000 });
  const changes = result.getByRole('list', { name: 'Changed outcomes' }).getByRole('listitem');
  await expect(changes).toHaveCount(2);
  // Newest first, each in its one-line reading.
  await expect(changes.nth(0)).toContainText('Transfer 250 USDC to');
  await expect(changes.nth(1)).toContainText('Transfer 500 USDC to');
  for (const change of await changes.all()) {
    await expect(change).toContainText("was allowed on the proposer's vote alone, would now wait for approvals beyond the proposer's");
    await expect(change).toContainText('(by one ops up to 1000 USDC)');
  }
  await expect(result).toContainText('0 allowed → denied, 0 denied → allowed, 2 now need consensus, 0 no longer need it');
  await expect(result).not.toContainText('Not reproduced');

  // The same draft, on a third transfer: who must approve, as its approval card would say.
  const dryRun = page.getByRole('form', { name: 'Dry run a signing request' });
  await dryRun.getByLabel('Account').selectOption(account);
  await dryRun.getByRole('textbox', { name: 'Unsigned transaction' }).fill(usdcTransfer(2, 300n));
  await dryRun.getByRole('button', { name: 'Dry run' }).click();
  const card = page.getByRole('region', { name: 'Dry run' }).getByRole('article');
  // The dry run reads the organization and decides on a worker, as the rehearsal does.
  await expect(card).toContainText('300 USDC', { timeout: 60_000 });
  const standing = card.getByRole('region', { name: 'Where the policies stand' });
  await expect(standing).toContainText('needs more approvals');
  await expect(standing).toContainText('Needs 1 more approver tagged ops (policy "two ops for USDC")');
  await expect(page.getByRole('table', { name: 'Dry run verdicts' }).getByRole('row', { name: /one ops up to 1000 USDC/ })).toContainText(
    'does not apply',
  );
  await expect(page.getByRole('region', { name: 'Dry run' }).getByRole('list', { name: 'Still to vote' })).toContainText('Operator B');

  const viewport = page.viewportSize()!;
  await page.setViewportSize({ width: viewport.width, height: 2400 });
  await screenshotBothThemes(page, 'policy-rehearsal');
  await page.setViewportSize(viewport);

  // Nothing was saved: the service still holds the 1,000 USDC limit.
  const { policies } = await root.query('list_policies', {});
  expect(policies.find((policy) => policy.policyName === 'one ops up to 1000 USDC')?.condition).toBe(limited);
});

test('raising the limit shows a transfer that needed both operators now needing one, with the tag named in the consensus field', async ({
  page,
  host,
}) => {
  test.setTimeout(180_000);
  const { root, userIds, account, limited, asOperator } = await setUp(page, host);
  // The root hands the root quorum to the operators, two of two: its own setup above stays reproducible.
  await done(root.submit('update_root_quorum', { threshold: 2, userIds }));
  const { profile: operatorA, client: asOperatorA } = await asOperator('Operator A');
  const { client: asOperatorB } = await asOperator('Operator B');
  const waiting = await asOperatorA.submit('sign_transaction', {
    signWith: account,
    unsignedTransaction: usdcTransfer(0, 250_000n),
    type: 'TRANSACTION_TYPE_ETHEREUM',
  });
  expect(waiting.state).toBe('consensus-needed');
  await done(asOperatorB.submit('approve_activity', { fingerprint: waiting.activity.fingerprint }));

  await host.services.profiles.setActive(operatorA.id);
  await page.reload();
  await expect(page.getByText('Profile: Operator A')).toBeVisible();
  await openScreen(page, 'Policies');
  await page.getByRole('table', { name: 'Policies' }).getByRole('button', { name: 'Edit one ops up to 1000 USDC' }).click();
  const editor = page.getByRole('form', { name: 'Edit policy one ops up to 1000 USDC' });
  // The consensus holds the tag's id; main reads it by name under the field.
  await expect(editor.getByText('Consensus reads as:')).toContainText('tag ops');
  await editor.getByLabel('Condition', { exact: true }).fill(limited.replace(`<= ${usdc(1_000n)}`, `<= ${usdc(500_000n)}`));

  const rehearsal = page.getByRole('region', { name: 'Rehearse against history' });
  await rehearsal.getByRole('button', { name: 'Rehearse against history' }).click();
  const result = rehearsal.getByLabel('Rehearsal result');
  // The replay reads every activity's recorded evaluations first, one request each.
  await expect(result).toContainText('Outcomes that change (1)', { timeout: 60_000 });
  const change = result.getByRole('list', { name: 'Changed outcomes' }).getByRole('listitem');
  await expect(change).toContainText('Transfer 250,000 USDC to');
  await expect(change).toContainText("needed 2 approvals, would now need 1 (the proposer's vote alone) (by one ops up to 1000 USDC)");
  await expect(result).toContainText('1 need fewer approvals');
  await expect(result).not.toContainText('Not reproduced');

  const viewport = page.viewportSize()!;
  await page.setViewportSize({ width: viewport.width, height: 2400 });
  await screenshotBothThemes(page, 'rehearsal-loosening', result);
  await page.setViewportSize(viewport);
});
