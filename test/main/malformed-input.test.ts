/**
 * Walks EVERY channel with malformed inputs against the real services (real OS keychain via the secret-service
 * wrapper) and asserts typed errors, no throw, no handler reached, and a data directory left byte-for-byte as it was.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channels, ipcContract } from '../../src/shared/ipc/contract';
import { validInputs } from '../support/valid-inputs';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import { createDispatch, type Dispatch } from '../../src/main/ipc/register';
import { createRendererUrlCheck } from '../../src/main/ipc/sender';
import { MemoryClipboard } from '../support/memory-clipboard';

const RENDERER_INDEX = '/opt/QuorumKey/out/renderer/index.html';
const RENDERER_URL = `file://${RENDERER_INDEX}`;

const HUGE = 'x'.repeat(1_000_000);

/** Malformed variants of `valid`: non-objects, pollution keys, extra fields, and per field: wrong type, huge, absent. */
function malformedVariants(valid: Record<string, unknown>): unknown[] {
  const variants: unknown[] = [
    null,
    'keys',
    42,
    [],
    [valid],
    JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(valid).slice(1, -1) || '"x": 1'}}`),
    { ...valid, constructor: { prototype: { polluted: true } } },
    { ...valid, privateKey: 'ff'.repeat(32), extra: true },
    { ...valid, [HUGE]: 1 },
  ];
  for (const [field, value] of Object.entries(valid)) {
    variants.push({ ...valid, [field]: typeof value === 'number' ? 'five' : 17 });
    variants.push({ ...valid, [field]: HUGE });
    variants.push({ ...valid, [field]: { toString: 'x' } });
    const { [field]: _removed, ...without } = valid;
    variants.push(without);
  }
  return variants;
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files[path] = await readFile(path, 'utf8');
    }
  }
  return files;
}

let dataDir: string;
let services: MainServices;
let dispatch: Dispatch;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-ipc-'));
  services = createMainServices({ dataDir, keychainServiceName: `QuorumKey-test-${randomUUID()}`, clipboard: new MemoryClipboard() });
  const handlers = createMainHandlers(services, {
    app: { version: '0.0.0-test', platform: process.platform, packaged: false },
    // Nothing here redirects a profile; declining makes any change that needed the user's consent fail loudly.
    confirm: async () => false,
  });
  dispatch = createDispatch({ handlers, isTrustedSender: createRendererUrlCheck({ rendererIndexPath: RENDERER_INDEX }) });
  // Some real state, so that a malformed rename or delete that slipped through would show.
  for (const [name, input] of [
    ['keys.generateApiKey', { name: 'ops' }],
    ['keys.generateEncryptionKey', { name: 'target' }],
    ['app.setSettings', { idleLockMinutes: 3 }],
  ] as const) {
    expect(await dispatch(name, input, RENDERER_URL), name).toMatchObject({ ok: true });
  }
});

afterAll(async () => {
  for (const key of await services.keychain.listApiKeys()) await services.keychain.deleteApiKey(key.name);
  for (const key of await services.keychain.listEncryptionKeys()) await services.keychain.deleteEncryptionKey(key.name);
  await rm(dataDir, { recursive: true, force: true });
});

describe('every channel with malformed input', () => {
  it('answers REQUEST_INVALID, never throws, and writes nothing', async () => {
    const before = await snapshot(dataDir);
    expect(Object.keys(before).length).toBeGreaterThan(0);
    let walked = 0;
    for (const name of channels) {
      for (const input of malformedVariants(validInputs[name])) {
        // Only variants the contract itself refuses: a variant that happens to be valid would legitimately run.
        if (ipcContract[name].input.safeParse(input).success) continue;
        const result = await dispatch(name, input, RENDERER_URL);
        expect(result, `${name} ${JSON.stringify(input)?.slice(0, 120)}`).toMatchObject({
          ok: false,
          error: { code: 'REQUEST_INVALID' },
        });
        expect(JSON.stringify(result).length).toBeLessThan(5_000);
        walked += 1;
      }
    }
    expect(walked).toBeGreaterThan(channels.length * 8);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await snapshot(dataDir)).toEqual(before);
    expect((await services.keychain.listApiKeys()).map((key) => key.name)).toEqual(['ops']);
  });

  it('the valid inputs themselves pass the contract, so the variants test the field they change', () => {
    for (const name of channels) expect(ipcContract[name].input.safeParse(validInputs[name]).success, name).toBe(true);
  });

  it('serves a real keychain call end to end, with no private key in the answer', async () => {
    const result = await dispatch('keys.listApiKeys', {}, RENDERER_URL);
    expect(result).toMatchObject({ ok: true, value: [{ name: 'ops', curve: 'p256', missing: false }] });
    expect(JSON.stringify(result)).not.toMatch(/private/i);
  });
});
