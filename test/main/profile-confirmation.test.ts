/**
 * A renderer request that redirects a profile (service URL, enclave signer key, API key, organization) or adds a
 * hosted profile waits for the user's answer in main's confirmation; a decline writes nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import { createDispatch, type Dispatch } from '../../src/main/ipc/register';
import { createRendererUrlCheck } from '../../src/main/ipc/sender';
import type { ConfirmationRequest } from '../../src/main/confirmation/confirmation';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY, type Profile } from '../../src/main/profiles/profiles';
import type { Channel, ChannelInput } from '../../src/shared/ipc/contract';
import { MemoryClipboard } from '../support/memory-clipboard';

const RENDERER_INDEX = '/opt/QuorumKey/out/renderer/index.html';
const ORG = '5f2c3e4a-0b1d-4c6e-9f8a-7b6c5d4e3f21';
const otherSigner = () => Buffer.from(p256.getPublicKey(p256.utils.randomSecretKey(), false)).toString('hex');

let dataDir: string;
let services: MainServices;
let dispatch: Dispatch;
let asked: ConfirmationRequest[];
let answer: boolean;
let production: Profile;

const profilesJson = () => readFile(join(dataDir, 'profiles.json'), 'utf8');
const call = <C extends Channel>(channel: C, input: ChannelInput<C>) => dispatch(channel, input, `file://${RENDERER_INDEX}`);

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-confirm-'));
  asked = [];
  answer = true;
  services = createMainServices({ dataDir, keychainServiceName: `QuorumKey-test-${randomUUID()}`, clipboard: new MemoryClipboard() });
  const handlers = createMainHandlers(services, {
    app: { version: '0.0.0-test', platform: process.platform, packaged: false },
    confirm: async (request) => {
      asked.push(request);
      return answer;
    },
  });
  dispatch = createDispatch({ handlers, isTrustedSender: createRendererUrlCheck({ rendererIndexPath: RENDERER_INDEX }) });
  // Seeded by main itself, which needs no confirmation (as when the sandbox records its own URL).
  production = await services.profiles.add({
    name: 'Production',
    kind: 'hosted',
    baseUrl: 'https://api.turnkey.com',
    organizationId: ORG,
    apiKeyName: 'ops',
  });
  expect(asked).toEqual([]);
});

afterEach(async () => {
  await services.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('profile changes that need the user to confirm', () => {
  it('asks before changing the service URL, naming the profile and both URLs, and saves once approved', async () => {
    const result = await call('profiles.update', { id: production.id, changes: { baseUrl: 'https://attacker.example/' } });
    expect(result).toMatchObject({ ok: true, value: { baseUrl: 'https://attacker.example' } });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.title).toBe('Change where a profile sends requests?');
    expect(asked[0]!.message).toBe('Change the service URL of profile "Production"?');
    expect(asked[0]!.detail).toContain('service URL\n  from: https://api.turnkey.com\n  to:   https://attacker.example\n');
    expect((await services.profiles.get(production.id)).baseUrl).toBe('https://attacker.example');
  });

  it('asks before changing the signer key, naming the old and new keys (and the old name when also renamed)', async () => {
    const signer = otherSigner();
    const result = await call('profiles.update', { id: production.id, changes: { enclaveSignerPublicKey: signer, name: 'Prod' } });
    expect(result.ok).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toBe('Change the enclave signer key of profile "Production" (renamed to "Prod")?');
    expect(asked[0]!.detail).toContain(`enclave signer key\n  from: ${PRODUCTION_SIGNER_SIGN_PUBLIC_KEY}\n  to:   ${signer}\n`);
  });

  it('answers USER_DECLINED and leaves profiles.json untouched when the user declines', async () => {
    answer = false;
    const before = await profilesJson();
    const result = await call('profiles.update', {
      id: production.id,
      changes: { baseUrl: 'https://attacker.example', enclaveSignerPublicKey: otherSigner() },
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    expect(asked.map(({ message }) => message)).toEqual(['Change the service URL and enclave signer key of profile "Production"?']);
    expect(await profilesJson()).toBe(before);
  });

  it('asks before adding a hosted profile that trusts a non-production signer, and adds nothing when declined', async () => {
    answer = false;
    const signer = otherSigner();
    const before = await profilesJson();
    const input = {
      name: 'Staging',
      kind: 'hosted',
      baseUrl: 'https://staging.example',
      organizationId: ORG,
      apiKeyName: 'ops',
      enclaveSignerPublicKey: signer,
    } as const;
    expect(await call('profiles.add', input)).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toBe('Add profile "Staging" with an enclave signer key that is not the production signer?');
    expect(asked[0]!.detail).toContain(`Service URL: https://staging.example\nAPI key: ops\nEnclave signer key: ${signer}\n`);
    expect(await profilesJson()).toBe(before);

    answer = true;
    expect(await call('profiles.add', input)).toMatchObject({ ok: true, value: { name: 'Staging', enclaveSignerPublicKey: signer } });
    expect(asked).toHaveLength(2);
  });

  it('asks nothing for edits that do not redirect a profile', async () => {
    answer = false;
    expect(await call('profiles.update', { id: production.id, changes: { name: 'Renamed', organizationId: ORG, apiKeyName: 'ops' } })).toMatchObject({
      ok: true,
      value: { name: 'Renamed' },
    });
    // The same URL spelled with a trailing slash is the same URL once normalized.
    expect((await call('profiles.update', { id: production.id, changes: { baseUrl: 'https://api.turnkey.com/' } })).ok).toBe(true);
    expect(asked).toEqual([]);
  });

  it('asks before adding any hosted profile, even on the production signer: it sends an existing key to a new URL', async () => {
    answer = false;
    const before = await profilesJson();
    const input = { name: 'Second', kind: 'hosted', baseUrl: 'https://elsewhere.example', organizationId: ORG, apiKeyName: 'ops' } as const;
    expect(await call('profiles.add', input)).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    expect(asked.map(({ message }) => message)).toEqual([
      'Add profile "Second", which signs requests with API key "ops" and sends them to https://elsewhere.example?',
    ]);
    expect(await profilesJson()).toBe(before);

    answer = true;
    const added = await call('profiles.add', input);
    expect(added).toMatchObject({ ok: true, value: { enclaveSignerPublicKey: PRODUCTION_SIGNER_SIGN_PUBLIC_KEY } });
  });

  it('does not ask about a change that is invalid anyway', async () => {
    const result = await call('profiles.update', { id: production.id, changes: { baseUrl: 'http://attacker.example' } });
    expect(result).toMatchObject({ ok: false, error: { code: 'REQUEST_INVALID' } });
    expect(asked).toEqual([]);
  });
});

describe('issue 36, finding 1: a page swaps a profile’s API key without a confirmation', () => {
  it('asks before changing the API key and organization, naming the key, the URL and the organization; a decline saves nothing', async () => {
    answer = false;
    const before = await profilesJson();
    const otherOrganization = randomUUID();
    const result = await call('profiles.update', { id: production.id, changes: { apiKeyName: 'treasury', organizationId: otherOrganization } });
    expect(result).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    expect(await profilesJson()).toBe(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.title).toBe('Sign requests for a profile with another key or organization?');
    expect(asked[0]!.message).toBe(
      `Change the API key and organization of profile "Production"? It would sign requests with API key "treasury" for organization ${otherOrganization} and send them to https://api.turnkey.com.`,
    );
    expect(asked[0]!.detail).toContain('API key\n  from: ops\n  to:   treasury\n');
    expect(asked[0]!.detail).toContain(`organization\n  from: ${ORG}\n  to:   ${otherOrganization}\n`);
    expect(asked[0]!.detail).toContain(`Service URL: https://api.turnkey.com\nAPI key: treasury\nOrganization: ${otherOrganization}\n`);

    answer = true;
    expect(
      await call('profiles.update', { id: production.id, changes: { apiKeyName: 'treasury', organizationId: otherOrganization } }),
    ).toMatchObject({
      ok: true,
      value: { apiKeyName: 'treasury', organizationId: otherOrganization },
    });
    expect(asked).toHaveLength(2);
  });

  it('asks before a change of the API key alone, and of the organization alone', async () => {
    answer = false;
    expect(await call('profiles.update', { id: production.id, changes: { apiKeyName: 'treasury' } })).toMatchObject({
      ok: false,
      error: { code: 'USER_DECLINED' },
    });
    expect(await call('profiles.update', { id: production.id, changes: { organizationId: randomUUID() } })).toMatchObject({
      ok: false,
      error: { code: 'USER_DECLINED' },
    });
    expect(asked.map(({ message }) => message.split('?')[0])).toEqual([
      'Change the API key of profile "Production"',
      'Change the organization of profile "Production"',
    ]);
    expect(await services.profiles.get(production.id)).toEqual(production);
  });
});
