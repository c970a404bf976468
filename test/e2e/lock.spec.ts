import { test, expect, openScreen, screenshotBothThemes } from './fixtures';

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
  const refused = await page.evaluate(() => window.quorumkey.keys.listApiKeys().then(() => 'served', (error: { code: string }) => error.code));
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
  await page.getByRole('button', { name: 'Save' }).click();
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
