/**
 * Issue 35, items 6 and 8: what an operator saw on screen. The submitter's own one-time export is named as this
 * desktop's key on main's confirmation and in the History; an approval row is as tall as what it shows; the "Approved:
 * your export" notice can be dismissed; the policy templates say that the proposer's approval counts and that an
 * empty condition allows every activity; a lint caret sits under its column on a wrapped line; an inbox error leads
 * with a sentence and keeps its code to a line of its own.
 */
import type { Page } from '@playwright/test';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import type { E2eHost } from '../support/e2e-host';
import { expectCaretsUnder } from './caret';
import { done, expect, openScreen, screenshotBothThemes, startSandbox, test } from './fixtures';

/** The Sandbox with wallet Treasury under a 2-of-2 root quorum (the root user and Bea), and Bea's profile active. */
async function treasuryForTwo(page: Page, host: E2eHost): Promise<ApiClient> {
  const { organizationId, enclaveSignerPublicKey, baseUrl } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain), now: host.services.now });
  const key = await host.services.keychain.generateApiKey({ name: 'Bea', curve: 'p256' });
  const { userIds } = await done(
    root.submit('create_users', {
      users: [
        {
          userName: 'Bea',
          apiKeys: [{ apiKeyName: 'Bea', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    }),
  );
  await done(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  const { userId: rootUserId } = await root.query('whoami', {});
  await done(root.submit('update_root_quorum', { threshold: 2, userIds: [rootUserId, userIds[0]!] }));
  const bea = await host.services.profiles.add({ name: 'Bea', kind: 'hosted', baseUrl, organizationId, apiKeyName: 'Bea', enclaveSignerPublicKey });
  await host.services.profiles.setActive(bea.id);
  await page.reload();
  await expect(page.getByText('Profile: Bea')).toBeVisible();
  return root;
}

test('the own one-time export: named as this desktop’s key, its row measured, its approval notice dismissed', async ({ page, host }) => {
  const root = await treasuryForTwo(page, host);
  await openScreen(page, 'Wallets');
  await page.getByRole('article', { name: 'Wallet Treasury' }).getByRole('button', { name: 'Export Treasury…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export wallet Treasury' });
  await dialog.getByRole('button', { name: 'Export and reveal' }).click();
  await expect(dialog.getByRole('status', { name: 'Waiting for votes' })).toContainText('exporting wallet Treasury');
  const asked = host.confirmations.at(-1)!;
  expect(asked.title).toBe('Submit: Export a wallet?');
  expect(asked.detail).toMatch(/Sealed to: a one-time key this desktop made for it \(sha256:[0-9a-f]{64}\)/);
  expect(asked.detail).not.toContain('does not hold');
  await screenshotBothThemes(page, 'own-export-asked');
  await dialog.getByRole('button', { name: 'Close' }).click();

  // The queue's row is as tall as what it shows, however the first estimate guessed.
  await openScreen(page, 'Approvals');
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem');
  await expect(row).toContainText('Export a wallet');
  const heights = await row.evaluate((item) => {
    const button = item.querySelector('button')!;
    const style = getComputedStyle(button);
    const lines = Array.from(button.querySelector('.approval-row-main')!.children).reduce(
      (sum, line) => sum + line.getBoundingClientRect().height,
      0,
    );
    const chrome = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth'] as const;
    return { row: item.getBoundingClientRect().height, content: lines + chrome.reduce((sum, side) => sum + parseFloat(style[side]), 0) };
  });
  expect(Math.abs(heights.row - heights.content)).toBeLessThan(1);

  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('list', { name: 'Activity history' }).getByRole('listitem').filter({ hasText: 'Export a wallet' });
  await expect(history).toContainText('Treasury to the one-time key this desktop holds for it');
  await expect(history).not.toContainText('warning');
  await history.getByRole('button').click();
  const detail = page.getByRole('region', { name: 'Export a wallet', exact: true });
  await expect(detail).toContainText('this desktop’s export key the one-time key this desktop holds for it');
  await expect(detail.getByText('unknown key')).toHaveCount(0);
  await screenshotBothThemes(page, 'own-export-history');

  // The root user approves; main tells Bea on every screen until she dismisses it. Main's watch looks first, so that
  // the approval is news to it.
  await host.services.activityWatch.check();
  const [waiting] = await host.handlers['exports.requests']({});
  const { activity } = await root.query('get_activity', { activityId: waiting!.activityId });
  expect((await root.submit('approve_activity', { fingerprint: activity.fingerprint })).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  await host.services.activityWatch.check();
  const notice = page.getByRole('status', { name: 'Approved exports' });
  await expect(notice).toContainText('Approved: your export of wallet Treasury.');
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);
  await openScreen(page, 'Users');
  await expect(page.getByRole('status', { name: 'Approved exports' })).toHaveCount(0);
  // Still where it opens.
  await openScreen(page, 'Wallets');
  await expect(page.getByRole('table', { name: 'Exports you asked for' }).getByRole('row', { name: /wallet Treasury/ })).toContainText('approved');
});

test('templates say the proposer’s approval counts and warn of an empty condition; a caret sits under its column on a wrapped line', async ({
  page,
  host,
}) => {
  await startSandbox(page, host);
  await openScreen(page, 'Policies');
  await page.getByRole('button', { name: 'New policy' }).click();
  const panel = page.getByRole('region', { name: 'New policy' });
  const editor = panel.getByRole('form', { name: 'New policy' });
  await panel.getByText('Start from a template').click();
  await expect(panel.getByRole('button', { name: /^Use “any 2 of these users”/ })).toHaveAccessibleDescription(
    'With no condition, this allows every activity once any 2 of the chosen users approve, the proposer’s own approval among them. Narrow the condition in the editor after using it.',
  );
  const another = panel.getByRole('button', { name: 'Use “one approver other than the proposer”' });
  await expect(another).toHaveAccessibleDescription(
    'With no condition, this allows every activity once one user other than the proposer approves. Narrow the condition in the editor after using it.',
  );
  await screenshotBothThemes(page, 'policy-templates-proposer', another);
  await another.click();
  await expect(editor.getByLabel('Name')).toHaveValue('One approver other than the proposer');
  await expect(editor.getByLabel('Consensus')).toHaveValue('approvers.count() >= 2');
  await expect(editor.getByLabel('Notes')).toHaveValue(/once one user other than the proposer approves/);

  // A condition one line long that wraps in a narrow window: the caret is under "idd" on the row it wrapped to.
  await page.setViewportSize({ width: 900, height: 900 });
  const line = `${Array.from({ length: 5 }, () => "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'").join(' || ')} && wallet.idd == 'w-1'`;
  await editor.getByLabel('Condition', { exact: true }).fill(line);
  const error = editor.getByRole('alert');
  await expect(error).toContainText("Wallet has no field 'idd'");
  const display = error.locator('pre');
  expect(
    await display.evaluate((element) => element.getBoundingClientRect().height / parseFloat(getComputedStyle(element).lineHeight)),
  ).toBeGreaterThan(1.5);
  await expectCaretsUnder(display, line, '^^^');
  await screenshotBothThemes(page, 'policy-caret-wrapped', display);
});

test('an inbox that cannot reach a profile’s service leads with a sentence; the code is a line of its own', async ({ page, host }) => {
  const { organizationId, enclaveSignerPublicKey } = await startSandbox(page, host);
  await host.services.keychain.generateApiKey({ name: 'Far', curve: 'p256' });
  // Nothing listens on port 9 of this machine.
  await host.services.profiles.add({
    name: 'Far away',
    kind: 'hosted',
    baseUrl: 'http://127.0.0.1:9',
    organizationId,
    apiKeyName: 'Far',
    enclaveSignerPublicKey,
  });
  await openScreen(page, 'Approvals');
  await page.getByRole('button', { name: 'All profiles' }).click();
  const notice = page.getByRole('region', { name: 'All profiles' }).getByRole('alert');
  await expect(notice).toBeVisible({ timeout: 20_000 });
  const lines = notice.locator('p');
  await expect(lines.first()).toHaveText('Looking at Far away: The service could not be reached.');
  await expect(lines.nth(2)).toContainText(/^QuorumKey looks again at .+, and keeps what it last saw meanwhile\.$/);
  await expect(lines.last()).toHaveText('Code NETWORK_ERROR');
  await screenshotBothThemes(page, 'inbox-unreachable', notice);
});

test('the delete-user dialog states main’s refusal rather than offer a vote main would refuse', async ({ page, host }) => {
  await startSandbox(page, host);
  await openScreen(page, 'Users');
  const asked = host.confirmations.length;
  await page.getByRole('button', { name: 'Delete Root user' }).click();
  const refusal = page.getByRole('dialog', { name: 'User Root user cannot be deleted from here' });
  await expect(refusal).toContainText(
    'QuorumKey refuses to submit this deletion: it deletes Root user, the user profile "Sandbox" signs as. Nothing would be stamped or sent',
  );
  await expect(refusal.getByRole('button', { name: 'Delete user' })).toHaveCount(0);
  await screenshotBothThemes(page, 'delete-user-refused');
  await refusal.getByRole('button', { name: 'Close' }).click();
  expect(host.confirmations.length).toBe(asked);
});
