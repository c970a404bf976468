import { validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import type { Locator, Page } from '@playwright/test';
import type { E2eHost } from '../support/e2e-host';
import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

/**
 * Neither the phrase nor any word of it as the whole text of an element, as the words were shown (single words
 * alone are common English and may appear in labels).
 */
async function expectMnemonicAbsent(page: Page, words: readonly string[]): Promise<void> {
  const html = await page.evaluate(() => document.documentElement.outerHTML);
  expect(html).not.toContain(words.join(' '));
  for (const word of words) expect(html).not.toContain(`>${word}<`);
}

test('create an encryption key, create a wallet, export it to that key and reveal the mnemonic, masked until clicked', async ({
  page,
  host,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(host.url).origin });
  await startSandbox(page, host);

  // Screen-capture protection off (a demo being recorded): a reveal still forces it on until the secret is hidden.
  expect(host.windowCaptureProtected()).toBe(true);
  await openScreen(page, 'Settings');
  const captureToggle = page.getByLabel('Keep the QuorumKey window out of screenshots and screen sharing');
  await expect(captureToggle).toBeChecked();
  // On Linux (where the e2e tests run) no window can be kept out of capture; Settings and the reveal say so.
  const captureProtectionSupported = process.platform === 'darwin' || process.platform === 'win32';
  await expect(page.getByText('This OS (Linux) has no way to keep a window out of capture')).toHaveCount(captureProtectionSupported ? 0 : 1);
  // The box follows the saved settings, so it changes once main has applied them.
  await captureToggle.click();
  await expect(captureToggle).not.toBeChecked();
  expect(host.windowCaptureProtected()).toBe(false);

  await openScreen(page, 'Keys');
  await page.getByRole('form', { name: 'Create encryption key' }).getByLabel('Name').fill('export target');
  await page.getByRole('button', { name: 'Create encryption key' }).click();
  await expect(page.getByRole('table', { name: 'Encryption keys' }).getByRole('row', { name: /export target/ })).toBeVisible();

  await openScreen(page, 'Wallets');
  await expect(page.getByText('No wallets yet.')).toBeVisible();
  const create = page.getByRole('form', { name: 'Create wallet' });
  await create.getByLabel('Wallet name').fill('treasury');
  // Several chains at once, each from its standard first path.
  await expect(create.getByLabel('Ethereum (secp256k1)')).toBeChecked();
  await create.getByLabel('Solana (Ed25519)').check();
  await create.getByLabel('Accounts per chain').fill('2');
  await expect(create).toContainText("First paths: m/44'/60'/0'/0/0, m/44'/501'/0'/0'");
  await create.getByRole('button', { name: 'Create wallet' }).click();

  const card = page.getByRole('article', { name: 'Wallet treasury' });
  const accounts = card.getByRole('table', { name: 'Accounts of treasury' });
  await expect(accounts.getByRole('row')).toHaveCount(5);
  await expect(accounts).toContainText("m/44'/60'/0'/0/1");
  await expect(accounts).toContainText("m/44'/501'/1'/0'");

  // Add accounts continues each chain after its highest index, and says which path it will use.
  await card.getByRole('button', { name: 'Add accounts…' }).click();
  const adding = page.getByRole('dialog', { name: 'Add accounts to treasury' });
  await adding.getByLabel('Chain').selectOption('solana');
  await expect(adding.getByRole('status')).toHaveText("Path: m/44'/501'/2'/0' (this chain is in use up to index 1)");
  await adding.getByRole('button', { name: 'Add accounts' }).click();
  await expect(accounts.getByRole('row')).toHaveCount(6);
  await expect(accounts.getByRole('row', { name: /m\/44'\/501'\/2'\/0'/ })).toContainText('Solana');
  await expect(accounts.getByRole('button', { name: /^Copy address of treasury/ })).toHaveCount(5);
  const [wallet] = await host.handlers['wallets.list']({});
  const stored = await host.handlers['wallets.accounts']({ walletId: wallet!.walletId });
  for (const account of stored) await expect(accounts).toContainText(account.address);
  await expect(card.getByText('exported')).toHaveCount(0);
  await screenshotBothThemes(page, 'wallets');

  await card.getByRole('button', { name: 'Export treasury…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export wallet treasury' });
  await dialog.getByLabel('Encrypt to').selectOption('export target');
  await screenshotBothThemes(page, 'wallet-export-dialog');
  await dialog.getByRole('button', { name: 'Export and reveal' }).click();

  const words = dialog.getByRole('list', { name: 'Mnemonic words' }).locator('code');
  await expect(words).toHaveCount(12);
  // Masked: the words are not in the page at all until revealed.
  await expect(words.first()).toHaveText('•••••');
  await expect(dialog.getByRole('button', { name: 'Hold or click to reveal' })).toBeEnabled();
  expect(host.windowCaptureProtected()).toBe(true);
  await expect(dialog.getByText('This OS cannot keep the window out of screenshots and screen sharing')).toHaveCount(
    captureProtectionSupported ? 0 : 1,
  );
  await screenshotBothThemes(page, 'wallet-reveal-masked');
  await dialog.getByRole('button', { name: 'Hold or click to reveal' }).click();
  await expect(words.first()).not.toHaveText('•••••');
  const mnemonic = (await words.allInnerTexts()).join(' ');
  expect(validateMnemonic(mnemonic, english)).toBe(true);
  await screenshotBothThemes(page, 'wallet-reveal');

  await dialog.getByRole('button', { name: 'Copy mnemonic' }).click();
  await expect(dialog.getByText('Copied; the clipboard is cleared in 30 s, or when QuorumKey locks or quits.')).toBeVisible();
  expect(host.clipboard.text).toBe(mnemonic);

  await dialog.getByRole('button', { name: 'Hide and forget' }).click();
  await expect(dialog.getByRole('list', { name: 'Mnemonic words' })).toHaveCount(0);
  await expect.poll(() => host.windowCaptureProtected()).toBe(false);
  // Not a substring check of the page text: a mnemonic word may also be part of a label ("Account type").
  await expectMnemonicAbsent(page, mnemonic.split(' '));
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

  const stored = await host.handlers['privateKeys.list']({});
  const byName = new Map(stored.map((key) => [key.privateKeyName, key]));
  expect(byName.get('solana hot')?.curve).toBe('CURVE_ED25519');
  expect(byName.get('btc cold')?.curve).toBe('CURVE_SECP256K1');
  for (const [name, format, curveShown] of [
    ['solana hot', 'ADDRESS_FORMAT_SOLANA', 'Ed25519'],
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

/**
 * A wallet "vault" exported to this desktop with screen-capture protection turned off in Settings, so that only the
 * reveal turns it on; the page's clock is installed first (startSandbox reloads the page, and the app's timers must
 * run on that clock from the start). Returns the export dialog.
 */
async function exportVaultWithCaptureProtectionOff(page: Page, host: E2eHost): Promise<Locator> {
  await page.clock.install();
  await startSandbox(page, host);
  const created = await host.handlers['wallets.create']({
    name: 'vault',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  if (created.state !== 'completed') throw new Error(`wallet creation ${created.state}`);
  await host.handlers['app.setSettings']({ captureProtection: false });
  expect(host.windowCaptureProtected()).toBe(false);

  await openScreen(page, 'Wallets');
  await page.getByRole('article', { name: 'Wallet vault' }).getByRole('button', { name: 'Export vault…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export wallet vault' });
  await dialog.getByRole('button', { name: 'Export and reveal' }).click();
  return dialog;
}

test('a revealed mnemonic: never in the DOM while masked, masked again after 20 s, hidden after 2 min; a copy goes to the clipboard through main', async ({
  page,
  host,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(host.url).origin });
  const dialog = await exportVaultWithCaptureProtectionOff(page, host);
  const secret = dialog.getByRole('region', { name: 'Secret of wallet vault' });
  const words = secret.getByRole('list', { name: 'Mnemonic words' }).locator('code');
  await expect(words).toHaveCount(12);
  const masked = Array<string>(12).fill('•••••');
  await expect(words).toHaveText(masked);
  await expect(secret.getByRole('button', { name: 'Hold or click to reveal' })).toBeEnabled();
  expect(host.windowCaptureProtected()).toBe(true);

  const reveal = secret.getByRole('button', { name: 'Hold or click to reveal' });
  await reveal.click();
  await expect(words.first()).not.toHaveText('•••••');
  const mnemonic = await words.allInnerTexts();
  // While shown, each word is an element's whole text: exactly what expectMnemonicAbsent looks for.
  expect(await page.evaluate(() => document.documentElement.outerHTML)).toContain(`>${mnemonic[0]}<`);
  // Masked again by hand: the words are gone from the document, not merely hidden by style.
  await secret.getByRole('button', { name: 'Mask' }).click();
  await expect(words).toHaveText(masked);
  await expectMnemonicAbsent(page, mnemonic);

  // Copied by main onto the system clipboard; main's own timer clears it (test/main/secret-clipboard.test.ts).
  await secret.getByRole('button', { name: 'Copy mnemonic' }).click();
  await expect(secret.getByText('Copied; the clipboard is cleared in 30 s, or when QuorumKey locks or quits.')).toBeVisible();
  expect(host.clipboard.text).toBe(mnemonic.join(' '));
  await page.clock.runFor(30_500);

  // A click unmasks for 20 s only.
  await reveal.click();
  await expect(words.first()).toHaveText(mnemonic[0]!);
  await page.clock.runFor(20_500);
  await expect(words).toHaveText(masked);

  // About 52 s have passed since the reveal: the panel is still there at 1 min 50 s and gone by 2 min.
  await page.clock.runFor(58_000);
  await expect(words).toHaveCount(12);
  await page.clock.runFor(12_000);
  await expect(secret).toHaveCount(0);
  await expect(dialog.getByRole('list', { name: 'Mnemonic words' })).toHaveCount(0);
  await expectMnemonicAbsent(page, mnemonic);
  await expect.poll(() => host.windowCaptureProtected()).toBe(false);
});

test('a lock decided by main hides a revealed mnemonic, and the window is no longer forced out of capture', async ({ page, host }) => {
  const dialog = await exportVaultWithCaptureProtectionOff(page, host);
  await expect(dialog.getByRole('button', { name: 'Hold or click to reveal' })).toBeEnabled();
  expect(host.windowCaptureProtected()).toBe(true);

  // As on screen lock or sleep: main locks, the page notices, and its lock screen replaces the reveal.
  host.services.lock.lock();
  await page.clock.fastForward('00:06');
  await expect(page.getByRole('heading', { name: 'QuorumKey is locked' })).toBeVisible();
  await expect.poll(() => host.windowCaptureProtected()).toBe(false);
});
