import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { p256 } from '@noble/curves/nist.js';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY, Profiles, type ProfileChanges, type ProfileInput } from '../../src/main/profiles/profiles';
import { QkError } from '../../src/shared/errors';
import { rejection } from '../support/assertions';

const ORG = '5f2c3e4a-0b1d-4c6e-9f8a-7b6c5d4e3f21';
const hosted: ProfileInput = {
  name: 'Production',
  kind: 'hosted',
  baseUrl: 'https://api.turnkey.com/',
  organizationId: ORG,
  apiKeyName: 'ops key',
};
const sandboxSigner = Buffer.from(p256.getPublicKey(p256.utils.randomSecretKey(), false)).toString('hex');
const sandbox: ProfileInput = {
  name: 'Sandbox',
  kind: 'sandbox',
  baseUrl: 'http://127.0.0.1:8081',
  organizationId: ORG,
  apiKeyName: 'sandbox-root',
  enclaveSignerPublicKey: sandboxSigner,
};

let dir: string;
let profiles: Profiles;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qk-profiles-'));
  profiles = new Profiles({ dataDir: dir });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Profiles', () => {
  it('adds, lists, gets, updates, activates and removes profiles, persisting across instances', async () => {
    const production = await profiles.add(hosted);
    expect(production.enclaveSignerPublicKey).toBe(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);
    expect(production.baseUrl).toBe('https://api.turnkey.com');
    const local = await profiles.add(sandbox);
    expect(local.enclaveSignerPublicKey).toBe(sandboxSigner);

    await profiles.setActive(local.id);
    const reopened = new Profiles({ dataDir: dir });
    expect((await reopened.list()).map((profile) => profile.name)).toEqual(['Production', 'Sandbox']);
    expect(await reopened.getActive()).toEqual(local);
    expect(await reopened.get(production.id)).toEqual(production);

    const updated = await reopened.update(production.id, {
      authProxyUrl: 'https://authproxy.turnkey.com',
      authProxyConfigId: '11111111-2222-4333-8444-555555555555',
    });
    expect(updated).toMatchObject({ name: 'Production', authProxyUrl: 'https://authproxy.turnkey.com' });
    const cleared = await reopened.update(production.id, { authProxyUrl: undefined, authProxyConfigId: undefined });
    expect(cleared).not.toHaveProperty('authProxyUrl');
    expect(cleared).not.toHaveProperty('authProxyConfigId');

    await profiles.remove(local.id);
    expect(await profiles.getActive()).toBeUndefined();
    expect((await profiles.list()).map((profile) => profile.id)).toEqual([production.id]);
  });

  it('follows API key renames and reports which profiles use a key', async () => {
    const first = await profiles.add(hosted);
    await profiles.add({ ...sandbox, apiKeyName: 'ops key' });
    await profiles.add({ ...sandbox, name: 'Other', apiKeyName: 'other' });
    expect((await profiles.usingApiKey('ops key')).length).toBe(2);
    expect(await profiles.renameApiKeyReferences('ops key', 'ops key 2')).toBe(2);
    expect((await profiles.get(first.id)).apiKeyName).toBe('ops key 2');
    expect(await profiles.usingApiKey('ops key')).toEqual([]);
  });

  it('refuses unknown ids and duplicate names', async () => {
    const production = await profiles.add(hosted);
    const missing = '00000000-0000-4000-8000-000000000000';
    // Each call starts only when awaited: a rejection left pending while an earlier one is awaited counts as unhandled.
    const attempts = [
      () => profiles.get(missing),
      () => profiles.setActive(missing),
      () => profiles.remove(missing),
      () => profiles.update(missing, {}),
    ];
    for (const attempt of attempts) {
      expect((await rejection(attempt())).code).toBe('PROFILE_NOT_FOUND');
    }
    const duplicate = await rejection(profiles.add({ ...sandbox, name: 'Production' }));
    expect(duplicate.code).toBe('ALREADY_EXISTS');
    expect(duplicate.details).toEqual({ field: 'name' });
    await profiles.update(production.id, { name: 'Production' });
  });

  it.each<[string, ProfileChanges & Record<string, unknown>, string, string]>([
    ['plain http to a remote host', { baseUrl: 'http://api.turnkey.com' }, 'baseUrl', 'must use https'],
    ['a non-URL', { baseUrl: 'api.turnkey.com' }, 'baseUrl', 'not a valid URL'],
    ['credentials in the URL', { baseUrl: 'https://user:pw@api.turnkey.com' }, 'baseUrl', 'user name or password'],
    ['a bad auth proxy URL', { authProxyUrl: 'ftp://authproxy.turnkey.com' }, 'authProxyUrl', 'must use https'],
    ['an organization id that is not a UUID', { organizationId: 'org-1' }, 'organizationId', 'must be a UUID'],
    ['a missing organization id', { organizationId: undefined }, 'organizationId', 'is required'],
    ['an invalid API key name', { apiKeyName: 'bad/name' }, 'apiKeyName', 'profile.apiKeyName contains "/"'],
    ['a compressed signer key', { enclaveSignerPublicKey: `02${'ab'.repeat(32)}` }, 'enclaveSignerPublicKey', '130 hex'],
    ['a signer key off the curve', { enclaveSignerPublicKey: `04${'00'.repeat(64)}` }, 'enclaveSignerPublicKey', 'not a point'],
    ['an unknown kind', { kind: 'cloud' as never }, 'kind', 'must be "sandbox" or "hosted"'],
    ['a blank name', { name: '  ' }, 'name', '1-64 characters'],
    ['a bad auth proxy config id', { authProxyConfigId: 'cfg' }, 'authProxyConfigId', 'must be a UUID'],
  ])('rejects %s, naming the field', async (_label, change, field, phrase) => {
    // Deliberately not a ProfileInput: a required field may be missing, which add must refuse.
    const error = await rejection(profiles.add({ ...hosted, ...change } as ProfileInput));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.details).toEqual({ field });
    expect(error.message).toContain(field);
    expect(error.message).toContain(phrase);
    expect(await profiles.list()).toEqual([]);
  });

  it('allows plain http only on loopback for hosted profiles, and only loopback for sandbox profiles', async () => {
    await profiles.add({ ...hosted, name: 'tunnel', baseUrl: 'http://localhost:9000' });
    await profiles.add({ ...hosted, name: 'v6', baseUrl: 'http://[::1]:9000' });
    const remoteSandbox = await rejection(profiles.add({ ...sandbox, baseUrl: 'https://api.turnkey.com' }));
    expect(remoteSandbox.details).toEqual({ field: 'baseUrl' });
    const noSigner = await rejection(profiles.add({ ...sandbox, enclaveSignerPublicKey: undefined }));
    expect(noSigner.details).toEqual({ field: 'enclaveSignerPublicKey' });
  });

  it('re-validates the whole profile on update', async () => {
    const local = await profiles.add({ ...hosted, name: 'local', baseUrl: 'http://127.0.0.1:1' });
    const error = await rejection(profiles.update(local.id, { baseUrl: 'http://example.com' }));
    expect(error.details).toEqual({ field: 'baseUrl' });
    expect((await profiles.get(local.id)).baseUrl).toBe('http://127.0.0.1:1');
  });

  it('hands a change check the stored and the validated next profile, and writes nothing when it throws', async () => {
    const production = await profiles.add(hosted);
    const seen: [string | undefined, string][] = [];
    const refuse = async (before: { baseUrl: string } | undefined, after: { baseUrl: string }) => {
      seen.push([before?.baseUrl, after.baseUrl]);
      throw new QkError('USER_DECLINED', 'declined');
    };
    expect((await rejection(profiles.update(production.id, { baseUrl: 'https://elsewhere.example/' }, refuse))).code).toBe('USER_DECLINED');
    expect((await rejection(profiles.add({ ...hosted, name: 'Second' }, refuse))).code).toBe('USER_DECLINED');
    expect(seen).toEqual([
      ['https://api.turnkey.com', 'https://elsewhere.example'],
      [undefined, 'https://api.turnkey.com'],
    ]);
    expect(await profiles.list()).toEqual([production]);
  });
});
