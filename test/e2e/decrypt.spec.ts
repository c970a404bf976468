import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ApiClient } from '../../src/main/client/api-client';
import { Exporter } from '../../src/main/exports/exporter';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY } from '../../src/main/profiles/profiles';
import { Stamper } from '../../src/main/stamper/stamper';
import type { E2eHost } from '../support/e2e-host';
import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

/** A wallet created in the service and exported elsewhere to this computer's encryption key `cold key`: the bundle text. */
async function walletExportedToColdKey(host: E2eHost): Promise<string> {
  const target = await host.services.keychain.generateEncryptionKey({ name: 'cold key' });
  const created = await host.handlers['wallets.create']({
    name: 'cold',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  if (created.state !== 'completed') throw new Error(`wallet creation ${created.state}`);
  const profile = (await host.services.profiles.getActive())!;
  const client = new ApiClient({ profile, stamper: new Stamper(host.services.keychain) });
  const exporter = new Exporter({ client, keychain: host.services.keychain, enclaveSignerPublicKey: profile.enclaveSignerPublicKey });
  const exported = await exporter.exportTo({ kind: 'wallet', walletId: created.result.walletId }, target.publicKey);
  if (exported.state !== 'completed') throw new Error(`export ${exported.state}`);
  return exported.result.exportBundle;
}

test('decrypt an export bundle offline: pasted, verified against the profile signer, revealed with a stored key', async ({ page, host }) => {
  const { organizationId, enclaveSignerPublicKey } = await startSandbox(page, host);
  const bundle = await walletExportedToColdKey(host);

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

test('with no profile on the machine: decrypt with a manually entered organization and signer, validated inline; a wrong organization is refused', async ({
  page,
  host,
}) => {
  const { organizationId, enclaveSignerPublicKey } = await startSandbox(page, host);
  const bundle = await walletExportedToColdKey(host);
  // Carried to a machine with no profile at all, as an air-gapped one would be.
  for (const profile of await host.services.profiles.list()) await host.services.profiles.remove(profile.id);
  await page.reload();

  await openScreen(page, 'Offline decrypt');
  const form = page.getByRole('form', { name: 'Decrypt bundle' });
  await form.getByLabel('Export bundle').fill(bundle);
  await expect(form.getByLabel('Enter manually')).toBeChecked();
  await expect(form.getByLabel('From a saved profile')).toBeDisabled();
  await expect(form).toContainText('No saved profile on this computer');
  const organization = form.getByLabel('Organization id');
  const signer = form.getByLabel('Enclave signer public key');
  const decrypt = form.getByRole('button', { name: 'Verify and decrypt' });
  // The default is Turnkey's production signer, the same key main pins for hosted profiles, and it says so.
  await expect(signer).toHaveValue(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);
  await expect(form).toContainText(`Must be signed by ${PRODUCTION_SIGNER_SIGN_PUBLIC_KEY} (Turnkey’s production signer)`);
  await expect(decrypt).toBeDisabled();

  // Each field says what is wrong with it before anything is sent.
  await signer.fill(enclaveSignerPublicKey.slice(0, 128));
  await expect(form).toContainText('130 hex characters; this one has 128');
  await signer.fill(`${enclaveSignerPublicKey.slice(0, 128)}zz`);
  await expect(form).toContainText('only 0-9 and a-f');
  await organization.fill('not an id');
  await expect(form).toContainText('An organization id has no spaces inside');
  await signer.fill(enclaveSignerPublicKey.toUpperCase());
  await expect(form).toContainText(`Must be signed by ${enclaveSignerPublicKey} (the signer entered above)`);

  // The right signer with the wrong organization: refused, and the message names both organizations.
  const wrongOrganization = '11111111-2222-4333-8444-555555555555';
  await organization.fill(wrongOrganization);
  await expect(decrypt).toBeEnabled();
  await decrypt.click();
  const refusal = page.getByRole('alert');
  await expect(refusal).toContainText('organization id does not match expected value');
  await expect(refusal).toContainText(`Expected: ${wrongOrganization}. Found: ${organizationId}.`);
  await expect(page.getByRole('list', { name: 'Mnemonic words' })).toHaveCount(0);

  await organization.fill(organizationId);
  await screenshotBothThemes(page, 'decrypt-manual');
  await decrypt.click();
  const result = page.getByRole('region', { name: 'Verified and decrypted' });
  await expect(result).toContainText(`${enclaveSignerPublicKey} (the signer entered above)`);
  await expect(result).toContainText(organizationId);
  await result.getByRole('button', { name: 'Hold or click to reveal' }).click();
  await expect(result.getByRole('list', { name: 'Mnemonic words' }).locator('code')).toHaveCount(12);
});
