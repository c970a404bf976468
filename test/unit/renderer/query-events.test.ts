import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { channels, type Channel } from '../../../src/shared/ipc/contract';
import type { AppEvent } from '../../../src/shared/ipc/events';
import { applyEvent, channelsToInvalidate, isProfileScoped, queryKeyOf } from '../../../src/renderer/src/queries';
import { useUi } from '../../../src/renderer/src/store';

const PROFILE_ID = 'profile-1';

/** A client holding one answered read per channel given, keyed as the screens key them. */
function clientWith(reads: readonly Channel[]): QueryClient {
  const client = new QueryClient();
  for (const channel of reads) client.setQueryData(queryKeyOf(channel, undefined, PROFILE_ID), { read: channel });
  return client;
}

function staleAfter(event: AppEvent, reads: readonly Channel[]): Channel[] {
  const client = clientWith(reads);
  applyEvent(client, event);
  return reads.filter((channel) => client.getQueryState(queryKeyOf(channel, undefined, PROFILE_ID))?.isInvalidated === true);
}

const READS: readonly Channel[] = [
  'app.info',
  'app.getSettings',
  'profiles.list',
  'profiles.getActive',
  'keys.listApiKeys',
  'keys.listEncryptionKeys',
  'sandbox.status',
  'tokens.list',
  'approvals.pending',
  'activities.list',
  'signing.describe',
  'organization.lookup',
  'policies.list',
  'wallets.list',
];

const waiting: AppEvent = {
  type: 'activity',
  change: 'created',
  organizationId: 'o',
  activityId: 'a',
  status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
  organizationChanged: false,
};

describe('main event → stale reads', () => {
  it('keys the reads that act for a profile by that profile, and the app-wide ones without it', () => {
    expect(queryKeyOf('policies.list', undefined, PROFILE_ID)).toEqual(['policies.list', {}, PROFILE_ID]);
    expect(queryKeyOf('wallets.accounts', { walletId: 'w' }, null)).toEqual(['wallets.accounts', { walletId: 'w' }, null]);
    expect(queryKeyOf('keys.listApiKeys', undefined, PROFILE_ID)).toEqual(['keys.listApiKeys', {}]);
    expect(
      channels
        .filter((channel) => !isProfileScoped(channel))
        .every((channel) => /^(?:app|clipboard|inbox|journal|keys|passkeys|profiles|requests|sandbox|tokens)\./.test(channel)),
    ).toBe(true);
  });

  it('an activity still waiting makes the queue, the history and the cards stale, nothing else', () => {
    expect(staleAfter(waiting, READS)).toEqual(['approvals.pending', 'activities.list', 'signing.describe']);
  });

  it('an activity that completed a change of the organization makes every read of it stale, and no app-wide one', () => {
    const decided: AppEvent = { ...waiting, change: 'changed', status: 'ACTIVITY_STATUS_COMPLETED', organizationChanged: true };
    expect(staleAfter(decided, READS)).toEqual(READS.filter(isProfileScoped));
  });

  it('a completed signature or a rejection makes only the queue, the history and the cards stale', () => {
    const signed: AppEvent = { ...waiting, change: 'changed', status: 'ACTIVITY_STATUS_COMPLETED', organizationChanged: false };
    const rejected: AppEvent = { ...waiting, change: 'changed', status: 'ACTIVITY_STATUS_REJECTED', organizationChanged: false };
    expect(staleAfter(signed, READS)).toEqual(['approvals.pending', 'activities.list', 'signing.describe']);
    expect(staleAfter(rejected, READS)).toEqual(['approvals.pending', 'activities.list', 'signing.describe']);
  });

  it('a decided activity leaves its own card stale without reading it again, and reads the other cards shown', () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const reads: string[] = [];
    // Two cards on screen, each watched as a screen watches its read.
    for (const activityId of ['a', 'b']) {
      const key = queryKeyOf('signing.describe', { activityId }, PROFILE_ID);
      client.setQueryData(key, { activityId });
      new QueryObserver(client, {
        queryKey: key,
        // Fresh until an event says otherwise: subscribing reads nothing.
        staleTime: Infinity,
        queryFn: () => {
          reads.push(activityId);
          return { activityId };
        },
      }).subscribe(() => undefined);
    }
    applyEvent(client, { ...waiting, change: 'changed', status: 'ACTIVITY_STATUS_COMPLETED' });
    expect(reads).toEqual(['b']);
    expect(client.getQueryState(queryKeyOf('signing.describe', { activityId: 'a' }, PROFILE_ID))?.isInvalidated).toBe(true);

    // A vote that leaves it waiting reads its card again: where the consensus stands changed.
    applyEvent(client, { ...waiting, change: 'changed', activityId: 'b' });
    expect(reads).toEqual(['b', 'a', 'b']);
  });

  it('a change of the requests main waits on carries them, and makes nothing stale', () => {
    const pending = [{ id: 'r1', url: 'http://127.0.0.1:8080/public/v1/submit/approve_activity', startedAtMs: 1_700_000_000_000 }];
    const client = clientWith(READS);
    applyEvent(client, { type: 'requests', pending });
    expect(client.getQueryData(queryKeyOf('requests.pending', undefined, null))).toEqual(pending);
    expect(staleAfter({ type: 'requests', pending }, READS)).toEqual([]);
  });

  it('a profile change makes the profiles, the keys that name them and every profile-scoped read stale', () => {
    expect(staleAfter({ type: 'profile', change: 'active' }, READS)).toEqual([
      'profiles.list',
      'profiles.getActive',
      'keys.listApiKeys',
      ...READS.filter(isProfileScoped),
    ]);
  });

  it('a Sandbox change makes its status, the profiles and the profile-scoped reads stale', () => {
    expect(staleAfter({ type: 'sandbox', state: 'running' }, READS)).toEqual([
      'profiles.list',
      'profiles.getActive',
      'sandbox.status',
      ...READS.filter(isProfileScoped),
    ]);
  });

  it('a lock hides the window at once and drops every read but the lock state and the settings', () => {
    useUi.getState().setLocked(false);
    const client = clientWith(READS);
    applyEvent(client, { type: 'lock', locked: true });
    expect(useUi.getState().locked).toBe(true);
    expect(
      client
        .getQueryCache()
        .getAll()
        .map((query) => query.queryKey[0]),
    ).toEqual(['app.info', 'app.getSettings']);
    expect(client.getQueryState(queryKeyOf('app.info', undefined, PROFILE_ID))?.isInvalidated).toBe(true);
    useUi.getState().setLocked(false);
  });

  it('an unlock only re-reads the lock state', () => {
    expect(staleAfter({ type: 'lock', locked: false }, READS)).toEqual(['app.info']);
  });

  it('an inbox change re-reads the inbox, nothing else', () => {
    expect(staleAfter({ type: 'inbox' }, [...READS, 'inbox.list'])).toEqual(['inbox.list']);
  });

  it('a security key not attached re-reads the notices of such keys, nothing else', () => {
    expect(staleAfter({ type: 'passkey' }, [...READS, 'passkeys.notices'])).toEqual(['passkeys.notices']);
  });

  it('a notification’s click opens its activity on the Approvals screen, and makes nothing stale by itself', () => {
    useUi.getState().show('settings');
    expect(staleAfter({ type: 'open-activity', profileId: PROFILE_ID, activityId: 'a' }, READS)).toEqual([]);
    expect(useUi.getState()).toMatchObject({ screen: 'approvals', activityToOpen: { profileId: PROFILE_ID, activityId: 'a' } });
    useUi.getState().activityOpened();
    expect(useUi.getState().activityToOpen).toBeUndefined();
  });

  it('names only channels of the contract', () => {
    const events: AppEvent[] = [
      waiting,
      { ...waiting, status: 'ACTIVITY_STATUS_FAILED' },
      { type: 'sandbox', state: 'failed' },
      { type: 'profile', change: 'removed' },
      { type: 'lock', locked: true },
    ];
    for (const event of events) for (const channel of channelsToInvalidate(event)) expect(channels).toContain(channel);
  });
});
