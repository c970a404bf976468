import { test, expect, openScreen } from './fixtures';

test('refused actions show the QkError message and what to do', async ({ page, host }) => {
  await host.services.keychain.generateApiKey({ name: 'ops' });
  await openScreen(page, 'Keys');

  const createForm = page.getByRole('form', { name: 'Create API key' });
  await createForm.getByLabel('Name').fill('ops');
  await createForm.getByRole('button', { name: 'Create API key' }).click();
  // What failed, by its name, and what happened first; what to do next; the code last.
  const duplicate = page.getByRole('alert');
  await expect(duplicate.locator('p').first()).toHaveText('Creating API key ops: A key with this name already exists.');
  await expect(duplicate).toContainText('Choose another name');
  await expect(duplicate.locator('p').last()).toHaveText('Code KEY_EXISTS');
  await duplicate.getByRole('button', { name: 'Dismiss' }).click();
  await expect(page.getByRole('alert')).toHaveCount(0);

  await openScreen(page, 'Profiles');
  const form = page.getByRole('form', { name: 'Add hosted profile' });
  await form.getByLabel('Profile name').fill('Production');
  await form.getByLabel('Organization ID').fill('not-a-uuid');
  await form.getByRole('button', { name: 'Add profile' }).click();
  await expect(page.getByRole('alert')).toContainText('profile.organizationId must be a UUID');
  await expect(page.getByRole('alert')).toContainText('Code REQUEST_INVALID');
  expect(await host.services.profiles.list()).toEqual([]);

  await form.getByLabel('Organization ID').fill('5f2c3e4a-0b1d-4c6e-9f8a-7b6c5d4e3f21');
  await form.getByRole('button', { name: 'Add profile' }).click();
  await expect(page.getByRole('listitem', { name: 'Production' })).toBeVisible();

  // A key a profile signs with cannot be deleted: the dialog says why, and names the way out, before any confirm step.
  await openScreen(page, 'Keys');
  const deleteButton = page.getByRole('button', { name: 'Delete ops' });
  await deleteButton.click();
  const refusal = page.getByRole('dialog', { name: 'API key ops cannot be deleted yet' });
  await expect(refusal).toContainText('It is used by profile "Production"');
  await expect(refusal.getByRole('button', { name: 'Delete key' })).toHaveCount(0);
  await refusal.getByRole('button', { name: 'Close' }).click();
  // Focus goes back to the button that opened the dialog.
  await expect(deleteButton).toBeFocused();
  expect((await host.services.keychain.listApiKeys()).map((key) => key.name)).toEqual(['ops']);
});

test('a page that is not the served renderer is refused by the sender check', async ({ page }) => {
  // The bridge is installed on every document, but dispatch serves only the host's own origin.
  await page.goto('data:text/html,<title>elsewhere</title>');
  const refused = await page.evaluate(() =>
    window.quorumkey.app.info().then(
      () => 'served',
      (error: { code: string }) => error.code,
    ),
  );
  expect(refused).toBe('IPC_SENDER_REJECTED');
});
