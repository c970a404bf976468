/**
 * An export that needs a second operator's vote: Bea asks for it from the window, sealed to a one-time key main keeps
 * in the keychain; the root user approves it from another profile; main tells Bea, and she opens it.
 */
import { validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { done, expect, openScreen, screenshotBothThemes, startSandbox, test } from './fixtures';

test('an export approved by the second operator is then opened by the requester with the one-time key kept for it', async ({ page, host }) => {
  const { organizationId, enclaveSignerPublicKey, baseUrl } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
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
  const { walletId } = await done(
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

  // Bea asks, from the window, for the default target: a one-time key.
  await openScreen(page, 'Wallets');
  const card = page.getByRole('article', { name: 'Wallet Treasury' });
  await card.getByRole('button', { name: 'Export Treasury…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export wallet Treasury' });
  await dialog.getByRole('button', { name: 'Export and reveal' }).click();
  const waiting = dialog.getByRole('status', { name: 'Waiting for votes' });
  await expect(waiting).toContainText('exporting wallet Treasury');
  await expect(waiting).toContainText('sealed to a one-time key that this desktop’s keychain keeps until you open the export');
  expect(host.confirmations.at(-1)?.title).toBe('Submit: Export a wallet?');
  const [held] = await host.services.keychain.listOneTimeKeys();
  expect(held).toBeDefined();
  await screenshotBothThemes(page, 'export-waiting');
  await dialog.getByRole('button', { name: 'Close' }).click();

  const requests = page.getByRole('table', { name: 'Exports you asked for' });
  const row = requests.getByRole('row', { name: /wallet Treasury/ });
  await expect(row).toContainText('a one-time key held in this desktop’s keychain');
  await expect(row).toContainText('waiting for votes');
  // Not exported until the votes are in.
  await expect(card.getByText('exported', { exact: true })).toHaveCount(0);
  await host.services.activityWatch.check();

  // The root user, the second operator, approves from their own profile.
  const { activity } = await root.query('get_activity', { activityId: held!.activityId });
  const approved = await root.submit('approve_activity', { fingerprint: activity.fingerprint });
  expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  await openScreen(page, 'Approvals');
  // Main's watch sees it decided and tells the requester, on whatever screen she is.
  await host.services.activityWatch.check();
  const notice = page.getByRole('status', { name: 'Approved exports' });
  await expect(notice).toContainText('Approved: your export of wallet Treasury.');
  await screenshotBothThemes(page, 'export-approved-notice');
  await notice.getByRole('button', { name: 'Open it on Wallets' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Wallets' })).toBeVisible();
  await expect(row).toContainText('approved');
  await expect(card.getByText('exported', { exact: true })).toBeVisible();
  await row.getByRole('button', { name: 'Open the export of wallet Treasury' }).click();
  const secret = page.getByRole('dialog', { name: 'The exported wallet Treasury' });
  const words = secret.getByRole('list', { name: 'Mnemonic words' }).locator('code');
  await expect(words).toHaveCount(12);
  await secret.getByRole('button', { name: 'Hold or click to reveal' }).click();
  await expect(words.first()).not.toHaveText('•••••');
  expect(validateMnemonic((await words.allInnerTexts()).join(' '), english)).toBe(true);
  await screenshotBothThemes(page, 'export-opened');

  // Opened: the one-time key is gone from the keychain, and so is the request.
  expect(await host.services.keychain.listOneTimeKeys()).toEqual([]);
  await secret.getByRole('button', { name: 'Hide and forget' }).click();
  await expect(page.getByRole('region', { name: 'Exports you asked for' })).toHaveCount(0);
  expect((await root.query('get_wallet', { walletId })).wallet.exported).toBe(true);
});
