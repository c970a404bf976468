import { defineConfig } from '@playwright/test';
import { findHeadlessChromium } from './test/support/chromium';

/**
 * End-to-end tests: the built renderer in Debian's Chromium (no browser download), talking to the real main-process
 * handlers through test/support/e2e-host.ts. Run `npx electron-vite build` first, and run Playwright inside
 * test/support/with-secret-service.sh so the keychain is a private, real Secret Service.
 */
export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  // One retry on CI's shared two-core machine; a test that needed it is still reported as flaky.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    // The host's headless Chromium, never Playwright's download (test/support/chromium.ts says which). Playwright
    // itself passes --headless.
    launchOptions: {
      executablePath: findHeadlessChromium(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    },
    // A failed test keeps its trace (each action's DOM snapshot, the network, the sources) but no screencast: drawing and
    // encoding every frame for it was a fifth of the e2e tests' CPU, a third of Chromium's.
    trace: { mode: 'retain-on-failure', screenshots: false },
    screenshot: 'only-on-failure',
  },
});
