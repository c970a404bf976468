/**
 * Issue 24, items 5 and 6: a declaration that imitates USDC at another address is refused with where the real USDC
 * is; a per-token threshold set in Settings (in USDC) flags a 250,000 USDC transfer on its approval row and its card.
 */
import { getAddress } from 'viem';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { done, expect, openScreen, screenshotBothThemes, startSandbox, test } from './fixtures';
import { unsignedUsdcTransfer, USDC } from './usdc-transfer';

/** A contract on no list, posing as USDC. */
const FAKE_USDC = getAddress('0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c');

test('a declaration imitating USDC at another address is refused, naming where USDC is', async ({ page, host }) => {
  await startSandbox(page, host);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Contracts', exact: true }).click();
  const declare = page.getByRole('form', { name: 'Declare a token' });
  await declare.getByLabel('Token contract address').fill(FAKE_USDC);
  // Lower case and a Cyrillic "С": still USDC to a person reading the card.
  await declare.getByLabel('Symbol').fill('usdС');
  await declare.getByLabel('Decimals').fill('6');
  await declare.getByLabel('Name (optional)').fill('USD Coin');
  await declare.getByRole('button', { name: 'Declare token' }).click();
  const panel = page.getByRole('region', { name: 'Declared tokens' });
  await expect(panel.getByRole('alert')).toContainText(`is reserved to USD Coin (USDC) of the known token list, at ${USDC} on Ethereum (chain id 1)`);
  await expect(panel).toContainText('declare this token under a symbol of its own');
  await expect(panel).toContainText('No tokens declared.');
  expect(await host.handlers['tokens.list']({})).toEqual([]);
  // Tall enough to show the panel below the upload form: the screenshot starts at the screen's top.
  await page.setViewportSize({ width: 1280, height: 1700 });
  await screenshotBothThemes(page, 'tokens-spoofed-usdc-refused');
});

test('a per-token threshold flags a 250,000 USDC transfer on its approval row and its card', async ({ page, host }) => {
  await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
  const bea = await host.services.keychain.generateApiKey({ name: 'Bea', curve: 'p256' });
  const { userIds } = await done(
    root.submit('create_users', {
      users: [
        {
          userName: 'Bea',
          apiKeys: [{ apiKeyName: 'Bea', publicKey: bea.publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    }),
  );
  const { addresses } = await done(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  const { userId: rootUserId } = await root.query('whoami', {});
  await done(root.submit('update_root_quorum', { threshold: 2, userIds: [rootUserId, userIds[0]!] }));

  await openScreen(page, 'Settings');
  const form = page.getByRole('form', { name: 'Token threshold' });
  await form.getByLabel('Token').selectOption({ label: 'USDC on Ethereum (chain id 1) (known token list)' });
  // More decimals than USDC has is refused, with the reason.
  await form.getByLabel('Warn at or above').fill('0.0000001');
  await form.getByRole('button', { name: 'Set threshold' }).click();
  await expect(page.getByRole('alert')).toContainText('USDC has 6 decimals; 0.0000001 has 7');
  await form.getByLabel('Warn at or above').fill('10,000');
  await form.getByRole('button', { name: 'Set threshold' }).click();
  await expect(page.getByRole('table', { name: 'Token thresholds' }).getByRole('row', { name: /USDC/ })).toContainText('10000 USDC');
  expect((await host.handlers['app.getSettings']({})).tokenWarnAbove).toEqual([
    { token: { family: 'ethereum', chainId: 1, address: USDC }, baseUnits: '10000000000' },
  ]);
  await page.setViewportSize({ width: 1280, height: 1400 });
  await screenshotBothThemes(page, 'tokens-threshold-settings');
  await page.setViewportSize({ width: 1280, height: 800 });

  const unsignedTransaction = unsignedUsdcTransfer(250_000_000_000n);
  const submitted = await host.handlers['signing.submit']({
    request: { operation: 'sign_transaction', signWith: addresses[0]!, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' },
  });
  expect(submitted.state).toBe('consensus-needed');

  const warning = 'Large transfer: 250,000 USDC ≥ your 10,000 USDC threshold.';
  await openScreen(page, 'Approvals');
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem');
  await expect(row).toContainText(warning);
  await row.getByRole('button').click();
  const card = page.getByRole('region', { name: 'Sign an Ethereum transaction', exact: true }).getByRole('article');
  await expect(card.getByRole('list', { name: 'Warnings' })).toContainText(`Large value ${warning}`);
  await expect(card).toContainText('Transfer 250,000 USDC');
  await screenshotBothThemes(page, 'tokens-large-transfer-warning');
});

test('issue 36: removing a declaration a threshold uses asks for the unlock passphrase in the tokens panel', async ({ page, host }) => {
  await startSandbox(page, host);
  const acme = { family: 'ethereum', chainId: 1, address: FAKE_USDC } as const;
  await host.handlers['tokens.declare']({ token: { ...acme, symbol: 'ACME', decimals: 6 } });
  await host.handlers['app.setSettings']({ tokenWarnAbove: [{ token: acme, amount: '1000' }] });
  await host.handlers['app.setUnlockPassphrase']({ passphrase: 'correct horse battery staple' });
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Contracts', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Declared tokens' });
  await panel.getByRole('button', { name: 'Remove ACME on Ethereum (chain id 1)' }).click();

  const confirm = panel.getByRole('region', { name: 'Confirm with your unlock passphrase' });
  await expect(confirm).toContainText('removing the declaration of ACME with 6 decimals');
  await expect(confirm).toContainText('used by the large-transfer warning at 1000 ACME');
  expect(await host.handlers['tokens.list']({})).toHaveLength(1);
  await confirm.getByLabel('Unlock passphrase').fill('correct horse battery staple');
  await confirm.getByRole('button', { name: 'Confirm the change' }).click();
  await expect(panel).toContainText('No tokens declared.');
  await expect(confirm).toHaveCount(0);
  expect(await host.handlers['tokens.list']({})).toEqual([]);
});
