/**
 * Settings' simulation nodes: each key is an EVM chain as CAIP-2 names it and each value an http(s) URL, refused
 * otherwise with a message naming what was expected; with an unlock passphrase set, a node set or replaced needs it
 * (a page could point a chain at a node that makes a drain look harmless), while removing one does not.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IpcHandlers } from '../../src/main/ipc/register';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import { ipcContract } from '../../src/shared/ipc/contract';
import { rejection } from '../support/assertions';
import { MemoryClipboard } from '../support/memory-clipboard';

const PASSPHRASE = 'correct horse battery staple';
const MAINNET_NODE = 'https://node.example/rpc';

let dataDir: string;
const opened: MainServices[] = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-simulation-settings-'));
});
afterEach(async () => {
  for (const services of opened.splice(0)) await services.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function open(): Promise<IpcHandlers> {
  const services = createMainServices({
    dataDir,
    now: () => Date.parse('2026-01-01T00:00:00Z'),
    keychainServiceName: `QuorumKey-test-${randomUUID()}`,
    clipboard: new MemoryClipboard(),
  });
  opened.push(services);
  const handlers = createMainHandlers(services, {
    app: { version: '0.0.0-test', platform: process.platform, packaged: false },
    confirm: async () => false,
  });
  await handlers['app.setSettings']({ nodeUrls: { 'eip155:1': MAINNET_NODE } });
  await handlers['app.setUnlockPassphrase']({ passphrase: PASSPHRASE });
  return handlers;
}

const input = ipcContract['app.setSettings'].input;
const issueOf = (nodeUrls: unknown) => {
  const parsed = input.safeParse({ nodeUrls });
  return parsed.success ? 'accepted' : parsed.error.issues.map((issue) => issue.message).join('; ');
};

describe('simulation nodes in Settings', () => {
  it('takes EVM chains as CAIP-2 names them, with http or https URLs, and says what it expected otherwise', () => {
    expect(issueOf({ 'eip155:1': 'https://node.example/rpc', 'eip155:8453': 'http://127.0.0.1:8545' })).toBe('accepted');
    expect(issueOf({ ethereum: MAINNET_NODE })).toBe('expected an EVM chain as CAIP-2 names it, like eip155:1');
    expect(issueOf({ 'eip155:0': MAINNET_NODE })).toBe('expected an EVM chain as CAIP-2 names it, like eip155:1');
    expect(issueOf({ 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': MAINNET_NODE })).toBe('expected an EVM chain as CAIP-2 names it, like eip155:1');
    expect(issueOf({ 'eip155:1': 'javascript:alert(1)' })).toBe('expected the node’s http:// or https:// URL');
    expect(issueOf({ 'eip155:1': 'node.example' })).toBe('expected the node’s http:// or https:// URL');
    expect(issueOf({ 'eip155:1': `https://node.example/${'a'.repeat(2000)}` })).toBe('expected a node URL of at most 2,000 characters');
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`eip155:${index + 1}`, MAINNET_NODE]));
    expect(issueOf(many)).toBe('at most 100 chains may have a node');
  });

  it('asks for the unlock passphrase to set or replace a node, not to remove one', async () => {
    const handlers = await open();
    const added = { 'eip155:1': MAINNET_NODE, 'eip155:8453': 'https://base.example' };
    const refused = await rejection(handlers['app.setSettings']({ nodeUrls: added }));
    expect(refused.code).toBe('PASSPHRASE_REQUIRED');
    expect(refused.message).toContain('simulating eip155:8453 transactions on the state https://base.example gives');
    const replaced = await rejection(handlers['app.setSettings']({ nodeUrls: { 'eip155:1': 'https://other.example' } }));
    expect(replaced.message).toContain(`simulating eip155:1 transactions on the state https://other.example gives instead of ${MAINNET_NODE}`);
    expect((await handlers['app.getSettings']({})).nodeUrls).toEqual({ 'eip155:1': MAINNET_NODE });

    expect((await handlers['app.setSettings']({ nodeUrls: added, passphrase: PASSPHRASE })).nodeUrls).toEqual(added);
    expect((await handlers['app.setSettings']({ nodeUrls: {} })).nodeUrls).toEqual({});
  });
});
