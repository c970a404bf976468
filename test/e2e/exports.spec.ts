/**
 * An export that needs a second operator's vote: Bea asks for it from the window, sealed to a one-time key main keeps
 * in the keychain; the root user approves it from another profile; main tells Bea, and she opens it. Or Bea withdraws
 * it while it waits: its key alone while her request still counts as her approval, or with her rejection once that
 * approval expired, each confirmed on main's surface.
 */
import { validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import type { Page } from '@playwright/test';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { APPROVAL_WINDOW_MS } from '../../src/shared/approvals/voting';
import type { E2eHost } from '../support/e2e-host';
import { done, expect, openScreen, screenshotBothThemes, startSandbox, test } from './fixtures';

/**
 * The Sandbox with wallet Treasury under a 2-of-2 root quorum (the root user and Bea), and Bea's profile active in the
 * window; `root` is the root user's client, on main's clock.
 */
async function treasuryForTwo(page: Page, host: E2eHost): Promise<{ root: ApiClient; walletId: string }> {
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
  return { root, walletId };
}

/** Bea asks, from the window, for wallet Treasury sealed to the default target, a one-time key; answers its activity id. */
async function askForTreasury(page: Page, host: E2eHost, screenshot?: string): Promise<string> {
  await openScreen(page, 'Wallets');
  const before = new Set((await host.services.keychain.listOneTimeKeys()).map((key) => key.activityId));
  await page.getByRole('article', { name: 'Wallet Treasury' }).getByRole('button', { name: 'Export Treasury…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export wallet Treasury' });
  await dialog.getByRole('button', { name: 'Export and reveal' }).click();
  const waiting = dialog.getByRole('status', { name: 'Waiting for votes' });
  await expect(waiting).toContainText('exporting wallet Treasury');
  await expect(waiting).toContainText('sealed to a one-time key that this desktop’s keychain keeps until you open the export');
  expect(host.confirmations.at(-1)?.title).toBe('Submit: Export a wallet?');
  const held = (await host.services.keychain.listOneTimeKeys()).filter((key) => !before.has(key.activityId));
  expect(held).toHaveLength(1);
  if (screenshot !== undefined) await screenshotBothThemes(page, screenshot);
  await dialog.getByRole('button', { name: 'Close' }).click();
  // Listed once main has read it (and followed it, by main's clock then).
  await expect(page.getByRole('table', { name: 'Exports you asked for' }).getByRole('row', { name: /wallet Treasury/ })).toBeVisible();
  return held[0]!.activityId;
}

test('an export approved by the second operator is then opened by the requester with the one-time key kept for it', async ({ page, host }) => {
  const { root, walletId } = await treasuryForTwo(page, host);
  const heldFor = await askForTreasury(page, host, 'export-waiting');
  const card = page.getByRole('article', { name: 'Wallet Treasury' });

  const requests = page.getByRole('table', { name: 'Exports you asked for' });
  const row = requests.getByRole('row', { name: /wallet Treasury/ });
  await expect(row).toContainText('a one-time key held in this desktop’s keychain');
  await expect(row).toContainText('waiting for votes');
  // Not exported until the votes are in.
  await expect(card.getByText('exported', { exact: true })).toHaveCount(0);
  await host.services.activityWatch.check();

  // The root user, the second operator, approves from their own profile.
  const { activity } = await root.query('get_activity', { activityId: heldFor });
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

test('the requester withdraws an export waiting for votes: its key alone while her approval counts, then rejecting it', async ({ page, host }) => {
  const { root } = await treasuryForTwo(page, host);
  const requests = page.getByRole('region', { name: 'Exports you asked for' });
  const notice = requests.getByRole('status', { name: 'Export withdrawn' });
  /** Bea clicks Withdraw…, reads main's confirmation saying `confirmation`, goes ahead, and reads main's `summary`. */
  const withdraw = async (confirmation: { title: string; saying: string[] }, summary: string) => {
    host.answerConfirmations('wait');
    await requests.getByRole('button', { name: 'Withdraw… the export of wallet Treasury' }).click();
    const shown = await host.nextConfirmation();
    host.answerConfirmations('continue');
    expect(shown.request.title).toBe(confirmation.title);
    for (const words of confirmation.saying) expect(shown.text).toContain(words);
    shown.answer(true);
    await expect(notice).toContainText(summary);
    await expect(requests).toContainText('None waiting.');
    expect(await host.services.keychain.listOneTimeKeys()).toEqual([]);
  };

  // Her request counts as her approval: main deletes the key on its own confirmation, and the activity stays open.
  const kept = await askForTreasury(page, host);
  await screenshotBothThemes(page, 'export-withdraw-offered', requests);
  await withdraw(
    {
      title: 'Withdraw the export of wallet Treasury?',
      saying: [
        'The activity stays open on the service, and a bundle it yields can never be opened.',
        'Not rejected because: your approval (your request was one) counts until',
      ],
    },
    'The one-time key for the export of wallet Treasury was deleted; the activity stays open on the service, and a bundle it yields can never be opened.',
  );
  expect((await root.query('get_activity', { activityId: kept })).activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
  await screenshotBothThemes(page, 'export-withdrawn', requests);
  await notice.getByRole('button', { name: 'Dismiss' }).click();

  // A day later the root user approves, opening a new window in which her approval has expired: she rejects it.
  const rejected = await askForTreasury(page, host);
  host.advanceClock(APPROVAL_WINDOW_MS + 60 * 60_000);
  const { activity } = await root.query('get_activity', { activityId: rejected });
  expect((await root.submit('approve_activity', { fingerprint: activity.fingerprint })).activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
  await withdraw(
    {
      title: 'Reject: Export a wallet?',
      saying: ['Sealed to: the one-time key this desktop holds for it', 'rejecting it deletes that key, so the bundle can never be opened'],
    },
    'The export of wallet Treasury was rejected, and the one-time key held for it deleted: its bundle can never be opened.',
  );
  expect((await root.query('get_activity', { activityId: rejected })).activity.status).toBe('ACTIVITY_STATUS_REJECTED');
  await screenshotBothThemes(page, 'export-withdrawn-rejected', requests);
});
