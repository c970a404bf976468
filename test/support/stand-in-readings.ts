/**
 * Main's readings of a profile's activities as the app makes them, for the inbox's test and bench, whose activities
 * are renames: no encryption keys or declared tokens to look up, and nothing to sign, so no signing context is read.
 */
import { Readings } from '../../src/main/activities/readings';
import type { ApiClient } from '../../src/main/client/api-client';
import { readOrganization } from '../../src/main/signing/organization';

export function standInReadings(options: { profileName: string; client: () => ApiClient; now: () => number }): Readings {
  return new Readings({
    keychain: { listEncryptionKeys: async () => [] },
    tokens: { list: async () => [] },
    now: options.now,
    profileName: options.profileName,
    organization: () => readOrganization(options.client()),
    signing: () => Promise.reject(new Error('these renames sign nothing')),
  });
}
