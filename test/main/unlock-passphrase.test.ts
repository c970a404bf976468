/**
 * Issue 15, finding 5: "Unlock asks for nothing." The unlock passphrase is checked in main with scrypt, stored as
 * salt and hash only, rate-limited, asked again before a reveal once the last unlock is old, and Touch ID may stand
 * in for it where the Mac offers it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IpcHandlers } from '../../src/main/ipc/register';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import { AppLock } from '../../src/main/lock/lock';
import { UNLOCK_PASSPHRASE_FILE, UnlockPassphrase } from '../../src/main/lock/unlock-passphrase';
import { Unlocker, type TouchId } from '../../src/main/lock/unlocker';
import { rejection } from '../support/assertions';
import { MemoryClipboard } from '../support/memory-clipboard';

const PASSPHRASE = 'correct horse battery staple';

let dataDir: string;
let clockMs: number;
const now = () => clockMs;
const opened: MainServices[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-unlock-'));
  clockMs = Date.parse('2026-01-01T00:00:00Z');
});
afterEach(async () => {
  for (const services of opened.splice(0)) await services.close();
  await rm(dataDir, { recursive: true, force: true });
});

function open(options: { touchId?: TouchId } = {}): MainServices & { handlers: IpcHandlers } {
  const services = createMainServices({
    dataDir,
    now,
    keychainServiceName: `QuorumKey-test-${randomUUID()}`,
    clipboard: new MemoryClipboard(),
    ...options,
  });
  opened.push(services);
  const app = { version: '0.0.0-test', platform: process.platform, packaged: false };
  return { ...services, handlers: createMainHandlers(services, { app, confirm: async () => false }) };
}

describe('finding 5: unlock asks for nothing', () => {
  it('once a passphrase is set, app.unlock refuses no passphrase and a wrong one, and unlocks with the right one', async () => {
    const { handlers, lock } = open();
    await handlers['app.setUnlockPassphrase']({ passphrase: PASSPHRASE });
    await handlers['app.lock']({});

    expect((await rejection(handlers['app.unlock']({}))).code).toBe('PASSPHRASE_INVALID');
    expect((await rejection(handlers['app.unlock']({ passphrase: 'correct horse battery stapler' }))).code).toBe('PASSPHRASE_INVALID');
    expect(lock.locked).toBe(true);
    expect((await rejection(handlers['keys.listApiKeys']({}))).code).toBe('APP_LOCKED');

    await handlers['app.unlock']({ passphrase: PASSPHRASE });
    expect(lock.locked).toBe(false);
    expect(await handlers['app.info']({})).toMatchObject({ locked: false, unlockPassphraseSet: true, touchIdAvailable: false });
  });

  it('starts locked when a passphrase is set, so restarting the app is no way around it', async () => {
    await open().handlers['app.setUnlockPassphrase']({ passphrase: PASSPHRASE });
    const restarted = open();
    expect(restarted.lock.locked).toBe(true);
    expect((await rejection(restarted.handlers['app.unlock']({}))).code).toBe('PASSPHRASE_INVALID');
  });

  it('asks again before revealing a secret when the last unlock is older than the setting (default 5 min)', async () => {
    const { handlers } = open();
    await handlers['app.setUnlockPassphrase']({ passphrase: PASSPHRASE });
    const reveal = () => handlers['exports.decryptBundle']({ bundle: '{}', encryptionKeyName: 'vault', organizationId: 'o', signerPublicKey: '04' });

    clockMs += 5 * 60_000 + 1;
    const asked = await rejection(reveal());
    expect(asked.code).toBe('REAUTH_REQUIRED');
    expect((await rejection(handlers['app.reauthenticate']({ passphrase: 'not it at all' }))).code).toBe('PASSPHRASE_INVALID');
    expect((await rejection(reveal())).code).toBe('REAUTH_REQUIRED');

    await handlers['app.reauthenticate']({ passphrase: PASSPHRASE });
    // Past the re-ask: the bundle itself is what fails now.
    expect((await rejection(reveal())).code).not.toBe('REAUTH_REQUIRED');

    await handlers['app.setSettings']({ reauthMinutes: 1 });
    clockMs += 60_001;
    expect((await rejection(reveal())).code).toBe('REAUTH_REQUIRED');
  });

  it('without a passphrase, unlocking stays the privacy lock it was, and reveals are not re-asked', async () => {
    const { handlers, lock } = open();
    await handlers['app.lock']({});
    await handlers['app.unlock']({});
    expect(lock.locked).toBe(false);
    clockMs += 60 * 60_000;
    expect(
      (await rejection(handlers['exports.decryptBundle']({ bundle: '{}', encryptionKeyName: 'vault', organizationId: 'o', signerPublicKey: '04' })))
        .code,
    ).not.toBe('REAUTH_REQUIRED');
  });
});

describe('UnlockPassphrase', () => {
  it('stores only a random salt and an scrypt hash (N >= 2^15), never the passphrase', async () => {
    const first = new UnlockPassphrase({ dataDir, now });
    await first.set(PASSPHRASE);
    const stored = await readFile(join(dataDir, UNLOCK_PASSPHRASE_FILE), 'utf8');
    expect(stored).not.toContain(PASSPHRASE);
    expect(stored).not.toContain(Buffer.from(PASSPHRASE).toString('hex'));
    const record = JSON.parse(stored) as { kdf: string; N: number; salt: string; hash: string };
    expect(record).toMatchObject({ kdf: 'scrypt', N: 2 ** 15 });

    const otherDir = await mkdtemp(join(tmpdir(), 'qk-unlock-other-'));
    try {
      await new UnlockPassphrase({ dataDir: otherDir, now }).set(PASSPHRASE);
      const other = JSON.parse(await readFile(join(otherDir, UNLOCK_PASSPHRASE_FILE), 'utf8')) as typeof record;
      expect(other.salt).not.toBe(record.salt);
      expect(other.hash).not.toBe(record.hash);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('makes wrong guesses wait, doubling after five, and keeps the count across restarts', async () => {
    const passphrase = new UnlockPassphrase({ dataDir, now });
    await passphrase.set(PASSPHRASE);
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect((await rejection(passphrase.verify(`wrong ${attempt}`))).details).toEqual({ retryAfterMs: 0 });
    }
    expect((await rejection(passphrase.verify('wrong 5'))).details).toEqual({ retryAfterMs: 1_000 });

    const restarted = new UnlockPassphrase({ dataDir, now });
    const waiting = await rejection(restarted.verify(PASSPHRASE));
    expect(waiting.code).toBe('LIMIT_EXCEEDED');
    clockMs += 1_000;
    expect((await rejection(restarted.verify('wrong 6'))).details).toEqual({ retryAfterMs: 2_000 });
    clockMs += 2_000;
    await restarted.verify(PASSPHRASE);
    expect((await rejection(restarted.verify('wrong again'))).details).toEqual({ retryAfterMs: 0 });
  });

  it('changes only with the current passphrase, and refuses passphrases too short or padded with spaces', async () => {
    const passphrase = new UnlockPassphrase({ dataDir, now });
    expect((await rejection(passphrase.set('short'))).message).toMatch(/8-1024 characters; it has 5/);
    expect((await rejection(passphrase.set(` ${PASSPHRASE}`))).message).toMatch(/must not start or end with spaces/);
    await passphrase.set(PASSPHRASE);
    expect((await rejection(passphrase.set('a new passphrase'))).code).toBe('PASSPHRASE_INVALID');
    expect((await rejection(passphrase.set('a new passphrase', 'a wrong current one'))).code).toBe('PASSPHRASE_INVALID');
    await passphrase.set('a new passphrase', PASSPHRASE);
    await passphrase.verify('a new passphrase');
    expect((await rejection(passphrase.verify(PASSPHRASE))).code).toBe('PASSPHRASE_INVALID');
  });
});

describe('Unlocker with Touch ID', () => {
  function touchId(available: boolean, answer: 'confirm' | 'cancel') {
    const reasons: string[] = [];
    const sensor: TouchId = {
      available: () => available,
      prompt: async (reason) => {
        reasons.push(reason);
        if (answer === 'cancel') throw new Error('User canceled');
      },
    };
    return { sensor, reasons };
  }

  it('unlocks with a confirmed Touch ID once a passphrase is set, and refuses a cancelled one', async () => {
    const lock = new AppLock({ locked: true });
    const passphrase = new UnlockPassphrase({ dataDir, now });
    await passphrase.set(PASSPHRASE);
    const cancelled = touchId(true, 'cancel');
    expect((await rejection(new Unlocker({ lock, passphrase, touchId: cancelled.sensor, now }).unlock({ touchId: true }))).code).toBe(
      'PASSPHRASE_INVALID',
    );
    expect(lock.locked).toBe(true);

    const confirmed = touchId(true, 'confirm');
    await new Unlocker({ lock, passphrase, touchId: confirmed.sensor, now }).unlock({ touchId: true });
    expect(lock.locked).toBe(false);
    expect(confirmed.reasons).toEqual(['unlock QuorumKey']);
  });

  it('refuses Touch ID where the sensor is not available', async () => {
    const passphrase = new UnlockPassphrase({ dataDir, now });
    await passphrase.set(PASSPHRASE);
    const unlocker = new Unlocker({ lock: new AppLock({ locked: true }), passphrase, touchId: touchId(false, 'confirm').sensor, now });
    expect((await rejection(unlocker.unlock({ touchId: true }))).code).toBe('FAILED_PRECONDITION');
    expect(await unlocker.status()).toEqual({ unlockPassphraseSet: true, touchIdAvailable: false });
  });
});
