/**
 * The window's scripts stay within their budget: 320 KB gzipped. It holds React, the query layer, zod's IPC contract
 * and the describers' words; it bundles no chain decoder and no policy evaluator (eslint.config.js, rendererImports),
 * because main reads activities and sends the readings. The app is built as it ships (electron.vite.config.ts), into
 * a folder of the test's own.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

const RENDERER_SCRIPTS_BUDGET_BYTES = 320 * 1024;

const outDir = mkdtempSync(join(tmpdir(), 'qk-renderer-bundle-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("the window's bundle", () => {
  it(`keeps its scripts within ${RENDERER_SCRIPTS_BUDGET_BYTES / 1024} KB gzipped, with no policy engine in them`, async () => {
    const root = join(import.meta.dirname, '../..');
    await promisify(execFile)(join(root, 'node_modules/.bin/electron-vite'), ['build', '--outDir', outDir, '--logLevel', 'warn'], {
      cwd: root,
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    });
    const assets = join(outDir, 'renderer/assets');
    const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const texts = scripts.map((name) => readFileSync(join(assets, name)));
    const gzipped = texts.reduce((sum, text) => sum + gzipSync(text, { level: 9 }).length, 0);
    expect(gzipped).toBeLessThanOrEqual(RENDERER_SCRIPTS_BUDGET_BYTES);
    // The evaluator's own words for a field a request lacks: present only where the evaluator is.
    expect(texts.some((text) => text.includes('is not available for this request'))).toBe(false);
  }, 300_000);
});
