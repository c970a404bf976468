import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActivityFeeds, type FeedClient } from '../../src/main/activities/feed';
import { ActivityWatch } from '../../src/main/events/activity-watch';
import { AppEvents } from '../../src/main/events/app-events';
import { AppLock } from '../../src/main/lock/lock';
import type { Profile } from '../../src/main/profiles/profiles';
import type { Activity } from '../../src/shared/api';
import type { AppEvent } from '../../src/shared/ipc/events';

describe('AppEvents', () => {
  it('hands each event to every listener until it unsubscribes', () => {
    const events = new AppEvents();
    const first: AppEvent[] = [];
    const second: AppEvent[] = [];
    const stopFirst = events.subscribe((event) => first.push(event));
    events.subscribe((event) => second.push(event));
    events.emit({ type: 'lock', locked: true });
    stopFirst();
    events.emit({ type: 'profile', change: 'active' });
    expect(first).toEqual([{ type: 'lock', locked: true }]);
    expect(second).toEqual([
      { type: 'lock', locked: true },
      { type: 'profile', change: 'active' },
    ]);
  });

  it('refuses an event outside the contract before any listener sees it', () => {
    const events = new AppEvents();
    const seen = vi.fn();
    events.subscribe(seen);
    expect(() => events.emit({ type: 'profile', change: 'renamed' } as unknown as AppEvent)).toThrow(/outside the contract/);
    expect(() => events.emit({ type: 'lock', locked: true, secret: 'x' } as unknown as AppEvent)).toThrow(/outside the contract/);
    expect(seen).not.toHaveBeenCalled();
  });

  it('keeps telling the other listeners when one throws', () => {
    const events = new AppEvents();
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const seen = vi.fn();
    events.subscribe(() => {
      throw new Error('window gone');
    });
    events.subscribe(seen);
    events.emit({ type: 'sandbox', state: 'running' });
    expect(seen).toHaveBeenCalledWith({ type: 'sandbox', state: 'running' });
    expect(error).toHaveBeenCalledOnce();
    error.mockRestore();
  });
});

const ORG = 'org-1';

/** What the watch emits for an activity of ORG that waits for votes; a waiting one leaves the organization as it was. */
function waitingEvent(change: 'created' | 'changed', activityId: string): AppEvent {
  return { type: 'activity', change, organizationId: ORG, activityId, status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED', organizationChanged: false };
}

/** What the watch emits for an activity of ORG that completed, which may have changed the organization. */
function completedEvent(change: 'created' | 'changed', activityId: string): AppEvent {
  return { type: 'activity', change, organizationId: ORG, activityId, status: 'ACTIVITY_STATUS_COMPLETED', organizationChanged: true };
}

function activity(id: string, status: Activity['status'], voters: string[] = []): Activity {
  return {
    id,
    organizationId: ORG,
    status,
    votes: voters.map((userId) => ({ userId, selection: 'VOTE_SELECTION_APPROVED' })),
  } as unknown as Activity;
}

/** A service whose waiting activities the test sets; `get_activity` answers any activity it ever listed. */
function fakeOrganization() {
  const state = { waiting: [] as Activity[], newest: undefined as Activity | undefined, decided: new Map<string, Activity>(), listed: 0 };
  const query = vi.fn(async (name: string, request: { activityId?: string; filterByStatus?: string[] }) => {
    // The look at the newest completed activity, beside the one at what waits.
    if (name === 'list_activities' && request.filterByStatus?.includes('ACTIVITY_STATUS_COMPLETED') === true) {
      return { activities: state.newest === undefined ? [] : [state.newest] };
    }
    if (name === 'list_activities') {
      state.listed += 1;
      return { activities: state.waiting };
    }
    const found = state.decided.get(request.activityId ?? '');
    if (found === undefined) throw new Error('not found');
    return { activity: found };
  });
  let active = { id: 'profile-1', name: 'One', baseUrl: 'http://127.0.0.1:1', organizationId: ORG } as Profile;
  // The one profile this desktop holds, and it is the active one.
  const profiles = { list: async () => [active], getActive: async () => active };
  return {
    state,
    query,
    profiles,
    switchProfile: (id: string, organizationId = active.organizationId) => (active = { ...active, id, organizationId }),
  };
}

const SETTINGS = { get: async () => ({ inbox: { intervalSeconds: 10 } }), onChange: () => undefined } as unknown as ConstructorParameters<
  typeof ActivityFeeds
>[0]['settings'];

function watchOf(organization: ReturnType<typeof fakeOrganization>, lock = new AppLock(), completed?: (activity: Activity) => void) {
  const emitted: AppEvent[] = [];
  const events = new AppEvents();
  events.subscribe((event) => emitted.push(event));
  const feeds = new ActivityFeeds({
    profiles: organization.profiles,
    clientFor: () => ({ query: organization.query }) as unknown as FeedClient,
    settings: SETTINGS,
    lock,
    events,
    now: () => Date.now(),
    activeIntervalMs: 1_000,
  });
  return { emitted, lock, feeds, watch: new ActivityWatch({ feeds, lock, events, ...(completed === undefined ? {} : { completed }) }) };
}

describe('ActivityWatch', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reports activities that appear, get votes and are decided, after a first look that reports what already waits', async () => {
    const organization = fakeOrganization();
    const { emitted, watch } = watchOf(organization);
    const waitingA = activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root']);
    const votedA = activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root', 'bob']);
    const waitingB = activity('b', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['alice']);
    const looks: { what: string; waiting: Activity[]; decided?: Activity; reported: AppEvent[] }[] = [
      { what: 'the first look: the window may have read before "a" appeared', waiting: [waitingA], reported: [waitingEvent('changed', 'a')] },
      { what: 'a new activity', waiting: [waitingA, waitingB], reported: [waitingEvent('created', 'b')] },
      { what: 'a vote that does not decide: same status, one more voter', waiting: [votedA, waitingB], reported: [waitingEvent('changed', 'a')] },
      {
        what: 'decided elsewhere: it left the waiting list, and its own status says how it ended',
        waiting: [votedA],
        decided: activity('b', 'ACTIVITY_STATUS_COMPLETED', ['alice', 'root']),
        reported: [completedEvent('changed', 'b')],
      },
      { what: 'nothing changed', waiting: [votedA], reported: [] },
    ];
    for (const look of looks) {
      organization.state.waiting = look.waiting;
      if (look.decided !== undefined) organization.state.decided.set(look.decided.id, look.decided);
      await watch.check();
      expect(emitted.splice(0), look.what).toEqual(look.reported);
    }
  });

  it("announces main's own vote once: the look that finds it waiting, or decided, reports and asks nothing more of it", async () => {
    const organization = fakeOrganization();
    const completed: string[] = [];
    const { emitted, watch } = watchOf(organization, new AppLock(), (done) => completed.push(done.id));
    organization.state.waiting = [
      activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root']),
      activity('b', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root']),
    ];
    await watch.check();
    emitted.splice(0);

    // A vote main cast that leaves 'a' waiting: told at once from the vote's answer, not again by the look after it.
    const voted = activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root', 'bob']);
    watch.announce(voted, 'changed');
    expect(emitted.splice(0)).toEqual([waitingEvent('changed', 'a')]);
    organization.state.waiting = [voted, activity('b', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root'])];
    await watch.check();
    expect(emitted).toEqual([]);

    // A vote main cast that completes 'b': its leaving the list and its being the newest completed say nothing new,
    // and its details are not asked for.
    const decided = activity('b', 'ACTIVITY_STATUS_COMPLETED', ['root', 'bob']);
    watch.announce(decided, 'changed');
    expect(completed).toEqual(['b']);
    expect(emitted.splice(0)).toEqual([completedEvent('changed', 'b')]);
    organization.state.waiting = [voted];
    organization.state.newest = decided;
    organization.query.mockClear();
    await watch.check();
    expect(emitted).toEqual([]);
    expect(organization.query.mock.calls.map(([name]) => name)).not.toContain('get_activity');

    // Another vote on 'a', cast elsewhere, is still reported: an announcement covers only the state it named.
    organization.state.waiting = [activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root', 'bob', 'cy'])];
    await watch.check();
    expect(emitted).toEqual([waitingEvent('changed', 'a')]);
    expect(completed).toEqual(['b']);
  });

  it('reports a change made elsewhere that needed no vote, seen as the newest completed activity', async () => {
    const organization = fakeOrganization();
    const { emitted, watch } = watchOf(organization);
    organization.state.newest = activity('quorum', 'ACTIVITY_STATUS_COMPLETED', ['root']);
    await watch.check();
    // The first look reports it: the organization may have been read before it ran.
    expect(emitted.splice(0)).toEqual([completedEvent('created', 'quorum')]);
    await watch.check();
    expect(emitted).toEqual([]);
    organization.state.newest = activity('policy', 'ACTIVITY_STATUS_COMPLETED', ['root']);
    await watch.check();
    expect(emitted).toEqual([completedEvent('created', 'policy')]);
    await watch.check();
    expect(emitted).toHaveLength(1);
  });

  it("reports main's own vote once when a look saw it decided before the service's answer came back", async () => {
    const organization = fakeOrganization();
    const { emitted, watch } = watchOf(organization);
    organization.state.waiting = [activity('slow', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root'])];
    await watch.check();
    // The vote is slow to answer; meanwhile a look finds the activity decided, and then the newest completed one.
    const decided = activity('slow', 'ACTIVITY_STATUS_COMPLETED', ['root', 'me']);
    organization.state.waiting = [];
    organization.state.decided.set('slow', decided);
    organization.state.newest = decided;
    emitted.length = 0;
    await watch.check();
    watch.announce(decided, 'changed');
    await watch.check();
    expect(emitted).toEqual([expect.objectContaining({ activityId: 'slow', status: 'ACTIVITY_STATUS_COMPLETED' })]);
  });

  it("keeps main's announcements only for the organization looked at, and only until the activity is seen decided", async () => {
    const organization = fakeOrganization();
    const { emitted, watch } = watchOf(organization);
    await watch.check();
    // Votes cast from the inbox on a profile of another organization: no look here can confirm them, so the next look
    // lets them go instead of keeping one per vote for as long as the app runs.
    const elsewhere = Array.from({ length: 50 }, (_, index) => ({
      ...activity(`x${index}`, 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['me']),
      organizationId: 'org-2',
    }));
    for (const voted of elsewhere) watch.announce(voted, 'changed');
    await watch.check();
    // Shown by switching to that organization: its first look reports each as it does anything waiting, since no
    // announcement of it is left to say it was told.
    organization.switchProfile('profile-2', 'org-2');
    organization.state.waiting = elsewhere;
    emitted.length = 0;
    await watch.check();
    expect(emitted.map((event) => (event.type === 'activity' ? event.activityId : event.type))).toEqual(elsewhere.map(({ id }) => id));

    // Here, a vote whose look came back with one more vote (so it confirmed nothing), then saw the activity decided:
    // reported once as decided, and its announcement is gone with it.
    organization.switchProfile('profile-1', ORG);
    organization.state.waiting = [activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root'])];
    await watch.check();
    watch.announce(activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root', 'me']), 'changed');
    organization.state.waiting = [activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root', 'me', 'bob'])];
    await watch.check();
    organization.state.waiting = [];
    organization.state.decided.set('a', activity('a', 'ACTIVITY_STATUS_COMPLETED', ['root', 'me', 'bob']));
    emitted.length = 0;
    await watch.check();
    expect(emitted).toEqual([expect.objectContaining({ activityId: 'a', status: 'ACTIVITY_STATUS_COMPLETED' })]);
    // Were it listed again as announced, nothing would hold the report back.
    organization.state.waiting = [activity('a', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', ['root', 'me'])];
    emitted.length = 0;
    await watch.check();
    expect(emitted).toEqual([expect.objectContaining({ activityId: 'a', change: 'created' })]);
  });

  it('starts over when another profile becomes active: what waits there is reported once, never as decided here', async () => {
    const organization = fakeOrganization();
    const { emitted, watch } = watchOf(organization);
    await watch.check();
    organization.switchProfile('profile-2');
    organization.state.waiting = [activity('c', 'ACTIVITY_STATUS_CONSENSUS_NEEDED')];
    await watch.check();
    expect(emitted).toEqual([waitingEvent('changed', 'c')]);
    await watch.check();
    expect(emitted).toHaveLength(1);
  });

  it('follows the feed: a look at the active profile every interval while unlocked, none while locked', async () => {
    vi.useFakeTimers();
    const organization = fakeOrganization();
    const { emitted, lock, feeds } = watchOf(organization);
    feeds.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(organization.state.listed).toBe(1);
    organization.state.waiting = [activity('d', 'ACTIVITY_STATUS_CONSENSUS_NEEDED')];
    await vi.advanceTimersByTimeAsync(1_000);
    expect(organization.state.listed).toBe(2);
    expect(emitted).toHaveLength(1);

    lock.lock();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(organization.state.listed).toBe(2);

    // Unlocked: a fresh first look (what changed while locked is read by the window anyway), then polling again.
    organization.state.waiting = [];
    lock.unlock();
    await vi.advanceTimersByTimeAsync(0);
    expect(organization.state.listed).toBe(3);
    expect(emitted).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(organization.state.listed).toBe(4);

    feeds.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(organization.state.listed).toBe(4);
  });

  it('waits for a profile and for the service to answer, without reporting anything', async () => {
    const error = new Error('connection refused');
    const lock = new AppLock();
    const events = new AppEvents();
    const emitted: AppEvent[] = [];
    events.subscribe((event) => emitted.push(event));
    const feedsOf = (profiles: ConstructorParameters<typeof ActivityFeeds>[0]['profiles'], query: FeedClient['query']) =>
      new ActivityFeeds({ profiles, clientFor: () => ({ query }), settings: SETTINGS, lock, events, now: Date.now });
    const none = { list: async () => [], getActive: async () => undefined };
    const organization = fakeOrganization();
    const noProfile = new ActivityWatch({ feeds: feedsOf(none, organization.query as unknown as FeedClient['query']), lock, events });
    await expect(noProfile.check()).resolves.toBeUndefined();
    organization.state.waiting = [activity('e', 'ACTIVITY_STATUS_CONSENSUS_NEEDED')];
    const unreachable = new ActivityWatch({ feeds: feedsOf(organization.profiles, () => Promise.reject(error)), lock, events });
    await expect(unreachable.check()).resolves.toBeUndefined();
    expect(emitted).toEqual([]);
  });
});
