import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';
import { expectCaretsUnder } from './caret';

const TOKEN = '0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7';
const ERC20 = [
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
];

test('the editor shows a lint warning at its position before saving, blocks on a lint error, and saves with a warning', async ({ page, host }) => {
  await startSandbox(page, host);
  const uploaded = await host.handlers['contracts.create']({
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
    address: TOKEN,
    label: 'USDC',
    definition: JSON.stringify(ERC20),
    chainId: 1,
  });
  expect(uploaded.state).toBe('completed');
  await openScreen(page, 'Policies');
  await page.getByRole('button', { name: 'New policy' }).click();

  const editor = page.getByRole('form', { name: 'New policy' });
  await editor.getByLabel('Name').fill('small USDC transfers');
  await editor.getByLabel('Consensus').fill('approvers.count() >= 1');
  const condition = editor.getByLabel('Condition');
  const create = editor.getByRole('button', { name: 'Create policy' });

  // Not an address at all: an error, which blocks saving.
  await condition.fill(`eth.tx.to == '0x1234' && eth.tx.contract_call_args['amount'] <= 1000000000`);
  const findings = editor.getByRole('list', { name: 'Lint findings' });
  await expect(findings).toContainText(
    "Error, line 1, column 14: '0x1234' is not an Ethereum address (0x and 40 hex digits), so eth.tx.to never equals it.",
  );
  await expect(condition).toHaveAttribute('aria-invalid', 'true');
  await expect(create).toBeDisabled();

  // The amout typo: a warning under the key, with the nearest name the uploaded ABI has; saving stays possible.
  const typo = `eth.tx.to == '${TOKEN}' &&\n  eth.tx.contract_call_args['amout'] <= 1000000000`;
  await condition.fill(typo);
  await expect(findings.getByRole('listitem')).toHaveCount(1);
  await expect(findings).toContainText("Warning, line 2, column 29: No uploaded ABI has an argument named 'amout' (did you mean 'amount'?)");
  await expectCaretsUnder(findings.locator('pre'), "  eth.tx.contract_call_args['amout'] <= 1000000000", '^^^^^^^');
  await expect(editor.getByText('Checks, with 1 warning below.')).toBeVisible();
  await expect(condition).toHaveAttribute('aria-invalid', 'false');
  await screenshotBothThemes(page, 'policy-lint-warning');

  await expect(create).toBeEnabled();
  await create.click();
  await expect(page.getByRole('table', { name: 'Policies' }).getByRole('row', { name: /small USDC transfers/ })).toBeVisible();
  const [stored] = await host.handlers['policies.list']({});
  expect(stored?.condition).toBe(typo);
});
