/**
 * Main's token PIN page as Chromium renders it: the reading and body fingerprint it restates, its one hashed script
 * answering through the title, and nothing inserted through a token label running. Screenshots in both themes.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { promptPage } from '../../src/main/pkcs11/pin-page';
import { SCREENS_DIR } from './fixtures';

const signing = {
  reading: 'Approve "Change the root quorum" as Bea (profile Bea on token)? Threshold 1 → 2 of Bea, Cy',
  bodyFingerprint: 'sha256:5f1c0e8a3b9d47e2c6a1f0b8d3e7c2a9b4f6e1d8c0a7b3e9f2d5c8a1b6e4f7d0',
};

test('the PIN page restates what the token will sign, runs only its own script, and answers through its title', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.setViewportSize({ width: 480, height: 400 });
  await page.setContent(promptPage({ module: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'yk', signing }));
  await expect(page.getByRole('heading', { name: 'Unlock token “yk”' })).toBeVisible();
  await expect(page.locator('#reading')).toHaveText(signing.reading);
  await expect(page.locator('#body-fingerprint')).toHaveText(signing.bodyFingerprint);
  await expect(page.getByLabel('User PIN')).toBeFocused();

  await mkdir(SCREENS_DIR, { recursive: true });
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.screenshot({ path: join(SCREENS_DIR, `pin-prompt-${theme}.png`) });
  }

  await page.getByLabel('User PIN').fill('123456');
  await page.getByRole('button', { name: 'Unlock token' }).click();
  await expect(page).toHaveTitle('qk-pin:submit');
  await page.keyboard.press('Escape');
  await expect(page).toHaveTitle('qk-pin:cancel');
  expect(problems).toEqual([]);
});

test('a token label carrying markup is shown as text, and its script never runs', async ({ page }) => {
  const hostile = '<img src=x onerror="document.title=\'owned\'"><script>document.title="owned"</script>';
  await page.setContent(promptPage({ module: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: hostile, signing: { ...signing, reading: hostile } }));
  await expect(page.locator('#reading')).toHaveText(hostile);
  await expect(page.locator('img')).toHaveCount(0);
  expect(await page.title()).not.toBe('owned');
});
