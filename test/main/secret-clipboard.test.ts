/**
 * Issue 15, finding 4: "Copied secrets stay on the clipboard." Copy and clear run in main on the system clipboard
 * (an in-memory one here), so the clear no longer depends on the window having focus.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IpcHandlers } from '../../src/main/ipc/register';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import { SecretClipboard } from '../../src/main/clipboard/secret-clipboard';
import { MemoryClipboard } from '../support/memory-clipboard';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('finding 4: copied secrets stay on the clipboard', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('clears a copied secret after 30 s, with no window focus involved', async () => {
    const clipboard = new MemoryClipboard();
    const secrets = new SecretClipboard({ clipboard });
    await secrets.copy(MNEMONIC);
    expect(clipboard.text).toBe(MNEMONIC);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(clipboard.text).toBe(MNEMONIC);
    await vi.advanceTimersByTimeAsync(1);
    expect(clipboard.text).toBe('');
  });

  it('leaves the clipboard alone when the person copied something else meanwhile', async () => {
    const clipboard = new MemoryClipboard();
    const secrets = new SecretClipboard({ clipboard });
    await secrets.copy(MNEMONIC);
    clipboard.text = 'a shopping list';
    await vi.advanceTimersByTimeAsync(30_000);
    expect(clipboard.text).toBe('a shopping list');
    await secrets.clearCopied();
    expect(clipboard.text).toBe('a shopping list');
  });

  it('restarts the delay for a second copy and clears only that one', async () => {
    const clipboard = new MemoryClipboard();
    const secrets = new SecretClipboard({ clipboard, clearAfterMs: 1_000 });
    await secrets.copy('first secret');
    await vi.advanceTimersByTimeAsync(800);
    await secrets.copy('second secret');
    await vi.advanceTimersByTimeAsync(800);
    expect(clipboard.text).toBe('second secret');
    await vi.advanceTimersByTimeAsync(200);
    expect(clipboard.text).toBe('');
  });

  it('clears a pasted secret only while the clipboard still holds it (surrounding whitespace aside)', async () => {
    const clipboard = new MemoryClipboard();
    const secrets = new SecretClipboard({ clipboard });
    clipboard.text = `${MNEMONIC}\n`;
    await secrets.clearPasted('something else');
    expect(clipboard.text).toBe(`${MNEMONIC}\n`);
    await secrets.clearPasted(MNEMONIC);
    expect(clipboard.text).toBe('');
  });

  it('logs, instead of rejecting, when the clipboard cannot be read at clear time', async () => {
    const failures: string[] = [];
    const clipboard = new MemoryClipboard();
    clipboard.readText = () => Promise.reject(new Error('no display'));
    const secrets = new SecretClipboard({ clipboard, log: (message) => failures.push(message) });
    await secrets.copy(MNEMONIC);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(failures).toEqual(['could not clear the copied secret from the clipboard']);
  });
});

describe('finding 4 in the composed services: clear on lock and on quit', () => {
  let dataDir: string;
  let services: MainServices | undefined;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'qk-clipboard-'));
  });
  afterEach(async () => {
    await services?.close();
    services = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  function build(clipboard: MemoryClipboard): MainServices & { handlers: IpcHandlers } {
    services = createMainServices({ dataDir, keychainServiceName: `QuorumKey-test-${randomUUID()}`, clipboard });
    const app = { version: '0.0.0-test', platform: process.platform, packaged: false };
    return { ...services, handlers: createMainHandlers(services, { app, confirm: async () => false }) };
  }

  it('copySecret puts the secret on the system clipboard; locking clears it', async () => {
    const clipboard = new MemoryClipboard();
    const { handlers, lock } = build(clipboard);
    expect(await handlers['clipboard.copySecret']({ text: MNEMONIC })).toEqual({ clearAfterMs: 30_000 });
    expect(clipboard.text).toBe(MNEMONIC);
    lock.lock();
    await vi.waitFor(() => expect(clipboard.text).toBe(''));
  });

  it('closing (quitting) clears a copied secret', async () => {
    const clipboard = new MemoryClipboard();
    const built = build(clipboard);
    await built.handlers['clipboard.copySecret']({ text: MNEMONIC });
    await built.close();
    services = undefined;
    expect(clipboard.text).toBe('');
  });

  it('clearPasted empties the clipboard after a paste of what it holds', async () => {
    const clipboard = new MemoryClipboard();
    const { handlers } = build(clipboard);
    clipboard.text = MNEMONIC;
    await handlers['clipboard.clearPasted']({ text: MNEMONIC });
    expect(clipboard.text).toBe('');
  });
});
