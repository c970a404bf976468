import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findChromium, findHeadlessChromium } from '../support/chromium';

const dir = mkdtempSync(join(tmpdir(), 'qk-chromium-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function executable(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('findChromium', () => {
  const onPath = executable('chromium');
  const explicit = executable('my-chromium');

  it('takes QK_CHROMIUM_PATH first, then PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH', () => {
    expect(findChromium({ QK_CHROMIUM_PATH: explicit, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: onPath, PATH: dir })).toBe(explicit);
    expect(findChromium({ PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: explicit, PATH: dir })).toBe(explicit);
  });

  it('refuses a variable that names no executable', () => {
    expect(() => findChromium({ QK_CHROMIUM_PATH: join(dir, 'missing'), PATH: dir })).toThrow(/QK_CHROMIUM_PATH=.* is not an executable file/);
  });

  it("falls back to the system's chromium on PATH", () => {
    expect(findChromium({ PATH: `/nonexistent:${dir}` })).toBe(onPath);
  });

  it('says what to set when there is none', () => {
    expect(() => findChromium({ PATH: '/nonexistent' })).toThrow(/set QK_CHROMIUM_PATH or PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH/);
  });
});

describe('findHeadlessChromium', () => {
  const fullDir = mkdtempSync(join(dir, 'full-'));
  const shellDir = mkdtempSync(join(dir, 'shell-'));
  const full = join(fullDir, 'chromium');
  const shell = join(shellDir, 'chromium-headless-shell');
  for (const path of [full, shell]) {
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o755);
  }

  it('still takes QK_CHROMIUM_PATH first', () => {
    expect(findHeadlessChromium({ QK_CHROMIUM_PATH: full, PATH: shellDir })).toBe(full);
  });

  it('prefers chromium-headless-shell on PATH to the full browser, wherever each is on PATH', () => {
    expect(findHeadlessChromium({ PATH: `${fullDir}${delimiter}${shellDir}` })).toBe(shell);
  });

  it('falls back to the full browser when PATH has no headless shell', () => {
    expect(findHeadlessChromium({ PATH: fullDir })).toBe(full);
  });

  it('says what to set when PATH has neither', () => {
    expect(() => findHeadlessChromium({ PATH: '/nonexistent' })).toThrow(/set QK_CHROMIUM_PATH or PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH/);
  });
});
