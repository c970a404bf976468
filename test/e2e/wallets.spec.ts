import { validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

test('create an encryption key, create a wallet, export it to that key and reveal the mnemonic, masked until clicked', async ({ page, host, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(host.url).origin });
  await startSandbox(page, host);

  await openScreen(page, 'Keys');
  await page.getByRole('form', { name: 'Create encryption key' }).getByLabel('Name').fill('export target');
  await page.getByRole('button', { name: 'Create encryption key' }).click();
  await expect(page.getByRole('table', { name: 'Encryption keys' }).getByRole('row', { name: /export target/ })).toBeVisible();

  await openScreen(page, 'Wallets');
  await expect(page.getByText('No wallets yet.')).toBeVisible();
  const create = page.getByRole('form', { name: 'Create wallet' });
  await create.getByLabel('Wallet name').fill('treasury');
  await create.getByLabel('Account type').selectOption('ethereum');
  await create.getByLabel('Accounts').fill('2');
  await create.getByRole('button', { name: 'Create wallet' }).click();

  const card = page.getByRole('article', { name: 'Wallet treasury' });
  const accounts = card.getByRole('table', { name: 'Accounts of treasury' });
  await expect(accounts.getByRole('row')).toHaveCount(3);
  await expect(accounts).toContainText("m/44'/60'/0'/0/1");
  const [wallet] = await host.services.handlers['wallets.list']({});
  const stored = await host.services.handlers['wallets.accounts']({ walletId: wallet!.walletId });
  for (const account of stored) await expect(accounts).toContainText(account.address);
  await expect(card.getByText('exported')).toHaveCount(0);
  await screenshotBothThemes(page, 'wallets');

  await card.getByRole('button', { name: 'Export treasury…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export wallet treasury' });
  await dialog.getByLabel('Encrypt to').selectOption('export target');
  await dialog.getByRole('button', { name: 'Export and reveal' }).click();

  const words = dialog.getByRole('list', { name: 'Mnemonic words' }).locator('code');
  await expect(words).toHaveCount(12);
  // Masked: the words are not in the page at all until revealed.
  await expect(words.first()).toHaveText('•••••');
  await screenshotBothThemes(page, 'wallet-reveal-masked');
  await dialog.getByRole('button', { name: 'Hold or click to reveal' }).click();
  await expect(words.first()).not.toHaveText('•••••');
  const mnemonic = (await words.allInnerTexts()).join(' ');
  expect(validateMnemonic(mnemonic, english)).toBe(true);
  await screenshotBothThemes(page, 'wallet-reveal');

  await dialog.getByRole('button', { name: 'Copy mnemonic' }).click();
  await expect(dialog.getByText('Copied; the clipboard is cleared in 30 s.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(mnemonic);

  await dialog.getByRole('button', { name: 'Hide and forget' }).click();
  await expect(dialog.getByRole('list', { name: 'Mnemonic words' })).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText(mnemonic.split(' ')[0]! + ' ');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // The service now marks the wallet as exported.
  await expect(card.getByText('exported', { exact: true })).toBeVisible();
});

test('create private keys from the presets: listed with the curve and address the service holds', async ({ page, host }) => {
  await startSandbox(page, host);
  await openScreen(page, 'Wallets');
  await expect(page.getByText('No private keys yet.')).toBeVisible();
  const create = page.getByRole('form', { name: 'Create private key' });
  await create.getByLabel('Private key name').fill('solana hot');
  await create.getByLabel('Key type').selectOption('solana');
  await create.getByRole('button', { name: 'Create private key' }).click();
  const table = page.getByRole('table', { name: 'Private keys' });
  await expect(table.getByRole('row', { name: /solana hot/ })).toBeVisible();
  await expect(create.getByLabel('Private key name')).toHaveValue('');

  await create.getByLabel('Private key name').fill('btc cold');
  await create.getByLabel('Key type').selectOption('bitcoin');
  await create.getByRole('button', { name: 'Create private key' }).click();
  await expect(table.getByRole('row')).toHaveCount(3);

  const stored = await host.services.handlers['privateKeys.list']({});
  const byName = new Map(stored.map((key) => [key.privateKeyName, key]));
  expect(byName.get('solana hot')?.curve).toBe('CURVE_ED25519');
  expect(byName.get('btc cold')?.curve).toBe('CURVE_SECP256K1');
  for (const [name, format, curveShown] of [
    ['solana hot', 'ADDRESS_FORMAT_SOLANA', 'ed25519'],
    ['btc cold', 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH', 'secp256k1'],
  ] as const) {
    const addresses = byName.get(name)!.addresses;
    expect(addresses.map((address) => address.format)).toEqual([format]);
    const row = table.getByRole('row', { name: new RegExp(name) });
    await expect(row).toContainText(curveShown);
    await expect(row).toContainText(addresses[0]!.address);
  }
  await screenshotBothThemes(page, 'private-keys');
});
