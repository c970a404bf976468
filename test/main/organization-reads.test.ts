/**
 * A profile's one read of its organization (src/main/organization/read-model.ts): kept until an event says the
 * organization changed or it is ORGANIZATION_READ_TTL_MS old, read anew when it does not know what a caller names,
 * and never kept when the read failed. Over a client that answers from a counter, so each read is told apart.
 */
import { describe, expect, it } from 'vitest';
import { changesOrganization, ORGANIZATION_READ_TTL_MS, OrganizationReadModels, OrganizationReads } from '../../src/main/organization/read-model';
import type { ApiClient } from '../../src/main/client/api-client';

/** A client whose whoami names the read it belongs to, and which fails while `failing` is set. */
function countingClient() {
  const state = { whoamis: 0, failing: false };
  const client = {
    query: (operation: string) => {
      if (state.failing) return Promise.reject(new Error('the service is down'));
      switch (operation) {
        case 'whoami':
          state.whoamis += 1;
          return Promise.resolve({ userId: `read ${state.whoamis}`, username: 'Bea', organizationId: 'org', organizationName: 'Org' });
        case 'get_organization':
          return Promise.resolve({ organizationData: {} });
        case 'list_wallet_accounts':
          return Promise.resolve({ accounts: [] });
        default:
          return Promise.resolve({ smartContractInterfaces: [] });
      }
    },
  } as unknown as Pick<ApiClient, 'query'>;
  return { client, state };
}

describe('OrganizationReads', () => {
  it('keeps one read until it is forgotten or grows older than its time to live', async () => {
    const { client } = countingClient();
    let nowMs = 0;
    const reads = new OrganizationReads(client, () => nowMs);
    expect((await reads.snapshot()).viewer.userId).toBe('read 1');
    nowMs = ORGANIZATION_READ_TTL_MS;
    expect((await reads.snapshot()).viewer.userId).toBe('read 1');
    nowMs += 1;
    expect((await reads.snapshot()).viewer.userId).toBe('read 2');
    reads.forget();
    expect((await reads.snapshot()).viewer.userId).toBe('read 3');
  });

  it('reads anew when the kept read does not know what the caller names', async () => {
    const { client } = countingClient();
    const reads = new OrganizationReads(client, () => 0);
    await reads.snapshot();
    expect((await reads.snapshot((snapshot) => snapshot.viewer.userId === 'read 1')).viewer.userId).toBe('read 1');
    expect((await reads.snapshot((snapshot) => snapshot.viewer.userId === 'read 2')).viewer.userId).toBe('read 2');
  });

  it('does not keep a read that failed', async () => {
    const { client, state } = countingClient();
    const reads = new OrganizationReads(client, () => 0);
    state.failing = true;
    await expect(reads.snapshot()).rejects.toThrow('the service is down');
    state.failing = false;
    expect((await reads.snapshot()).viewer.userId).toBe('read 1');
  });
});

describe('OrganizationReadModels', () => {
  it("shares a profile's read, forgets an organization's reads, and starts over for an edited profile", async () => {
    const { client } = countingClient();
    const models = new OrganizationReadModels(() => 0);
    const profile = { id: 'p1', organizationId: 'org', name: 'Bea' };
    const reads = models.of(profile, client);
    expect(models.of(profile, client)).toBe(reads);
    await reads.snapshot();
    models.forget('another organization');
    expect((await reads.snapshot()).viewer.userId).toBe('read 1');
    models.forget('org');
    expect((await reads.snapshot()).viewer.userId).toBe('read 2');
    const edited = { ...profile, name: 'Bea 2' };
    expect(models.of(edited, client)).not.toBe(reads);
  });
});

describe('changesOrganization', () => {
  it('keeps the snapshot after a signature, and drops it after anything else that ran or a type it does not know', () => {
    for (const signing of ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS']) {
      expect(changesOrganization(signing), signing).toBe(false);
    }
    for (const changing of [
      'ACTIVITY_TYPE_CREATE_USERS_V3',
      'ACTIVITY_TYPE_CREATE_POLICIES',
      'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
      'ACTIVITY_TYPE_CREATE_WALLET',
      'ACTIVITY_TYPE_EXPORT_WALLET',
      'ACTIVITY_TYPE_NOT_YET_INVENTED',
    ]) {
      expect(changesOrganization(changing), changing).toBe(true);
    }
  });
});
