/**
 * The activity feed is main's one poller (activities/feed.ts): the activity watch and the inbox read its looks and
 * ask nothing on a timer of their own. Counted here with a recording client per profile, on a clock the test moves:
 * two profiles, one active, looked at on their own cadences, each look one list of what waits (and the active
 * profile's newest completed activity), a back-off per profile, and what a look's listeners ask beyond it asked once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACTIVE_INTERVAL_MS, ActivityFeeds, type FeedClient } from '../../src/main/activities/feed';
import { ActivityWatch } from '../../src/main/events/activity-watch';
import { AppEvents } from '../../src/main/events/app-events';
import { Inbox } from '../../src/main/inbox/inbox';
import { AppLock } from '../../src/main/lock/lock';
import type { Profile } from '../../src/main/profiles/profiles';
import type { Activity } from '../../src/shared/api';
import { QkError } from '../../src/shared/errors';
import type { AppEvent } from '../../src/shared/ipc/events';
import { startDispatchBed } from '../support/dispatch-bed';

const ORG = 'org-1';
const INBOX_INTERVAL_SECONDS = 10;
const VIEWER = 'user-viewer';

function profileNamed(name: string): Profile {
  return { id: `profile-${name}`, name, kind: 'hosted', baseUrl: 'http://127.0.0.1:1', organizationId: ORG, apiKeyName: name } as Profile;
}

function waitingActivity(id: string, proposer: string): Activity {
  return {
    id,
    organizationId: ORG,
    type: 'ACTIVITY_TYPE_UPDATE_USER_NAME',
    status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
    fingerprint: `fingerprint-${id}`,
    createdAt: { seconds: '1', nanos: '0' },
    intent: { updateUserNameIntent: { userId: VIEWER, userName: 'renamed' } },
    votes: [{ userId: proposer, user: { userName: proposer }, selection: 'VOTE_SELECTION_APPROVED', createdAt: { seconds: '1', nanos: '0' } }],
  } as unknown as Activity;
}

/**
 * One organization seen through two profiles; every request each profile's client sends is written down as
 * `profile operation` (`list_activities` of the newest completed one as `newest_completed`).
 */
function bed() {
  const active = profileNamed('Active');
  const other = profileNamed('Other');
  const state = { waiting: [] as Activity[], decided: new Map<string, Activity>(), failing: new Set<string>() };
  const sent: string[] = [];
  const clientFor = (profile: Profile): FeedClient =>
    ({
      query: async (name: string, request: { activityId?: string; filterByStatus?: string[] }) => {
        const completed = name === 'list_activities' && request.filterByStatus?.includes('ACTIVITY_STATUS_COMPLETED') === true;
        sent.push(`${profile.name} ${completed ? 'newest_completed' : name}`);
        if (state.failing.has(profile.name)) throw new QkError('NETWORK_ERROR', `${profile.name}'s service is unreachable`);
        if (completed) return { activities: [] };
        if (name === 'list_activities') return { activities: state.waiting };
        if (name === 'whoami') return { userId: VIEWER, organizationName: 'Org' };
        if (name === 'get_organization_configs') return { configs: { quorum: { threshold: 2, userIds: [VIEWER, 'user-other'] } } };
        if (name === 'get_activity') return { activity: state.decided.get(request.activityId ?? '') };
        throw new Error(`unexpected ${name}`);
      },
    }) as unknown as FeedClient;
  const profiles = { list: async () => [active, other], getActive: async () => active, setActive: async () => undefined };
  const settings = {
    get: async () => ({ inbox: { intervalSeconds: INBOX_INTERVAL_SECONDS, notifyWaiting: true, notifyDecided: true, notifyExpiring: true } }),
    onChange: () => undefined,
  } as unknown as ConstructorParameters<typeof ActivityFeeds>[0]['settings'];
  const lock = new AppLock();
  const events = new AppEvents();
  const emitted: AppEvent[] = [];
  events.subscribe((event) => emitted.push(event));
  const now = () => Date.now();
  const feeds = new ActivityFeeds({ profiles, clientFor, settings, lock, events, now, random: () => 0.5 });
  // Both consumers the app has, on the one feed.
  const watch = new ActivityWatch({ feeds, lock, events });
  const inbox = new Inbox({ feeds, profiles, settings, lock, events, now });
  /** The requests of `profile` sent since the last call, by operation. */
  const takeSent = (profile: Profile) => {
    const mine = sent.filter((entry) => entry.startsWith(`${profile.name} `)).map((entry) => entry.slice(profile.name.length + 1));
    sent.splice(0, sent.length, ...sent.filter((entry) => !entry.startsWith(`${profile.name} `)));
    return mine;
  };
  return { active, other, state, feeds, watch, inbox, emitted, takeSent };
}

/** The feed's own requests among `operations`. */
function listsOf(operations: readonly string[]): string[] {
  return operations.filter((operation) => operation === 'list_activities' || operation === 'newest_completed');
}

function countOf(operations: readonly string[]): Record<string, number> {
  return operations.reduce<Record<string, number>>((counts, operation) => ({ ...counts, [operation]: (counts[operation] ?? 0) + 1 }), {});
}

describe('ActivityFeeds', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is the one poller: over 30 s the active profile is looked at every 3 s and the other every 10 s, each look one list', async () => {
    const { active, other, feeds, inbox, takeSent } = bed();
    feeds.start();
    await vi.advanceTimersByTimeAsync(0);
    // The first look also asks who the user is, for the inbox; that is all it asks beyond the feed's lists.
    expect(takeSent(active)).toContain('whoami');
    expect(takeSent(other)).toContain('whoami');

    const looks = 10;
    await vi.advanceTimersByTimeAsync(looks * ACTIVE_INTERVAL_MS);
    // 30 s: ten more looks at the active profile (what waits, and its newest completed activity), three at the other.
    expect(countOf(takeSent(active))).toEqual({ list_activities: looks, newest_completed: looks });
    expect(countOf(takeSent(other))).toEqual({ list_activities: (looks * ACTIVE_INTERVAL_MS) / (INBOX_INTERVAL_SECONDS * 1000) });
    // The inbox read those looks: both profiles were seen at the last one.
    expect(inbox.list().profiles.map((profile) => [profile.profileName, profile.checkedAtMs])).toEqual([
      [active.name, Date.now()],
      [other.name, Date.now()],
    ]);
    feeds.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect([...takeSent(active), ...takeSent(other)]).toEqual([]);
  });

  it('tells the watch and the inbox of one look, and what both ask of it beyond the list is asked once', async () => {
    const { active, other, state, feeds, inbox, emitted, takeSent } = bed();
    await feeds.check();
    takeSent(active);
    takeSent(other);

    state.waiting = [waitingActivity('mine', VIEWER)];
    await feeds.check();
    // One look each (the inbox may read who decides anew once something appeared, but no list of its own).
    expect(countOf(listsOf(takeSent(active)))).toEqual({ list_activities: 1, newest_completed: 1 });
    expect(countOf(listsOf(takeSent(other)))).toEqual({ list_activities: 1 });
    expect(emitted.filter((event) => event.type === 'activity')).toEqual([
      {
        type: 'activity',
        change: 'created',
        organizationId: ORG,
        activityId: 'mine',
        status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
        organizationChanged: false,
      },
    ]);
    expect(inbox.list().profiles.map((profile) => profile.items.map((item) => item.activityId))).toEqual([['mine'], ['mine']]);

    // Decided elsewhere: the watch reports it and the inbox tells its proposer, from one get_activity of the active profile.
    state.decided.set('mine', { ...waitingActivity('mine', VIEWER), status: 'ACTIVITY_STATUS_COMPLETED' });
    state.waiting = [];
    emitted.length = 0;
    await feeds.check();
    expect(takeSent(active).filter((operation) => operation === 'get_activity')).toEqual(['get_activity']);
    expect(emitted.filter((event) => event.type === 'activity')).toEqual([
      {
        type: 'activity',
        change: 'changed',
        organizationId: ORG,
        activityId: 'mine',
        status: 'ACTIVITY_STATUS_COMPLETED',
        organizationChanged: true,
      },
    ]);
    expect(inbox.list().profiles.map((profile) => profile.decided.map((decided) => decided.activityId))).toEqual([['mine'], ['mine']]);
  });

  it("applies the answer to main's own vote to what each profile saw, asking the service nothing, and announces it once", async () => {
    const { active, other, state, feeds, watch, inbox, emitted, takeSent } = bed();
    state.waiting = [waitingActivity('mine', 'user-other'), waitingActivity('theirs', 'user-other')];
    feeds.start();
    await vi.advanceTimersByTimeAsync(0);
    takeSent(active);
    takeSent(other);
    emitted.length = 0;

    // The viewer's approval of 'mine' leaves it waiting with two votes: both inboxes show them, nothing is listed.
    // Both votes in the open approval window, so that the rows count them (the proposal's own vote is long expired).
    const [proposed] = waitingActivity('mine', 'user-other').votes;
    const justNow = { seconds: String(Math.floor(Date.now() / 1000)), nanos: '0' };
    const voted = {
      ...waitingActivity('mine', 'user-other'),
      votes: [
        { ...proposed!, createdAt: justNow },
        { ...proposed!, userId: VIEWER, user: { userName: VIEWER }, createdAt: justNow },
      ],
    } as Activity;
    expect(inbox.list().profiles.map((profile) => profile.items.find((item) => item.activityId === 'mine')?.approvals)).toEqual([0, 0]);
    watch.announce(voted, 'changed');
    await feeds.learned(voted);
    expect([...takeSent(active), ...takeSent(other)]).toEqual([]);
    expect(inbox.list().profiles.map((profile) => profile.items.find((item) => item.activityId === 'mine')?.approvals)).toEqual([2, 2]);
    expect(emitted.filter((event) => event.type === 'activity')).toHaveLength(1);

    // The approval that completes 'theirs': it leaves both inboxes, and its details are the answer's, not asked again.
    const completed = { ...waitingActivity('theirs', 'user-other'), status: 'ACTIVITY_STATUS_COMPLETED' } as Activity;
    watch.announce(completed, 'changed');
    await feeds.learned(completed);
    expect([...takeSent(active), ...takeSent(other)]).toEqual([]);
    expect(inbox.list().profiles.map((profile) => profile.items.map((item) => item.activityId))).toEqual([['mine'], ['mine']]);
    expect(emitted.filter((event) => event.type === 'activity')).toHaveLength(2);

    // The next real look finds the service agreeing and reports nothing more.
    state.waiting = [voted];
    state.decided.set('theirs', completed);
    await feeds.check();
    expect(countOf(listsOf(takeSent(active)))).toEqual({ list_activities: 1, newest_completed: 1 });
    expect(emitted.filter((event) => event.type === 'activity')).toHaveLength(2);
    feeds.stop();
  });

  it('backs off from a failing profile on its own, with jitter, while the other keeps its cadence', async () => {
    const { active, other, state, feeds, inbox, takeSent } = bed();
    state.failing.add(other.name);
    feeds.start();
    await vi.advanceTimersByTimeAsync(0);
    const [, otherView] = inbox.list().profiles;
    // Twice the inbox's interval after one failure (jitter at its middle here), and the inbox says so.
    expect(otherView!.error).toEqual({ code: 'NETWORK_ERROR', message: "Other's service is unreachable", retryAtMs: Date.now() + 20_000 });
    expect(takeSent(other)).toEqual(['list_activities']);
    takeSent(active);

    await vi.advanceTimersByTimeAsync(19_999);
    expect(takeSent(other)).toEqual([]);
    expect(countOf(takeSent(active))).toEqual({ list_activities: 6, newest_completed: 6 });
    await vi.advanceTimersByTimeAsync(1);
    expect(takeSent(other)).toEqual(['list_activities']);
    // A second failure: four times the interval.
    expect(inbox.list().profiles[1]!.error?.retryAtMs).toBe(Date.now() + 40_000);

    state.failing.delete(other.name);
    await vi.advanceTimersByTimeAsync(40_000);
    expect(takeSent(other)[0]).toBe('list_activities');
    expect(inbox.list().profiles[1]!.error).toBeUndefined();
    feeds.stop();
  });
});

describe('the composition root', () => {
  it('polls through the one feed: three looks at two profiles, one active, cost two lists a look for the active one and one for the other', async () => {
    const sent: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      sent.push(new URL(input instanceof Request ? input.url : String(input)).pathname.split('/').at(-1) ?? '');
      return fetch(input, init);
    };
    const composed = await startDispatchBed({ dataDirPrefix: 'qk-activity-feed-', fetch: recordingFetch });
    try {
      await composed.call('sandbox.start', {});
      await composed.call('keys.generateApiKey', { name: 'bea' });
      const bea = await composed.call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
      expect(bea.state).toBe('completed');
      await composed.addSandboxProfile('Bea', 'bea');
      // The first look also asks who each profile's user is.
      await composed.services.activityFeeds.check();
      sent.length = 0;
      const looks = 3;
      for (let look = 0; look < looks; look++) await composed.services.activityFeeds.check();
      // The Sandbox profile is active: what waits and its newest completed activity; Bea's profile: what waits.
      expect(countOf(sent)).toEqual({ list_activities: looks * 3 });
    } finally {
      await composed.close();
    }
  });
});
