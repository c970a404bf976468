import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY } from '../../src/main/profiles/profiles';
import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

const SANDBOX_ORG = '0b6e3c1d-2f4a-4d5e-8f9a-1b2c3d4e5f60';
const PRODUCTION_ORG = '5f2c3e4a-0b1d-4c6e-9f8a-7b6c5d4e3f21';

test('add a hosted profile beside the Sandbox and switch between them', async ({ page, host }) => {
  await host.services.keychain.generateApiKey({ name: 'sandbox root' });
  await host.services.keychain.generateApiKey({ name: 'ops', curve: 'ed25519' });
  const sandbox = await host.services.profiles.add({
    name: 'Sandbox',
    kind: 'sandbox',
    baseUrl: 'http://127.0.0.1:8765',
    organizationId: SANDBOX_ORG,
    apiKeyName: 'sandbox root',
    enclaveSignerPublicKey: PRODUCTION_SIGNER_SIGN_PUBLIC_KEY,
  });
  await host.services.profiles.setActive(sandbox.id);
  await page.reload();

  const profiles = page.getByRole('list', { name: 'Profiles' });
  const sandboxCard = profiles.getByRole('listitem', { name: 'Sandbox' });
  await expect(sandboxCard).toContainText(SANDBOX_ORG);
  await expect(sandboxCard).toContainText('sandbox root');
  await expect(sandboxCard.getByText('Active')).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Profile: Sandbox');

  const form = page.getByRole('form', { name: 'Add hosted profile' });
  await form.getByLabel('Profile name').fill('Production');
  await form.getByLabel('Organization ID').fill(PRODUCTION_ORG);
  await form.getByLabel('API key').selectOption('ops');
  await form.getByRole('button', { name: 'Add profile' }).click();
  const productionCard = profiles.getByRole('listitem', { name: 'Production' });
  await expect(productionCard).toContainText('https://api.turnkey.com');
  await expect(productionCard).toContainText(PRODUCTION_ORG);
  await screenshotBothThemes(page, 'profiles');

  await productionCard.getByRole('button', { name: 'Switch to Production' }).click();
  await expect(productionCard.getByText('Active')).toBeVisible();
  await expect(sandboxCard.getByText('Active')).toHaveCount(0);
  await expect(page.getByRole('banner')).toContainText('Profile: Production');
  expect((await host.services.profiles.getActive())?.name).toBe('Production');

  // The Keys screen says which profile signs with which key.
  await openScreen(page, 'Keys');
  const apiKeys = page.getByRole('table', { name: 'API keys' });
  await expect(apiKeys.getByRole('row', { name: /^ops/ })).toContainText('Production');
  await expect(apiKeys.getByRole('row', { name: /sandbox root/ })).toContainText('Sandbox');
});

test('the welcome screen says what the Sandbox is and starts it, which makes it the active profile', async ({ page }) => {
  const welcome = page.getByRole('region', { name: 'Welcome to QuorumKey' });
  await expect(welcome).toContainText('The Sandbox is a complete Turnkey-compatible service running on this computer');
  await screenshotBothThemes(page, 'welcome');
  await welcome.getByRole('button', { name: 'Start the Sandbox' }).click();
  await expect(page.getByRole('banner')).toContainText('Profile: Sandbox');
  await expect(page.getByRole('list', { name: 'Profiles' }).getByRole('listitem', { name: 'Sandbox' }).getByText('Active')).toBeVisible();
  await expect(welcome).toHaveCount(0);
});

test('the Sandbox panel: reset only after the typed phrase, and its removed profile comes back', async ({ page, host }) => {
  const { organizationId } = await startSandbox(page, host);
  const panel = page.getByRole('region', { name: 'Sandbox' });
  await expect(panel).toContainText(`organization ${organizationId}`);
  await panel.getByRole('button', { name: 'Reset the Sandbox…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reset the Sandbox?' });
  await expect(dialog.getByRole('button', { name: 'Reset the Sandbox' })).toBeDisabled();
  await dialog.getByLabel('Type “reset the Sandbox” to confirm').fill('reset the Sandbox');
  await screenshotBothThemes(page, 'sandbox-reset');
  await dialog.getByRole('button', { name: 'Reset the Sandbox' }).click();
  await expect(panel).toContainText('Running at');
  await expect(panel).not.toContainText(organizationId);
  // Focus goes back to the button that opened the dialog.
  await expect(panel.getByRole('button', { name: 'Reset the Sandbox…' })).toBeFocused();

  await page.getByRole('list', { name: 'Profiles' }).getByRole('button', { name: 'Remove Sandbox' }).click();
  await page.getByRole('dialog', { name: 'Remove profile Sandbox?' }).getByRole('button', { name: 'Remove profile' }).click();
  const welcome = page.getByRole('region', { name: 'Welcome to QuorumKey' });
  await welcome.getByRole('button', { name: 'Start the Sandbox' }).click();
  await expect(page.getByRole('banner')).toContainText('Profile: Sandbox');
  await screenshotBothThemes(page, 'profiles-sandbox');
});

test('editing a hosted profile’s signer: main shows it old → new and saves it only once the person goes ahead', async ({ page, host }) => {
  const { baseUrl, organizationId, enclaveSignerPublicKey: sandboxSigner } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const remote = await host.services.profiles.add({ name: 'Remote', kind: 'hosted', baseUrl, organizationId, apiKeyName: sandbox.apiKeyName });
  await page.reload();
  const card = page.getByRole('list', { name: 'Profiles' }).getByRole('listitem', { name: 'Remote' });
  await expect(card).toContainText('Turnkey’s production signer');

  await card.getByRole('button', { name: 'Edit Remote' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit profile Remote' });
  const signer = dialog.getByLabel('Enclave signer key');
  await expect(signer).toHaveValue(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);
  await signer.fill('04abc');
  await expect(dialog.getByText('The signer key is an uncompressed P-256 public key, 130 hex characters; this one has 5.')).toBeVisible();
  // Hex of the right form, but no point of the curve: main refuses it, and nothing is asked or saved.
  const asked = host.confirmations.length;
  await signer.fill(`04${'11'.repeat(64)}`);
  await dialog.getByRole('button', { name: 'Save profile' }).click();
  await expect(dialog.getByRole('alert')).toContainText('is not a point on the P-256 curve');
  expect(host.confirmations.length).toBe(asked);

  await dialog.getByRole('button', { name: 'Use the Sandbox’s signer' }).click();
  await expect(dialog).toContainText('this desktop’s Sandbox signer');
  host.answerConfirmations('wait');
  await dialog.getByRole('button', { name: 'Save profile' }).click();
  const shown = await host.nextConfirmation();
  expect(shown.request.title).toBe('Change where a profile sends requests?');
  expect(shown.text).toContain('Change the enclave signer key of profile "Remote"?');
  expect(shown.text).toContain(`enclave signer key\n  from: ${PRODUCTION_SIGNER_SIGN_PUBLIC_KEY}\n  to:   ${sandboxSigner}`);
  await screenshotBothThemes(page, 'profile-edit-signer-asked');
  expect((await host.services.profiles.get(remote.id)).enclaveSignerPublicKey).toBe(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);
  shown.answer(true);
  await expect(dialog).toHaveCount(0);
  await expect(card).toContainText('this desktop’s Sandbox signer');
  expect((await host.services.profiles.get(remote.id)).enclaveSignerPublicKey).toBe(sandboxSigner);
  await screenshotBothThemes(page, 'profile-edit-signer-saved');
});

test('the Sandbox stopped and started again keeps its port, and a hosted profile pointing at it still works', async ({ page, host }) => {
  const { baseUrl, organizationId } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  // Added through the form, pinned to the Sandbox's signer: main asks, as for any signer that is not production's.
  const form = page.getByRole('form', { name: 'Add hosted profile' });
  await form.getByLabel('Profile name').fill('Remote');
  await form.getByLabel('Service URL').fill(baseUrl);
  await form.getByLabel('Organization ID').fill(organizationId);
  await form.getByLabel('API key').selectOption(sandbox.apiKeyName);
  await form.getByRole('button', { name: 'Use the Sandbox’s signer' }).click();
  await form.getByRole('button', { name: 'Add profile' }).click();
  const card = page.getByRole('list', { name: 'Profiles' }).getByRole('listitem', { name: 'Remote' });
  await expect(card).toContainText('this desktop’s Sandbox signer');
  expect(host.confirmations.at(-1)?.title).toBe('Trust a non-production enclave signer?');
  await card.getByRole('button', { name: 'Switch to Remote' }).click();
  await expect(page.getByRole('banner')).toContainText('Profile: Remote');

  const panel = page.getByRole('region', { name: 'Sandbox' });
  await expect(panel).toContainText(`Running at ${baseUrl}`);
  await panel.getByRole('button', { name: 'Stop the Sandbox' }).click();
  await expect(panel).toContainText('Stopped.');
  await panel.getByRole('button', { name: 'Start the Sandbox' }).click();
  await expect(panel).toContainText(`Running at ${baseUrl}`);
  await expect(panel.getByRole('status')).toHaveCount(0);
  await screenshotBothThemes(page, 'sandbox-restarted-same-port');

  // The hosted profile, untouched, reaches the restarted Sandbox: a wallet is created and listed through it.
  await openScreen(page, 'Wallets');
  const create = page.getByRole('form', { name: 'Create wallet' });
  await create.getByLabel('Wallet name').fill('After restart');
  await create.getByRole('button', { name: 'Create wallet' }).click();
  await expect(page.getByRole('article', { name: 'Wallet After restart' })).toBeVisible();
  const remote = (await host.services.profiles.list()).find((profile) => profile.name === 'Remote')!;
  expect(remote.baseUrl).toBe(baseUrl);
  expect(host.confirmations.at(-1)?.reading?.title).toBe('Create a wallet');
  await screenshotBothThemes(page, 'sandbox-restarted-hosted-profile-works');
});
