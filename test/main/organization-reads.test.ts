/**
 * A profile's one read of its organization (src/main/organization/read-model.ts): kept until an event says the
 * organization changed or it is ORGANIZATION_READ_TTL_MS old, read anew when it does not know what a caller names,
 * and never kept when the read failed. Over a client that answers from a counter, so each read is told apart.
 */
import { describe, expect, it } from 'vitest';
import { changesOrganization, ORGANIZATION_READ_TTL_MS, OrganizationReadModels, OrganizationReads } from '../../src/main/organization/read-model';
import type { ApiClient } from '../../src/main/client/api-client';
import type { Activity } from '../../src/shared/api';

/** A client whose organization is named after the read it belongs to, and which fails while `failing` is set. */
function countingClient() {
  const state = { whoamis: 0, reads: 0, signatureLists: 0, failing: false };
  const client = {
    query: (operation: string) => {
      if (state.failing) return Promise.reject(new Error('the service is down'));
      switch (operation) {
        case 'whoami':
          state.whoamis += 1;
          return Promise.resolve({ userId: 'user-bea', username: 'Bea', organizationId: 'org', organizationName: 'Org' });
        case 'get_organization':
          state.reads += 1;
          return Promise.resolve({ organizationData: { name: `read ${state.reads}` } });
        case 'list_wallet_accounts':
          return Promise.resolve({ accounts: [] });
        case 'list_activities':
          state.signatureLists += 1;
          return Promise.resolve({ activities: [signature(`listed ${state.signatureLists}`, 'ACTIVITY_STATUS_COMPLETED')] });
        default:
          return Promise.resolve({ smartContractInterfaces: [] });
      }
    },
  } as unknown as Pick<ApiClient, 'query'>;
  return { client, state };
}

/** A signed transaction in `status`, as a listing or a vote's answer carries it (its intent is not read here). */
function signature(id: string, status: Activity['status']): Activity {
  return { id, type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', status } as Activity;
}

const ids = (activities: readonly Activity[]) => activities.map(({ id }) => id);

describe('OrganizationReads', () => {
  it('keeps one read until it is forgotten or grows older than its time to live', async () => {
    const { client } = countingClient();
    let nowMs = 0;
    const reads = new OrganizationReads(client, () => nowMs);
    expect((await reads.snapshot()).viewer.organizationName).toBe('read 1');
    nowMs = ORGANIZATION_READ_TTL_MS;
    expect((await reads.snapshot()).viewer.organizationName).toBe('read 1');
    nowMs += 1;
    expect((await reads.snapshot()).viewer.organizationName).toBe('read 2');
    reads.forget();
    expect((await reads.snapshot()).viewer.organizationName).toBe('read 3');
  });

  it('reads anew when the kept read does not know what the caller names', async () => {
    const { client } = countingClient();
    const reads = new OrganizationReads(client, () => 0);
    await reads.snapshot();
    expect((await reads.snapshot((snapshot) => snapshot.viewer.organizationName === 'read 1')).viewer.organizationName).toBe('read 1');
    expect((await reads.snapshot((snapshot) => snapshot.viewer.organizationName === 'read 2')).viewer.organizationName).toBe('read 2');
  });

  it('does not keep a read that failed', async () => {
    const { client, state } = countingClient();
    const reads = new OrganizationReads(client, () => 0);
    state.failing = true;
    await expect(reads.snapshot()).rejects.toThrow('the service is down');
    state.failing = false;
    expect((await reads.snapshot()).viewer.organizationName).toBe('read 1');
  });
});

describe('OrganizationReads around a vote', () => {
  it('serves its kept read whatever its age when only votes changed, and asks who the user is once', async () => {
    const { client, state } = countingClient();
    let nowMs = 0;
    const reads = new OrganizationReads(client, () => nowMs);
    await reads.snapshot();
    nowMs = ORGANIZATION_READ_TTL_MS * 10;
    expect((await reads.snapshot(undefined, { keptOfAnyAge: true })).viewer.organizationName).toBe('read 1');
    expect((await reads.snapshot()).viewer.organizationName).toBe('read 2');
    reads.forget();
    expect((await reads.snapshot(undefined, { keptOfAnyAge: true })).viewer.organizationName).toBe('read 3');
    expect(state.whoamis).toBe(1);
  });
});

describe('OrganizationReadModels', () => {
  it("reads an organization's record once for all its profiles at one service, each asking only who it is", async () => {
    const { client, state } = countingClient();
    let nowMs = 0;
    const models = new OrganizationReadModels(() => nowMs);
    const bea = models.of({ id: 'p1', organizationId: 'org', baseUrl: 'http://sandbox' }, client);
    const cy = models.of({ id: 'p2', organizationId: 'org', baseUrl: 'http://sandbox' }, client);
    const elsewhere = models.of({ id: 'p3', organizationId: 'org', baseUrl: 'http://another' }, client);
    await Promise.all([bea.snapshot(), cy.snapshot()]);
    expect(state.reads).toBe(1);
    expect(state.whoamis).toBe(2);
    // A read of another service's organization of the same id is its own.
    await elsewhere.snapshot();
    expect(state.reads).toBe(2);
    // One profile's read grown old is read again for both; the other's, read at the same time, follows it.
    nowMs = ORGANIZATION_READ_TTL_MS + 1;
    expect((await bea.snapshot()).viewer.organizationName).toBe('read 3');
    expect((await cy.snapshot()).viewer.organizationName).toBe('read 3');
    expect(state.whoamis).toBe(3);
  });

  it("shares a profile's read, forgets an organization's reads, and starts over for an edited profile", async () => {
    const { client } = countingClient();
    const models = new OrganizationReadModels(() => 0);
    const profile = { id: 'p1', organizationId: 'org', name: 'Bea' };
    const reads = models.of(profile, client);
    expect(models.of(profile, client)).toBe(reads);
    await reads.snapshot();
    models.forget('another organization');
    expect((await reads.snapshot()).viewer.organizationName).toBe('read 1');
    models.forget('org');
    expect((await reads.snapshot()).viewer.organizationName).toBe('read 2');
    const edited = { ...profile, name: 'Bea 2' };
    expect(models.of(edited, client)).not.toBe(reads);
  });
});

describe("An organization's recent completed signatures", () => {
  it('are listed once for all its profiles, joined by what a vote completed, and listed anew when old or after a restart', async () => {
    const { client, state } = countingClient();
    let nowMs = 0;
    const models = new OrganizationReadModels(() => nowMs);
    const bea = models.of({ id: 'p1', organizationId: 'org', baseUrl: 'http://sandbox' }, client);
    const cy = models.of({ id: 'p2', organizationId: 'org', baseUrl: 'http://sandbox' }, client);
    expect(ids(await bea.recentSignatures())).toEqual(['listed 1']);
    expect(ids(await cy.recentSignatures())).toEqual(['listed 1']);
    expect(state.signatureLists).toBe(1);

    // Bea's vote completed a signature: it joins the list, newest first; what is not a completed signature, or is
    // already there, does not.
    bea.answered(signature('signed', 'ACTIVITY_STATUS_COMPLETED'));
    bea.answered(signature('waiting', 'ACTIVITY_STATUS_CONSENSUS_NEEDED'));
    bea.answered({ ...signature('wallet', 'ACTIVITY_STATUS_COMPLETED'), type: 'ACTIVITY_TYPE_CREATE_WALLET' });
    bea.answered(signature('signed', 'ACTIVITY_STATUS_COMPLETED'));
    expect(ids(await cy.recentSignatures())).toEqual(['signed', 'listed 1']);

    // A change of the organization's record removes no signature; age and a restarted Sandbox list them anew.
    models.forget('org');
    nowMs = ORGANIZATION_READ_TTL_MS;
    expect(ids(await cy.recentSignatures())).toEqual(['signed', 'listed 1']);
    nowMs += 1;
    expect(ids(await bea.recentSignatures())).toEqual(['listed 2']);
    models.forgetAll();
    expect(ids(await bea.recentSignatures())).toEqual(['listed 3']);
    expect(state.signatureLists).toBe(3);
  });

  it('are not kept when the listing failed, and a vote answered meanwhile is not reported unhandled', async () => {
    const { client, state } = countingClient();
    const reads = new OrganizationReads(client, () => 0);
    state.failing = true;
    const failed = reads.recentSignatures();
    reads.answered(signature('signed', 'ACTIVITY_STATUS_COMPLETED'));
    await expect(failed).rejects.toThrow('the service is down');
    state.failing = false;
    expect(ids(await reads.recentSignatures())).toEqual(['listed 1']);
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
