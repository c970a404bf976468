/**
 * Playwright fixtures: each test gets its own e2e host (fresh data dir, its own keychain service name) and a page
 * that has the preload's API and shows the app.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test as base, expect, type Locator, type Page } from '@playwright/test';
import type { ApiClient } from '../../src/main/client/api-client';
import type { ServiceInfo } from '../../src/service';
import { startE2eHost, type E2eHost } from '../support/e2e-host';

export const SCREENS_DIR = join(import.meta.dirname, '../../test-results/screens');

export const test = base.extend<{ host: E2eHost }>({
  // Playwright reads fixture dependencies from the destructuring pattern; this fixture has none.
  // eslint-disable-next-line no-empty-pattern
  host: async ({}, use) => {
    const host = await startE2eHost();
    await use(host);
    // The sandbox (started by the tests that need a service) must stop before the host removes its data dir.
    await host.services.close();
    await host.close();
  },
  page: async ({ page, host }, use) => {
    // A CSP violation or an uncaught error is a failure even when the screen looks right.
    const problems: string[] = [];
    // The one expected message: the meta tag repeats the header's policy, and browsers honour frame-ancestors only
    // from the header (which the host and the app both send).
    const metaFrameAncestors = "The Content Security Policy directive 'frame-ancestors' is ignored when delivered via a <meta> element.";
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && message.text() !== metaFrameAncestors) problems.push(`console.error: ${message.text()}`);
    });
    await host.installBridge(page);
    await page.goto(host.url);
    await use(page);
    expect(problems).toEqual([]);
  },
});

export { expect };

/**
 * Saves `test-results/screens/<name>-light.png` and `-dark.png`, switching through the 'system' theme; `showing` is
 * scrolled into view when the screen's top does not show it.
 */
export async function screenshotBothThemes(page: Page, name: string, showing?: Locator): Promise<void> {
  await mkdir(SCREENS_DIR, { recursive: true });
  // Each screen from its top, whatever the last action scrolled to.
  const content = page.locator('#content');
  if ((await content.count()) > 0) await content.evaluate((element) => element.scrollTo(0, 0));
  await showing?.scrollIntoViewIfNeeded();
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await page.screenshot({ path: join(SCREENS_DIR, `${name}-${theme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

export type ScreenLabel =
  'Profiles' | 'Keys' | 'Wallets' | 'Approvals' | 'Users' | 'Policies' | 'Import' | 'Offline decrypt' | 'Journal' | 'Settings';

export async function openScreen(page: Page, label: ScreenLabel): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: label, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: label, exact: true })).toBeVisible();
}

/** Starts the host's embedded service (first run: the Sandbox becomes the active profile) and reloads the page. */
export async function startSandbox(page: Page, host: E2eHost): Promise<ServiceInfo> {
  const { info } = await host.services.sandbox.start();
  await page.reload();
  await expect(page.getByText('Profile: Sandbox')).toBeVisible();
  return info;
}

/** The result of a setup step submitted straight to the service; anything but completed stops the test. */
export async function done<T>(outcome: Promise<{ state: string } & ({ result: T } | object)>): Promise<T> {
  const settled = await outcome;
  if (settled.state !== 'completed' || !('result' in settled)) throw new Error(`setup step is ${settled.state}`);
  return settled.result;
}

/**
 * Users with an API key each, generated in this machine's keychain under the user's name (a profile named so signs
 * as them), created by `root` through the service's API; answers their ids in the order of `names`.
 */
export async function createKeyedUsers(host: E2eHost, root: ApiClient, names: readonly string[]): Promise<string[]> {
  const keys = await Promise.all(names.map((name) => host.services.keychain.generateApiKey({ name, curve: 'p256' })));
  const { userIds } = await done(
    root.submit('create_users', {
      users: names.map((name, index) => ({
        userName: name,
        apiKeys: [{ apiKeyName: name, publicKey: keys[index]!.publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      })),
    }),
  );
  return userIds;
}
