/**
 * axe-core on every screen, in both themes: no critical or serious findings, and landmarks that can be told apart.
 * The screens have content (the Sandbox, keys, a wallet, a policy, an activity waiting for votes) so tables, cards
 * and the approval card are checked, not only their empty states.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { test, expect, openScreen, startSandbox, type ScreenLabel } from './fixtures';

const SCREENS: readonly ScreenLabel[] = [
  'Profiles',
  'Wallets',
  'Approvals',
  'Users',
  'Policies',
  'Import',
  'Offline decrypt',
  'Keys',
  'Journal',
  'Settings',
];

/** Findings that fail the check: every critical and serious one, and landmarks that are not unique. */
async function findings(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === 'critical' || violation.impact === 'serious' || violation.id === 'landmark-unique')
    .map(
      (violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

test('every screen in both themes: no critical or serious accessibility findings', async ({ page, host }) => {
  test.setTimeout(120_000);
  await startSandbox(page, host);
  await host.handlers['keys.generateEncryptionKey']({ name: 'offline desk' });
  await host.handlers['wallets.create']({
    name: 'treasury',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  await host.handlers['policies.create']({
    name: 'ops may sign',
    effect: 'EFFECT_ALLOW',
    condition: "activity.resource == 'WALLET'",
    consensus: 'approvers.count() >= 1',
  });
  await page.reload();

  const problems: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    for (const screen of SCREENS) {
      await openScreen(page, screen);
      if (screen === 'Approvals') {
        await page.getByRole('button', { name: 'History' }).click();
        await page.getByRole('list', { name: 'Activity history' }).getByRole('listitem').first().getByRole('button').click();
        await expect(page.getByRole('region', { name: /Create a (wallet|policy)/ })).toBeVisible();
      }
      problems.push(...(await findings(page)).map((finding) => `${screen} (${theme}): ${finding}`));
    }
  }
  expect(problems).toEqual([]);
});
