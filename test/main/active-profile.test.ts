import { describe, expect, it } from 'vitest';
import { ActiveProfile } from '../../src/main/profiles/active-profile';
import type { Profile } from '../../src/main/profiles/profiles';
import { rejection } from '../support/assertions';

const hosted: Profile = {
  id: '4b1e3f0c-5a0e-4c55-9d33-1f2a7e9c0b11',
  name: 'Hosted',
  kind: 'hosted',
  baseUrl: 'https://api.turnkey.com',
  organizationId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  apiKeyName: 'ops',
  enclaveSignerPublicKey: '04' + 'ef'.repeat(64),
};

function activeProfile(current: () => Profile | undefined, sandboxRunning = false) {
  return new ActiveProfile({
    profiles: { getActive: async () => current() },
    keychain: {
      withEncryptionPrivateKey: async () => Promise.reject(new Error('unused')),
      listEncryptionKeys: async () => [],
      holdOneTimeKey: async () => Promise.reject(new Error('unused')),
      withOneTimeKey: async () => Promise.reject(new Error('unused')),
    },
    stamper: { stamp: async () => Promise.reject(new Error('unused')) },
    sandbox: { isRunning: sandboxRunning },
    now: () => 0,
  });
}

describe('ActiveProfile', () => {
  it('keeps one set of services per profile and rebuilds them when any field of the active profile changes', async () => {
    let profile: Profile | undefined = hosted;
    const active = activeProfile(() => profile);
    const first = await active.services();
    expect(await active.services()).toBe(first);
    expect(first.client.organizationId).toBe(hosted.organizationId);

    profile = { ...hosted, apiKeyName: 'other' };
    const rebuilt = await active.services();
    expect(rebuilt).not.toBe(first);
    expect(rebuilt.profile.apiKeyName).toBe('other');

    profile = { ...hosted, id: '0c4e3f0c-5a0e-4c55-9d33-1f2a7e9c0b12', organizationId: '1a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' };
    expect((await active.services()).client.organizationId).toBe('1a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d');

    profile = undefined;
    expect((await rejection(active.services())).code).toBe('FAILED_PRECONDITION');
  });

  it('refuses the Sandbox profile while the sandbox is stopped', async () => {
    const sandboxProfile: Profile = { ...hosted, name: 'Sandbox', kind: 'sandbox' };
    expect((await rejection(activeProfile(() => sandboxProfile).services())).message).toMatch(/Sandbox.*not running/);
    expect((await activeProfile(() => sandboxProfile, true).services()).profile).toBe(sandboxProfile);
  });
});
