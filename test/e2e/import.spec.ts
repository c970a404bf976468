import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** The Ethereum address of m/44'/60'/0'/0/0 of `mnemonic`, derived here independently of the service. */
function ethereumAddress(mnemonic: string): string {
  const node = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive("m/44'/60'/0'/0/0");
  const publicKey = secp256k1.getPublicKey(node.privateKey!, false).slice(1);
  return `0x${bytesToHex(keccak_256(publicKey).slice(-20))}`;
}

test('import a wallet with word-by-word mnemonic checks, and a private key; the forms forget the secrets', async ({ page, host, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(host.url).origin });
  await startSandbox(page, host);
  await openScreen(page, 'Import');

  const form = page.getByRole('form', { name: 'Import wallet' });
  await form.getByLabel('Wallet name').fill('restored');
  const phrase = form.getByLabel('Mnemonic (English)');
  await phrase.fill(MNEMONIC.replace('abandon about', 'abandn about'));
  await expect(form.getByText('Not in the BIP-39 English word list: word 11 “abandn”.')).toBeVisible();
  await expect(form.getByRole('list', { name: 'Word check' }).getByRole('listitem').nth(10)).toHaveClass('word-bad');
  await expect(form.getByRole('button', { name: 'Import wallet' })).toBeDisabled();
  await phrase.fill(MNEMONIC.replace('about', 'abandon'));
  await expect(form.getByText('Every word is known, but the checksum does not match')).toBeVisible();
  await screenshotBothThemes(page, 'import-mnemonic-error');

  // Pasted from the clipboard: the clipboard is emptied once the words are in the form. In the app the page's
  // clipboard and main's are the one system clipboard; here they are two, so both hold the words.
  await page.evaluate((text) => navigator.clipboard.writeText(text), MNEMONIC);
  await host.clipboard.writeText(MNEMONIC);
  await phrase.fill('');
  await phrase.focus();
  await page.keyboard.press('ControlOrMeta+V');
  await expect(form.getByText('12 words, checksum valid.')).toBeVisible();
  await expect.poll(() => host.clipboard.text).toBe('');
  await form.getByRole('button', { name: 'Import wallet' }).click();

  const result = page.getByRole('status', { name: 'Import result' });
  await expect(result).toContainText('Imported wallet restored. New addresses:');
  // Checksummed or not, the same address.
  await expect(result).toContainText(new RegExp(ethereumAddress(MNEMONIC), 'i'));
  await expect(phrase).toHaveValue('');
  await screenshotBothThemes(page, 'import-wallet');

  await page.getByRole('button', { name: 'Private key' }).click();
  const keyForm = page.getByRole('form', { name: 'Import private key' });
  const privateKey = secp256k1.utils.randomSecretKey();
  await keyForm.getByLabel('Key name').fill('hot key');
  await keyForm.getByLabel('Format').selectOption('hexadecimal');
  await keyForm.getByLabel('Private key', { exact: true }).fill(bytesToHex(privateKey));
  await keyForm.getByLabel('Curve and address').selectOption('ethereum');
  await keyForm.getByRole('button', { name: 'Import private key' }).click();
  const expected = `0x${bytesToHex(keccak_256(secp256k1.getPublicKey(privateKey, false).slice(1)).slice(-20))}`;
  await expect(result).toContainText('Imported private key hot key.');
  await expect(result).toContainText(new RegExp(expected, 'i'));
  await expect(keyForm.getByLabel('Private key', { exact: true })).toHaveValue('');
  const keys = await host.handlers['privateKeys.list']({});
  expect(keys.map((key) => [key.privateKeyName, key.imported])).toEqual([['hot key', true]]);
});
