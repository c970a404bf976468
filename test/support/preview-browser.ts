/**
 * `npm run preview:browser`: the app in the system's Chromium where Electron cannot run. Starts the e2e host (real
 * main services, a temporary data dir, keys in the OS keychain under a one-off service name, removed on exit) and
 * opens the built renderer with the preload's API installed, the Sandbox started as the app starts it.
 *
 *   npm run preview:browser                                   # a Chromium window; close it to stop
 *   npm run preview:browser -- --headless --screenshot a.png  # no display: write a screenshot and exit
 *   --chromium PATH                                           # another Chromium binary (default: findChromium())
 *   --color-scheme light|dark                                 # the system theme the app follows (default light)
 */
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { findChromium } from './chromium';
import { startE2eHost } from './e2e-host';

const WINDOW = { width: 1280, height: 800 };

const { values: options } = parseArgs({
  options: {
    headless: { type: 'boolean', default: false },
    screenshot: { type: 'string' },
    chromium: { type: 'string' },
    'color-scheme': { type: 'string', default: 'light' },
  },
  strict: true,
});
const colorScheme = options['color-scheme'];
if (colorScheme !== 'light' && colorScheme !== 'dark') throw new Error(`--color-scheme is light or dark, not ${colorScheme}`);
if (options.screenshot !== undefined && !options.headless) {
  throw new Error('--screenshot FILE needs --headless: it is for machines without a display');
}

const host = await startE2eHost();
// As the app does when it is ready: the Sandbox starts and, the first time, becomes the active profile, so the
// preview opens on a working profile.
await host.services.sandbox.start();
const browser = await chromium.launch({
  executablePath: options.chromium ?? findChromium(),
  headless: options.headless,
  args: ['--no-first-run', '--disable-background-networking', '--disable-component-update', `--window-size=${WINDOW.width},${WINDOW.height}`],
});
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await browser.close().catch(() => undefined);
  // The Sandbox stops before the host removes its data dir.
  await host.services.close();
  await host.close();
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());

try {
  // Headed, the viewport follows the window so it can be resized like the app's.
  const page = await browser.newPage({ viewport: options.headless ? WINDOW : null, colorScheme });
  await host.installBridge(page);
  await page.goto(host.url);
  // The app has drawn once its shell, lock screen or start error is there.
  await page.locator('.shell, .lock-screen, .start-error').first().waitFor();
  if (options.screenshot !== undefined) {
    await page.screenshot({ path: options.screenshot });
    console.log(`wrote ${options.screenshot}`);
    await stop();
  } else {
    console.log(`QuorumKey preview at ${host.url} (close the window or press Ctrl+C to stop)`);
    await new Promise<void>((closed) => page.once('close', () => closed()));
    await stop();
  }
} catch (error) {
  await stop();
  throw error;
}
