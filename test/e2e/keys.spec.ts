import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { test, expect, openScreen, screenshotBothThemes } from './fixtures';

test('create an API key, show its QR code, rename it and delete it, against the real keychain', async ({ page, host }) => {
  await expect(page.getByRole('heading', { name: 'Welcome to QuorumKey' })).toBeVisible();
  await screenshotBothThemes(page, 'first-run');

  await openScreen(page, 'Keys');
  await expect(page.getByText('No API keys yet.')).toBeVisible();
  const createForm = page.getByRole('form', { name: 'Create API key' });
  await createForm.getByLabel('Name').fill('ops signer');
  await createForm.getByLabel('Curve').selectOption('secp256k1');
  await createForm.getByRole('button', { name: 'Create API key' }).click();

  const table = page.getByRole('table', { name: 'API keys' });
  const row = table.getByRole('row', { name: /ops signer/ });
  await expect(row).toBeVisible();
  await expect(row.getByRole('cell', { name: 'secp256k1' })).toBeVisible();
  await expect(row).toContainText('no profile');
  const [stored] = await host.services.keychain.listApiKeys();
  expect(stored).toMatchObject({ name: 'ops signer', curve: 'secp256k1', missing: false });
  // The table shows the real public key (shortened; the full one is the title).
  await expect(row.locator('code')).toHaveAttribute('title', stored!.publicKey);

  await page.getByRole('form', { name: 'Create encryption key' }).getByLabel('Name').fill('export target');
  await page.getByRole('button', { name: 'Create encryption key' }).click();
  await expect(page.getByRole('table', { name: 'Encryption keys' }).getByRole('row', { name: /export target/ })).toBeVisible();
  await screenshotBothThemes(page, 'keys');

  await row.getByRole('button', { name: 'QR code of the public key of ops signer' }).click();
  const qr = page.getByRole('dialog', { name: 'Public key of ops signer' });
  await expect(qr.getByRole('img', { name: /^QR code of 0[23][0-9a-f]+$/ })).toBeVisible();
  await expect(qr).toContainText(stored!.publicKey);
  // A dialog that only shows something opens on Close.
  await expect(qr.getByRole('button', { name: 'Close' })).toBeFocused();
  await screenshotBothThemes(page, 'key-qr');
  await page.keyboard.press('Escape');
  await expect(qr).toBeHidden();

  await row.getByRole('button', { name: 'Rename ops signer' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename API key ops signer' });
  await expect(rename.getByLabel('New name')).toBeFocused();
  await rename.getByLabel('New name').fill('treasury signer');
  await screenshotBothThemes(page, 'key-rename');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(rename).toBeHidden();
  const renamed = table.getByRole('row', { name: /treasury signer/ });
  await expect(renamed).toBeVisible();
  await expect(table.getByRole('row', { name: /ops signer/ })).toHaveCount(0);
  expect((await host.services.keychain.listApiKeys()).map((key) => key.name)).toEqual(['treasury signer']);

  await renamed.getByRole('button', { name: 'Delete treasury signer' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete API key treasury signer?' });
  await expect(confirm).toBeVisible();
  // Enter alone never deletes: the confirmation opens on Cancel.
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await screenshotBothThemes(page, 'key-delete-confirm');
  // Cancel first: nothing may be deleted without the confirmation.
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(renamed).toBeVisible();
  await renamed.getByRole('button', { name: 'Delete treasury signer' }).click();
  await page.getByRole('dialog', { name: 'Delete API key treasury signer?' }).getByRole('button', { name: 'Delete key' }).click();
  await expect(page.getByText('No API keys yet.')).toBeVisible();
  expect(await host.services.keychain.listApiKeys()).toEqual([]);

  await openScreen(page, 'Settings');
  await screenshotBothThemes(page, 'settings');
});

test('import an API key from its hex private key; the form forgets the private key', async ({ page, host }) => {
  const privateKey = p256.utils.randomSecretKey();
  const expectedPublicKey = bytesToHex(p256.getPublicKey(privateKey, true));

  await openScreen(page, 'Keys');
  await page.getByText('Import an existing API key').click();
  const form = page.getByRole('form', { name: 'Import API key' });
  await form.getByLabel('Name').fill('imported');
  await form.getByLabel('Curve').selectOption('p256');
  await form.getByLabel('Private key', { exact: true }).fill(bytesToHex(privateKey));
  await form.getByRole('button', { name: 'Import API key' }).click();

  const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /imported/ });
  await expect(row.locator('code')).toHaveAttribute('title', expectedPublicKey);
  await expect(form.getByLabel('Private key', { exact: true })).toHaveValue('');
  expect((await host.services.keychain.listApiKeys())[0]?.publicKey).toBe(expectedPublicKey);
});

test('every screen is reachable from the keyboard', async ({ page }) => {
  const keysButton = page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Keys' });
  for (let presses = 0; presses < 14 && !(await keysButton.evaluate((button) => button === document.activeElement)); presses++) {
    await page.keyboard.press('Tab');
  }
  await expect(keysButton).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Keys' })).toBeVisible();
  await expect(keysButton).toHaveAttribute('aria-current', 'page');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Journal' })).toBeVisible();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
});
