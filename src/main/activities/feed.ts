/**
 * One activity feed per profile (docs/architecture.md#the-activity-feed): the only place main polls a service for the
 * activities that wait for votes. Each look at a profile is one `list_activities` of what waits (one page), and for
 * the active profile one more of its newest completed activity, since a change made elsewhere that needed no vote
 * never waits and is seen only there. The active profile is looked at every few seconds, the others at the inbox's
 * interval (Settings); a profile whose service fails backs off on its own with jitter, and nothing is asked while the
 * app is locked. Each look is published to the feed's listeners (the activity watch, the inbox), which read what
 * they need beyond it through the look, so no activity is asked of the service twice in one look. After main's own
 * proposal or vote, the service's answer is applied to what each profile of that organization saw last and published
 * as a look of its own, instead of listing again.
 */
import type { Activity } from '../../shared/api/activity-record';
import { toQkError, type QkError } from '../../shared/errors';
import type { ApiClient } from '../client/api-client';
import { waitingActivities } from '../client/waiting-activities';
import type { AppEvents } from '../events/app-events';
import type { AppLock } from '../lock/lock';
import type { Profile, Profiles } from '../profiles/profiles';
import type { Settings } from '../settings/settings';
import { isWaitingForApprovals } from '../../shared/approvals/voting';

/** How often the active profile is looked at: work done elsewhere should reach the open window within seconds. */
export const ACTIVE_INTERVAL_MS = 3_000;
/** The longest a failing service waits between two looks, before jitter. */
export const MAX_BACK_OFF_MS = 5 * 60 * 1000;

export type FeedClient = Pick<ApiClient, 'query'>;

export interface ActivityFeedsOptions {
  profiles: Pick<Profiles, 'list' | 'getActive'>;
  /** A client acting for `profile`, its requests not listed among the page's; throws when it cannot (a stopped Sandbox). */
  clientFor: (profile: Profile) => FeedClient;
  settings: Pick<Settings, 'get' | 'onChange'>;
  lock: Pick<AppLock, 'locked' | 'onChange'>;
  events: Pick<AppEvents, 'subscribe'>;
  now: () => number;
  /** For the back-off's jitter (Math.random by default). */
  random?: () => number;
  /** How often the active profile is looked at (ACTIVE_INTERVAL_MS by default). */
  activeIntervalMs?: number;
}

/** One look at one profile's service that answered. */
export interface SeenLook {
  ok: true;
  profile: Profile;
  /** Whether it was the active profile when looked at. */
  active: boolean;
  client: FeedClient;
  /** What waits for votes, newest first: one page at most. */
  waiting: Activity[];
  /** The newest completed activity, asked of the active profile only; undefined elsewhere or when there is none. */
  newestCompleted: Activity | undefined;
  /** An activity's details (one that left `waiting`), asked of the service at most once per look whoever asks. */
  detail: (activityId: string) => Promise<Activity>;
  /** A listener's further read failed: the profile backs off as if the look had; says when it is looked at again. */
  fail: (error: unknown) => number;
}

/** One look at one profile whose service could not be asked or did not answer. */
export interface FailedLook {
  ok: false;
  profile: Profile;
  active: boolean;
  error: QkError;
  retryAtMs: number;
}

export type FeedLook = SeenLook | FailedLook;

export interface FeedListener {
  /** One profile's look. Listeners are told one after the other, so what one asked through the look the next reuses. */
  look?(look: FeedLook): Promise<void> | void;
  /** After the looks of one round, with the profiles this desktop holds now (one removed is gone from the list). */
  round?(profiles: readonly Profile[]): void;
}

/** What the feed keeps of one profile between looks. */
interface Feed {
  /** The whole profile: an edited URL, organization or key starts a new client. */
  key: string;
  profile: Profile;
  client: FeedClient | undefined;
  failures: number;
  nextLookAtMs: number;
  /** Whether its last look was as the active profile: one that just became active is looked at without waiting. */
  lookedAsActive: boolean;
  /** What its last look that answered saw, for the answer to one of main's own submissions to be applied to. */
  seen: Pick<SeenLook, 'waiting' | 'newestCompleted'> | undefined;
}

/** `all`: every profile that is not backing off (someone asked to look now); `due`: those whose time came. */
type RoundKind = 'all' | 'due';

export class ActivityFeeds {
  readonly #options: ActivityFeedsOptions;
  readonly #feeds = new Map<string, Feed>();
  readonly #listeners = new Set<FeedListener>();
  #started = false;
  #timer: NodeJS.Timeout | undefined;
  /** Rounds run one at a time; this is the last one asked for, and a round waiting to run absorbs later asks. */
  #last: Promise<void> = Promise.resolve();
  #queued: { kind: RoundKind; run: Promise<void> } | undefined;

  constructor(options: ActivityFeedsOptions) {
    this.#options = options;
    options.lock.onChange((locked) => {
      if (locked) this.#clearTimer();
      else if (this.#started) this.#schedule(0);
    });
    // A shorter interval applies at once rather than after the current, longer wait: every profile that is not backing
    // off is due now, and its next look is timed by the new interval.
    options.settings.onChange(() => {
      if (!this.#running()) return;
      for (const feed of this.#feeds.values()) if (feed.failures === 0) feed.nextLookAtMs = 0;
      this.#schedule(0);
    });
    options.events.subscribe((event) => {
      if (!this.#running()) return;
      // A new or edited profile has no look yet, and one just made active is due at once: a round looks at them.
      if (event.type === 'profile' && event.change !== 'removed') void this.#tick();
      // A Sandbox that runs again answers now: its profiles need not sit out their back-off.
      if (event.type === 'sandbox' && event.state === 'running') {
        for (const feed of this.#feeds.values()) feed.nextLookAtMs = 0;
        void this.#tick();
      }
    });
  }

  /** Tells `listener` of every look from now on; returns how to stop. */
  subscribe(listener: FeedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    if (!this.#options.lock.locked) this.#schedule(0);
  }

  stop(): void {
    this.#started = false;
    this.#clearTimer();
  }

  /** Looks now at every profile that is not backing off, and resolves once every listener was told. */
  check(): Promise<void> {
    return this.#round('all');
  }

  /**
   * What the last look at `profile` that answered found waiting (with main's own submissions since applied), or
   * undefined when none did, it failed since, or the profile was edited: main's confirmation of a vote finds the
   * activity voted on here instead of listing the queue again.
   */
  waitingSeen(profile: Profile): readonly Activity[] | undefined {
    const feed = this.#feeds.get(profile.id);
    return feed?.key === JSON.stringify(profile) && feed.failures === 0 ? feed.seen?.waiting : undefined;
  }

  /**
   * A vote or proposal main just submitted changed what waits, and the service's answer is that activity's new state:
   * every profile of its organization that was looked at is told a look of what it saw last with that one activity
   * as it is now, so the window and every profile's inbox show it at once without the service being asked the same
   * lists again. A profile not yet looked at (or not as the active one, or backing off) is looked at now instead.
   * Resolves once every listener was told.
   */
  learned(activity: Activity): Promise<void> {
    if (!this.#running()) return Promise.resolve();
    const run = this.#last.then(() => this.#tellLearned(activity));
    this.#last = run.catch(() => undefined);
    return run.catch((error: unknown) => console.error('the activity feed could not tell a submission:', toQkError(error).message));
  }

  async #tellLearned(activity: Activity): Promise<void> {
    const { lock, profiles: store, settings } = this.#options;
    if (lock.locked) return;
    const [profiles, active, current] = await Promise.all([store.list(), store.getActive(), settings.get()]);
    const told = profiles.filter((profile) => profile.organizationId === activity.organizationId);
    await Promise.all(
      told.map((profile) => {
        const feed = this.#feedOf(profile);
        const isActive = profile.id === active?.id;
        const intervalMs = isActive ? this.#activeIntervalMs() : current.inbox.intervalSeconds * 1000;
        const { client, seen } = feed;
        // Only a look as the active profile asked for the newest completed activity.
        if (client === undefined || seen === undefined || feed.failures > 0 || (isActive && !feed.lookedAsActive))
          return this.#look(feed, intervalMs, isActive);
        feed.seen = withActivity(seen, activity, isActive);
        feed.lookedAsActive = isActive;
        return this.#tell(this.#seenLook(feed, intervalMs, isActive, client, activity));
      }),
    );
    if (lock.locked) return;
    for (const listener of this.#listeners) listener.round?.(profiles);
  }

  #running(): boolean {
    return this.#started && !this.#options.lock.locked;
  }

  /** Runs a round after the one running, if any; asks made while one waits to run join it. */
  #round(kind: RoundKind): Promise<void> {
    if (this.#queued !== undefined) {
      if (kind === 'all') this.#queued.kind = 'all';
      return this.#queued.run;
    }
    const queued: { kind: RoundKind; run: Promise<void> } = { kind, run: Promise.resolve() };
    queued.run = this.#last.then(() => {
      this.#queued = undefined;
      return this.#lookAtProfiles(queued.kind);
    });
    this.#queued = queued;
    this.#last = queued.run.catch(() => undefined);
    return queued.run;
  }

  async #lookAtProfiles(kind: RoundKind): Promise<void> {
    const { lock, profiles: store, settings, now } = this.#options;
    if (lock.locked) return;
    const [profiles, active, current] = await Promise.all([store.list(), store.getActive(), settings.get()]);
    const present = new Set(profiles.map((profile) => profile.id));
    for (const id of this.#feeds.keys()) if (!present.has(id)) this.#feeds.delete(id);
    const nowMs = now();
    const looked = profiles
      .map((profile) => ({ feed: this.#feedOf(profile), active: profile.id === active?.id }))
      .filter(({ feed, active: isActive }) =>
        kind === 'all' ? feed.failures === 0 || feed.nextLookAtMs <= nowMs : feed.nextLookAtMs <= nowMs || (isActive && !feed.lookedAsActive),
      );
    const intervalMs = current.inbox.intervalSeconds * 1000;
    // Each profile on its own: one that fails or hangs until its time-out does not hold up the others.
    await Promise.all(looked.map(({ feed, active: isActive }) => this.#look(feed, isActive ? this.#activeIntervalMs() : intervalMs, isActive)));
    if (lock.locked) return;
    for (const listener of this.#listeners) listener.round?.(profiles);
  }

  #feedOf(profile: Profile): Feed {
    const key = JSON.stringify(profile);
    const known = this.#feeds.get(profile.id);
    if (known?.key === key) return known;
    const feed: Feed = { key, profile, client: undefined, failures: 0, nextLookAtMs: 0, lookedAsActive: false, seen: undefined };
    this.#feeds.set(profile.id, feed);
    return feed;
  }

  async #look(feed: Feed, intervalMs: number, active: boolean): Promise<void> {
    const { profile } = feed;
    feed.lookedAsActive = active;
    let look: FeedLook;
    try {
      feed.client ??= this.#options.clientFor(profile);
      const client = feed.client;
      const [waiting, newestCompleted] = await Promise.all([waitingActivities(client), active ? newestCompletedOf(client) : undefined]);
      feed.failures = 0;
      feed.nextLookAtMs = this.#options.now() + intervalMs;
      feed.seen = { waiting, newestCompleted };
      look = this.#seenLook(feed, intervalMs, active, client);
    } catch (error) {
      feed.seen = undefined;
      look = { ok: false, profile, active, ...this.#failed(feed, intervalMs, error) };
    }
    await this.#tell(look);
  }

  /** A look at what `feed` saw last; `known` is an activity whose details are known already (a submission's answer). */
  #seenLook(feed: Feed, intervalMs: number, active: boolean, client: FeedClient, known?: Activity): SeenLook {
    const details = new Map<string, Promise<Activity>>(known === undefined ? [] : [[known.id, Promise.resolve(known)]]);
    return {
      ok: true,
      profile: feed.profile,
      active,
      client,
      waiting: feed.seen?.waiting ?? [],
      newestCompleted: feed.seen?.newestCompleted,
      detail: (activityId) => {
        let detail = details.get(activityId);
        if (detail === undefined) {
          detail = client.query('get_activity', { activityId }).then(({ activity }) => activity);
          details.set(activityId, detail);
        }
        return detail;
      },
      fail: (error) => this.#failed(feed, intervalMs, error).retryAtMs,
    };
  }

  /** Tells every listener of `look`, one after the other. */
  async #tell(look: FeedLook): Promise<void> {
    for (const listener of this.#listeners) {
      if (this.#options.lock.locked) return;
      try {
        await listener.look?.(look);
      } catch (error) {
        console.error('a listener of the activity feed failed:', toQkError(error).message);
      }
    }
  }

  /** Backs `feed` off: twice its interval after one failure, four times after two…, up to MAX_BACK_OFF_MS. */
  #failed(feed: Feed, intervalMs: number, error: unknown): { error: QkError; retryAtMs: number } {
    feed.failures += 1;
    const backOffMs = Math.min(intervalMs * 2 ** feed.failures, MAX_BACK_OFF_MS);
    // ±25 % so that many desktops pointed at one recovering service do not all come back at the same instant.
    const jittered = Math.round(backOffMs * (0.75 + 0.5 * (this.#options.random ?? Math.random)()));
    feed.nextLookAtMs = this.#options.now() + jittered;
    // The next look starts with a new client: the failure may have been a changed key or a moved Sandbox.
    feed.client = undefined;
    return { error: toQkError(error), retryAtMs: feed.nextLookAtMs };
  }

  #activeIntervalMs(): number {
    return this.#options.activeIntervalMs ?? ACTIVE_INTERVAL_MS;
  }

  #schedule(delayMs: number): void {
    this.#clearTimer();
    this.#timer = setTimeout(() => void this.#tick(), delayMs);
    // The feed alone must not keep a process (the CLI, a test, the bench) alive.
    this.#timer.unref();
  }

  #clearTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Looks at the profiles whose time came, then waits until the next one's (at most an inbox interval, for new profiles). */
  async #tick(): Promise<void> {
    if (!this.#running()) return;
    let intervalMs = 10_000;
    try {
      await this.#round('due');
      intervalMs = (await this.#options.settings.get()).inbox.intervalSeconds * 1000;
    } catch (error) {
      console.error('the activity feed could not look:', toQkError(error).message);
    }
    if (!this.#running()) return;
    const nowMs = this.#options.now();
    const nextMs = Math.min(intervalMs, ...[...this.#feeds.values()].map((feed) => feed.nextLookAtMs - nowMs));
    this.#schedule(Math.max(0, nextMs));
  }
}

/** What `seen` becomes once `activity` is as the service just answered: still waiting in its place, or decided and gone. */
function withActivity(seen: NonNullable<Feed['seen']>, activity: Activity, active: boolean): NonNullable<Feed['seen']> {
  const others = seen.waiting.filter(({ id }) => id !== activity.id);
  const listed = others.length < seen.waiting.length;
  const waiting = !isWaitingForApprovals(activity.status)
    ? others
    : listed
      ? seen.waiting.map((before) => (before.id === activity.id ? activity : before))
      : [activity, ...seen.waiting];
  // The newest completed activity is asked of the active profile only; one main just saw complete is the newest.
  const newestCompleted = active && activity.status === 'ACTIVITY_STATUS_COMPLETED' ? activity : seen.newestCompleted;
  return { waiting, newestCompleted };
}

function newestCompletedOf(client: FeedClient): Promise<Activity | undefined> {
  return client
    .query('list_activities', { filterByStatus: ['ACTIVITY_STATUS_COMPLETED'], paginationOptions: { limit: '1' } })
    .then(({ activities }) => activities[0]);
}
