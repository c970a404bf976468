/**
 * Look-alike addresses through the UI, on the real handlers and the real Sandbox: an operator names an address in the
 * address book; a request paying an address with the same first and last 4 characters shows, on the card, both
 * addresses side by side with the differing characters marked; submitting it takes main's usual confirmation and then
 * a second one ("I checked: this is not Payroll", Cancel by default), and declining that second one stamps nothing.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { getAddress, parseEther, serializeTransaction } from 'viem';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import type { E2eHost } from '../support/e2e-host';
import { SCREENS_DIR, done, test, expect, screenshotBothThemes, startSandbox } from './fixtures';

const PAYROLL = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
/**
 * Payroll's first and last 4 hex digits around another middle, every digit of it different (each shifted by 8): what
 * an address-poisoning attacker plants.
 */
const POISONED = getAddress(
  `0x${PAYROLL.slice(2, 6)}${[...PAYROLL.slice(6, 38).toLowerCase()].map((digit) => ((parseInt(digit, 16) + 8) % 16).toString(16)).join('')}${PAYROLL.slice(-4)}`,
);

async function openScreen(page: Page, label: 'Address book' | 'Sign'): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: label, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: label, exact: true })).toBeVisible();
}

/** The Sandbox's root user with a Treasury wallet; answers its Ethereum address. */
async function treasury(page: Page, host: E2eHost): Promise<string> {
  await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
  const { addresses } = await done(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  return addresses[0]!;
}

/** One ETH to `to` on Ethereum, unsigned. */
const payment = (to: `0x${string}`) =>
  serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 3,
    to,
    value: parseEther('1'),
    gas: 21_000n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });

async function preview(page: Page, account: string, unsigned: string): Promise<Locator> {
  await openScreen(page, 'Sign');
  const form = page.getByRole('form', { name: 'Signing request' });
  await form.getByRole('button', { name: 'Transaction', exact: true }).click();
  await form.getByLabel('Account').selectOption(account);
  await form.getByLabel('Chain').selectOption('TRANSACTION_TYPE_ETHEREUM');
  await form.getByRole('textbox', { name: 'Unsigned transaction' }).fill(unsigned);
  await form.getByRole('button', { name: 'Check what it signs' }).click();
  const card = page.getByRole('region', { name: 'Before you submit' }).getByRole('article');
  await expect(card).toBeVisible();
  return card;
}

/** The card alone, in both themes. */
async function screenshotCard(page: Page, card: Locator, name: string): Promise<void> {
  await mkdir(SCREENS_DIR, { recursive: true });
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await card.screenshot({ path: join(SCREENS_DIR, `${name}-${theme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** An address as text surfaces mark it here: the middle between the shared first and last 4 hex digits in brackets. */
const marked = (address: string) => `${address.slice(0, 6)}[${address.slice(6, 38)}]${address.slice(38)}`;

const signingActivities = (host: E2eHost) => host.handlers['activities.list']({ type: ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2'] });

test('a look-alike of an address book entry: side by side on the card, and a second question that stamps nothing when declined', async ({
  page,
  host,
}) => {
  // Two cards, two confirmations' readings and a submission against the Sandbox.
  test.setTimeout(240_000);
  const account = await treasury(page, host);

  await openScreen(page, 'Address book');
  const add = page.getByRole('form', { name: 'Name an address' });
  await add.getByLabel('Address').fill(PAYROLL.toLowerCase());
  await add.getByLabel('Name').fill('Payroll');
  await add.getByRole('button', { name: 'Add to the address book' }).click();
  const table = page.getByRole('table', { name: 'Named addresses' });
  await expect(table.getByRole('row', { name: /Payroll/ })).toContainText(PAYROLL);
  await expect(table).toContainText('Ethereum (chain id 1)');
  // The same address again is refused, naming the entry that holds it.
  await add.getByLabel('Address').fill(PAYROLL);
  await add.getByLabel('Name').fill('Salaries');
  await add.getByRole('button', { name: 'Add to the address book' }).click();
  await expect(page.getByRole('alert')).toContainText(`${PAYROLL} on chain id 1 is already in the address book as “Payroll”`);
  await screenshotBothThemes(page, 'address-book');

  // The named address reads by its name on the card, with no look-alike warning.
  const named = await preview(page, account, payment(PAYROLL));
  await expect(named).toContainText('Payroll');
  await expect(named).not.toContainText('Look-alike');

  const card = await preview(page, account, payment(POISONED));
  const warning = card.getByRole('list', { name: 'Warnings' }).getByRole('listitem').first();
  await expect(warning).toContainText('Look-alike address');
  const sideBySide = warning.getByRole('definition');
  await expect(sideBySide).toHaveText([POISONED, PAYROLL]);
  // Both show the middle as differing, and only the middle: the first and last 4 hex digits are the same.
  await expect(sideBySide.nth(0).locator('mark')).toHaveText([POISONED.slice(6, 38)]);
  await expect(sideBySide.nth(1).locator('mark')).toHaveText([PAYROLL.slice(6, 38)]);
  await expect(warning.getByRole('term')).toHaveText(['In this request', 'Payroll']);
  await screenshotCard(page, card, 'card-look-alike');

  host.answerConfirmations('wait');
  await page.getByRole('button', { name: 'Submit for signing' }).click();
  const first = await host.nextConfirmation();
  expect(first.goAhead).toBe('Continue');
  expect(first.text).toContain(`${marked(POISONED)} is not “Payroll” (${marked(PAYROLL)})`);
  first.answer(true);
  const second = await host.nextConfirmation();
  expect(second.goAhead).toBe('I checked: this is not Payroll');
  expect(second.request.title).toBe('Look-alike address: is this really not “Payroll”?');
  expect(second.text).toContain(`In this request:  ${marked(POISONED)}`);
  expect(second.text).toContain(`“Payroll”:  ${marked(PAYROLL)}`);
  await screenshotBothThemes(page, 'look-alike-second-question');
  // The person stops at the last click: nothing is stamped or sent.
  second.answer(false);
  await expect(page.getByRole('alert')).toContainText("declined in QuorumKey's confirmation; nothing was stamped or sent");
  expect(await signingActivities(host)).toEqual([]);

  // Going ahead on both questions submits it.
  await page.getByRole('button', { name: 'Submit for signing' }).click();
  (await host.nextConfirmation()).answer(true);
  (await host.nextConfirmation()).answer(true);
  await expect.poll(async () => (await signingActivities(host)).length).toBe(1);
});
