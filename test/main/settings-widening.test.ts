/**
 * Issue 22, finding 8: app.setSettings widened the app's guard (a longer idle lock or re-auth interval, capture
 * protection off, a large-value warning raised or removed) with no confirmation. With an unlock passphrase set, a
 * widening change needs it, checked as an unlock is (counted, with the same back-off); narrowing changes do not.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IpcHandlers } from '../../src/main/ipc/register';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import type { ChannelInput } from '../../src/shared/ipc/contract';
import { rejection } from '../support/assertions';
import { MemoryClipboard } from '../support/memory-clipboard';

/** A change as the page sends it: token thresholds in the token's units. */
type SettingsInput = Omit<ChannelInput<'app.setSettings'>, 'passphrase'>;

const PASSPHRASE = 'correct horse battery staple';
const WRONG = 'correct horse battery stapler';
/** Where each test starts: narrow enough that every widening below is a change. */
const START: SettingsInput = { idleLockMinutes: 10, reauthMinutes: 5, captureProtection: true, warnAbove: { ETH: '1.5', SOL: '100' } };

let dataDir: string;
let clockMs: number;
const opened: MainServices[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-settings-'));
  clockMs = Date.parse('2026-01-01T00:00:00Z');
});
afterEach(async () => {
  for (const services of opened.splice(0)) await services.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function open(options: { passphrase: boolean }): Promise<IpcHandlers> {
  const services = createMainServices({
    dataDir,
    now: () => clockMs,
    keychainServiceName: `QuorumKey-test-${randomUUID()}`,
    clipboard: new MemoryClipboard(),
  });
  opened.push(services);
  const app = { version: '0.0.0-test', platform: process.platform, packaged: false };
  const handlers = createMainHandlers(services, { app, confirm: async () => false });
  await handlers['app.setSettings'](START);
  if (options.passphrase) await handlers['app.setUnlockPassphrase']({ passphrase: PASSPHRASE });
  return handlers;
}

const WIDENING: [string, SettingsInput, RegExp][] = [
  ['a longer idle lock', { idleLockMinutes: 60 }, /locking after 60 idle minutes instead of 10/],
  ['a longer re-auth interval', { reauthMinutes: 60 }, /after 60 minutes instead of 5/],
  ['capture protection off', { captureProtection: false }, /screen capture protection off/],
  [
    'a large-value warning raised',
    { warnAbove: { ETH: '1.50000000000000001', SOL: '100' } },
    /raising the ETH large-value warning from 1\.5 to 1\.50000000000000001/,
  ],
  ['a large-value warning removed', { warnAbove: { ETH: '1.5' } }, /removing the SOL large-value warning \(above 100\)/],
];

const NARROWING: [string, SettingsInput][] = [
  ['a shorter idle lock', { idleLockMinutes: 1 }],
  ['a shorter re-auth interval', { reauthMinutes: 1 }],
  ['capture protection on', { captureProtection: true }],
  ['a large-value warning lowered and one added', { warnAbove: { ETH: '0.5', SOL: '100', BTC: '0.1' } }],
  ['the theme', { theme: 'dark' }],
  ['the same values again', START],
];

describe('finding 8: widening settings ask for the unlock passphrase', () => {
  it.each(WIDENING)('%s: refused without the passphrase and with a wrong one, applied with the right one', async (_label, change, described) => {
    const handlers = await open({ passphrase: true });
    const before = await handlers['app.getSettings']({});

    const missing = await rejection(handlers['app.setSettings'](change));
    expect(missing.code).toBe('PASSPHRASE_REQUIRED');
    expect(missing.message).toMatch(described);
    expect((await rejection(handlers['app.setSettings']({ ...change, passphrase: WRONG }))).code).toBe('PASSPHRASE_INVALID');
    expect(await handlers['app.getSettings']({})).toEqual(before);

    expect(await handlers['app.setSettings']({ ...change, passphrase: PASSPHRASE })).toEqual({ ...before, ...change });
    expect(await handlers['app.getSettings']({})).toEqual({ ...before, ...change });
  });

  it.each(NARROWING)('%s: applied without the passphrase', async (_label, change) => {
    const handlers = await open({ passphrase: true });
    const before = await handlers['app.getSettings']({});
    expect(await handlers['app.setSettings'](change)).toEqual({ ...before, ...change });
  });

  it('a change that narrows one setting and widens another still needs it', async () => {
    const handlers = await open({ passphrase: true });
    expect((await rejection(handlers['app.setSettings']({ idleLockMinutes: 1, reauthMinutes: 60 }))).code).toBe('PASSPHRASE_REQUIRED');
  });

  it('with no passphrase set, nothing is asked', async () => {
    const handlers = await open({ passphrase: false });
    for (const [, change] of WIDENING) await handlers['app.setSettings'](change);
    expect(await handlers['app.getSettings']({})).toMatchObject({
      idleLockMinutes: 60,
      reauthMinutes: 60,
      captureProtection: false,
      warnAbove: { ETH: '1.5' },
    });
  });

  it('wrong passphrases here count with wrong unlocks and wait the same back-off', async () => {
    const handlers = await open({ passphrase: true });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await rejection(handlers['app.setSettings']({ reauthMinutes: 60, passphrase: WRONG }))).code).toBe('PASSPHRASE_INVALID');
    }
    // The fifth wrong guess started a wait: even the right passphrase is not checked until it ends, here or at unlock.
    expect((await rejection(handlers['app.setSettings']({ reauthMinutes: 60, passphrase: PASSPHRASE }))).code).toBe('LIMIT_EXCEEDED');
    await handlers['app.lock']({});
    expect((await rejection(handlers['app.unlock']({ passphrase: PASSPHRASE }))).code).toBe('LIMIT_EXCEEDED');
    clockMs += 1_000;
    await handlers['app.unlock']({ passphrase: PASSPHRASE });
    expect((await handlers['app.setSettings']({ reauthMinutes: 60, passphrase: PASSPHRASE })).reauthMinutes).toBe(60);
  });
});
