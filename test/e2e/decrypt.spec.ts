import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ApiClient } from '../../src/main/client/api-client';
import { Exporter } from '../../src/main/exporter/exporter';
import { Stamper } from '../../src/main/stamper/stamper';
import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

test('decrypt an export bundle offline: pasted, verified against the profile signer, revealed with a stored key', async ({ page, host }) => {
  const { organizationId, enclaveSignerPublicKey } = await startSandbox(page, host);
  const target = await host.services.keychain.generateEncryptionKey({ name: 'cold key' });
  const { handlers } = host.services;

  // A wallet exported elsewhere to this computer's key: the service answers the bundle text.
  const created = await handlers['wallets.create']({
    name: 'cold',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  if (created.state !== 'completed') throw new Error(`wallet creation ${created.state}`);
  const profile = (await host.services.profiles.getActive())!;
  const client = new ApiClient({ profile, stamper: new Stamper(host.services.keychain) });
  const exporter = new Exporter({ client, keychain: host.services.keychain, enclaveSignerPublicKey: profile.enclaveSignerPublicKey });
  const exported = await exporter.exportTo({ kind: 'wallet', walletId: created.result.walletId }, target.publicKey);
  if (exported.state !== 'completed') throw new Error(`export ${exported.state}`);
  const bundle = exported.result.exportBundle;

  await openScreen(page, 'Offline decrypt');
  const form = page.getByRole('form', { name: 'Decrypt bundle' });
  await form.getByLabel('Export bundle').fill(bundle);
  await expect(form.getByLabel('Organization (from profile)')).toHaveValue(/.+/);
  await expect(form).toContainText(enclaveSignerPublicKey);
  await form.getByLabel('Encryption key the bundle was sealed to').selectOption('cold key');
  await screenshotBothThemes(page, 'decrypt');
  await form.getByRole('button', { name: 'Verify and decrypt' }).click();

  const result = page.getByRole('region', { name: 'Verified and decrypted' });
  await expect(result).toContainText(enclaveSignerPublicKey);
  await expect(result).toContainText(organizationId);
  await result.getByRole('button', { name: 'Hold or click to reveal' }).click();
  await expect(result.getByRole('list', { name: 'Mnemonic words' }).locator('code')).toHaveCount(12);
  await screenshotBothThemes(page, 'decrypt-revealed');

  // A bundle signed by someone else is refused before decryption, and says so.
  await result.getByRole('button', { name: 'Hide and forget' }).click();
  const forged = JSON.parse(bundle) as { enclaveQuorumPublic: string };
  forged.enclaveQuorumPublic = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));
  await form.getByLabel('Export bundle').fill(JSON.stringify(forged));
  await form.getByRole('button', { name: 'Verify and decrypt' }).click();
  await expect(page.getByRole('alert')).toContainText(/signer|signature/i);
  await expect(page.getByRole('list', { name: 'Mnemonic words' })).toHaveCount(0);
});

