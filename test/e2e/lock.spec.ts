import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

test('lock on demand hides every key until unlocked, and main refuses work meanwhile', async ({ page, host }) => {
  await host.services.keychain.generateApiKey({ name: 'secret ops' });
  await openScreen(page, 'Keys');
  await expect(page.getByRole('row', { name: /secret ops/ })).toBeVisible();

  await page.getByRole('banner').getByRole('button', { name: 'Lock' }).click();
  await expect(page.getByRole('heading', { name: 'QuorumKey is locked' })).toBeVisible();
  await expect(page.getByText('secret ops')).toHaveCount(0);
  await expect(page.getByRole('navigation')).toHaveCount(0);
  // The window hides first and then tells main: wait for main's state rather than race it.
  await expect.poll(() => host.services.lock.locked).toBe(true);
  // Main is the authority: even a page that ignored the lock screen gets APP_LOCKED.
  const refused = await page.evaluate(() =>
    window.quorumkey.keys.listApiKeys().then(
      () => 'served',
      (error: { code: string }) => error.code,
    ),
  );
  expect(refused).toBe('APP_LOCKED');
  await screenshotBothThemes(page, 'lock');

  await page.getByRole('button', { name: 'Unlock' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Keys' })).toBeVisible();
  await expect(page.getByRole('row', { name: /secret ops/ })).toBeVisible();
  await expect.poll(() => host.services.lock.locked).toBe(false);
});

test('locks itself after the idle minutes from Settings, and follows a lock decided by main', async ({ page, host }) => {
  await page.clock.install();
  await page.reload();
  await openScreen(page, 'Settings');
  await page.getByLabel('Lock after this many idle minutes').fill('2');
  await page.getByRole('form', { name: 'Lock times' }).getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await host.services.settings.get()).idleLockMinutes).toBe(2);

  await page.clock.fastForward('01:30');
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  await page.clock.fastForward('00:45');
  await expect(page.getByRole('heading', { name: 'QuorumKey is locked' })).toBeVisible();
  await expect.poll(() => host.services.lock.locked).toBe(true);

  await page.getByRole('button', { name: 'Unlock' }).click();
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  // Main locks on its own (screen lock, system idle): the window follows within one poll.
  host.services.lock.lock();
  await page.clock.fastForward('00:06');
  await expect(page.getByRole('heading', { name: 'QuorumKey is locked' })).toBeVisible();
});

test('an unlock passphrase set in Settings is asked to unlock, and again before a reveal after 5 minutes', async ({ page, host }) => {
  const passphrase = 'correct horse battery staple';
  await openScreen(page, 'Profiles');
  await expect(page.getByText('Anyone at this computer can unlock QuorumKey and reveal exports.')).toBeVisible();
  await page.getByRole('button', { name: 'Set an unlock passphrase' }).click();
  const form = page.getByRole('form', { name: 'Set an unlock passphrase' });
  await form.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  await form.getByLabel('Repeat it').fill(passphrase);
  await form.getByRole('button', { name: 'Set passphrase' }).click();
  await expect(page.getByText('Saved. QuorumKey asks for it from the next unlock on.')).toBeVisible();
  await expect(page.getByRole('form', { name: 'Change the unlock passphrase' })).toBeVisible();

  await page.getByRole('banner').getByRole('button', { name: 'Lock' }).click();
  const unlockField = page.getByLabel('Unlock passphrase');
  await expect(unlockField).toBeFocused();
  await unlockField.fill('not the passphrase');
  await page.getByRole('button', { name: 'Unlock' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'PASSPHRASE_INVALID' })).toBeVisible();
  await expect.poll(() => host.services.lock.locked).toBe(true);
  await expect(unlockField).toHaveValue('');
  await screenshotBothThemes(page, 'lock-passphrase');
  await unlockField.fill(passphrase);
  await page.getByRole('button', { name: 'Unlock' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await expect.poll(() => host.services.lock.locked).toBe(false);

  await startSandbox(page, host);
  const created = await host.handlers['wallets.create']({
    name: 'vault',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  if (created.state !== 'completed') throw new Error(`wallet creation ${created.state}`);
  host.advanceClock(5 * 60_000 + 1_000);
  await openScreen(page, 'Wallets');
  await page.getByRole('article', { name: 'Wallet vault' }).getByRole('button', { name: 'Export vault…' }).click();
  await page.getByRole('dialog', { name: 'Export wallet vault' }).getByRole('button', { name: 'Export and reveal' }).click();
  const reauth = page.getByRole('dialog', { name: 'Enter your passphrase to reveal' });
  await expect(reauth.getByLabel('Unlock passphrase')).toBeFocused();
  await reauth.getByLabel('Unlock passphrase').fill(passphrase);
  await screenshotBothThemes(page, 'reveal-reauth');
  await reauth.getByRole('button', { name: 'Reveal' }).click();
  await expect(reauth).toHaveCount(0);
  await expect(page.getByRole('list', { name: 'Mnemonic words' }).locator('code')).toHaveCount(12);
});

test('finding 8: with a passphrase set, Settings asks for it before a widening change and not before a narrowing one', async ({ page, host }) => {
  const passphrase = 'correct horse battery staple';
  await host.services.unlocker.setPassphrase(passphrase);
  await openScreen(page, 'Settings');
  await page.getByLabel('Ask for the passphrase again before a reveal after this many minutes').fill('60');
  await page.getByRole('form', { name: 'Lock times' }).getByRole('button', { name: 'Save' }).click();
  const confirm = page.getByRole('form', { name: 'Confirm the change' });
  await expect(page.getByText('asking for the passphrase before a reveal after 60 minutes instead of 5')).toBeVisible();
  await expect(confirm.getByLabel('Unlock passphrase')).toBeFocused();

  await confirm.getByLabel('Unlock passphrase').fill('not the passphrase');
  await confirm.getByRole('button', { name: 'Confirm the change' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'PASSPHRASE_INVALID' })).toBeVisible();
  expect((await host.services.settings.get()).reauthMinutes).toBe(5);

  await confirm.getByLabel('Unlock passphrase').fill(passphrase);
  await confirm.getByRole('button', { name: 'Confirm the change' }).click();
  await expect(confirm).toHaveCount(0);
  await expect.poll(async () => (await host.services.settings.get()).reauthMinutes).toBe(60);

  // Narrowing: a shorter idle lock is saved at once.
  await page.getByLabel('Lock after this many idle minutes').fill('2');
  await page.getByRole('form', { name: 'Lock times' }).getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await host.services.settings.get()).idleLockMinutes).toBe(2);
  await expect(confirm).toHaveCount(0);
});
