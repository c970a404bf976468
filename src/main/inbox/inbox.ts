/**
 * One inbox across every profile this desktop holds (docs/architecture.md#the-inbox). Main looks at each profile's
 * service once per interval (Settings, 10 s by default) with one `list_activities` of what waits for votes, backs
 * off with jitter from a service that fails without holding up the others, and stops looking while the app is
 * locked. From what it finds it keeps, per profile, what waits for this user's vote, what this user proposed and
 * still waits, and what they proposed that was decided; it tells the person through desktop notifications and the
 * badge, and the window through the `inbox` event. What one look keeps and tells is bounded, however much a service
 * answers, and every text of the service's is shown escaped (visibleText).
 */
import type { Activity, Vote } from '../../shared/api/activity-record';
import { timestampMs } from '../../shared/api/timestamps';
import { currentVoteOf } from '../../shared/approvals/voting';
import { describeActivity } from '../../shared/describe';
import { toQkError } from '../../shared/errors';
import type { InboxItemView, InboxProfileView, InboxSettings } from '../../shared/ipc/contract';
import type { ActivityReadingView } from '../../shared/ipc/readings';
import { visibleText } from '../../shared/visible-text';
import type { Readings } from '../activities/readings';
import { tallyOf } from '../approvals/approvals';
import type { ApiClient } from '../client/api-client';
import { mapConcurrently, waitingActivities } from '../client/waiting-activities';
import type { AppEvents } from '../events/app-events';
import type { AppLock } from '../lock/lock';
import type { Profile, Profiles } from '../profiles/profiles';
import type { Settings } from '../settings/settings';
import type { Notifier } from './notifier';

/** An activity waiting for this user's vote is "expiring soon" (and notified once) within this long of its end. */
export const EXPIRING_SOON_MS = 60 * 60 * 1000;
/** The longest a failing service waits between two looks, before jitter. */
export const MAX_BACK_OFF_MS = 5 * 60 * 1000;
/** Decided proposals kept per profile until the person clears them; also the most one look asks details of. */
const DECIDED_KEPT = 20;
/** Notifications one look shows per profile; what it has to tell beyond them is counted in one more. */
export const NOTIFIED_PER_LOOK = 5;

export type InboxClient = Pick<ApiClient, 'query'>;

export interface InboxOptions {
  profiles: Pick<Profiles, 'list' | 'setActive'>;
  /** A client acting for `profile`, its requests not listed among the page's; throws when it cannot (a stopped Sandbox). */
  clientFor: (profile: Profile) => InboxClient;
  settings: Pick<Settings, 'get' | 'onChange'>;
  lock: Pick<AppLock, 'locked' | 'onChange'>;
  /** None where there is no desktop to show them (the CLI): the inbox still keeps what waits. */
  notifier?: Notifier;
  events: Pick<AppEvents, 'emit' | 'subscribe'>;
  now: () => number;
  /** For the back-off's jitter (Math.random by default). */
  random?: () => number;
  /** Told after a notification click made its profile active (the app brings its window to the front). */
  onOpened?: () => void;
  /**
   * Main's readings of a profile's activities (what each asks for, and the vote reading: verdict, who may still vote,
   * what this user's vote does), so a row and its notification say what the Approvals screen says. Without it (the
   * bench), rows carry the activity's title alone.
   */
  readingsFor?: (profile: Profile) => Pick<Readings, 'of'>;
}

/** What the inbox knows of one profile's user, asked once per profile (and again after a decision may change it). */
interface Who {
  userId: string;
  organizationName: string;
  quorum: { threshold: number; userIds: string[] } | undefined;
}

interface Watched {
  /** The whole profile: an edited URL, organization or key starts a new client and a new `who`. */
  key: string;
  profile: Profile;
  client: InboxClient | undefined;
  /** Main's readings for this profile, made with its client. */
  reader: Pick<Readings, 'of'> | undefined;
  who: Who | undefined;
  /** The activities waiting at the last good look; undefined before the first. */
  waiting: Map<string, Activity> | undefined;
  failures: number;
  nextLookAtMs: number;
  error: InboxProfileView['error'];
  checkedAtMs: number | undefined;
  decided: InboxProfileView['decided'];
  /** `kind:activityId` of what was already notified, so each is said once. */
  notified: Set<string>;
  /** Each waiting activity's reading, kept while its votes stay the same (see votesSignature). */
  readings: Map<string, KeptReading>;
}

/** A reading as of the votes it was made with; `unread` says why there is none. */
interface KeptReading {
  votes: string;
  reading?: ActivityReadingView;
  unread?: string;
}

/** What one look has told of one profile: notifications shown, and how many more it had to tell. */
interface Told {
  shown: number;
  more: number;
}

export class Inbox {
  readonly #options: InboxOptions;
  readonly #watched = new Map<string, Watched>();
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  /** Activities that began waiting before this are counted, not notified: the person was not waiting to be told. */
  #startedAtMs = 0;
  #checking: Promise<void> | undefined;
  #again = false;
  #shownSignature = '';

  constructor(options: InboxOptions) {
    this.#options = options;
    options.lock.onChange((locked) => {
      if (locked) this.#onLock();
      else if (this.#started) this.#schedule(0);
    });
    // A shorter interval applies at once rather than after the current, longer wait.
    options.settings.onChange(() => {
      if (this.#started && !options.lock.locked) this.#schedule(0);
    });
    options.events.subscribe((event) => {
      if (!this.#started || options.lock.locked) return;
      if (event.type === 'profile' && (event.change === 'added' || event.change === 'edited')) void this.check();
      // A Sandbox that runs again answers now: its profiles need not sit out their back-off.
      if (event.type === 'sandbox' && event.state === 'running') {
        for (const watched of this.#watched.values()) watched.nextLookAtMs = 0;
        void this.check();
      }
    });
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#startedAtMs = this.#options.now();
    if (!this.#options.lock.locked) this.#schedule(0);
  }

  stop(): void {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * A vote or proposal main just submitted changed what waits: look again now rather than at the next interval, so
   * a vote made under one profile clears the activity from the others' inboxes at once.
   */
  lookNow(): void {
    if (this.#started && !this.#options.lock.locked) void this.check();
  }

  /** Every profile's inbox as last seen, and how many approvals wait for this desktop's users. */
  list(): { waitingForMe: number; profiles: InboxProfileView[] } {
    const profiles = [...this.#watched.values()].map((watched) => this.#view(watched));
    return { waitingForMe: countWaiting(profiles), profiles };
  }

  clearDecided(): void {
    for (const watched of this.#watched.values()) watched.decided = [];
    this.#announce();
  }

  /**
   * Looks at every profile that is due (all but those backing off), then notifies and announces what changed. A
   * check asked for while one runs runs once more after it, so nothing asked for is missed.
   */
  check(): Promise<void> {
    if (this.#checking !== undefined) {
      this.#again = true;
      return this.#checking;
    }
    this.#checking = this.#checkOnce().finally(() => {
      this.#checking = undefined;
      if (this.#again) {
        this.#again = false;
        void this.check();
      }
    });
    return this.#checking;
  }

  async #checkOnce(): Promise<void> {
    if (this.#options.lock.locked) return;
    const settings = (await this.#options.settings.get()).inbox;
    const profiles = await this.#options.profiles.list();
    const present = new Set(profiles.map((profile) => profile.id));
    for (const id of this.#watched.keys()) if (!present.has(id)) this.#watched.delete(id);
    const nowMs = this.#options.now();
    const due = profiles.map((profile) => this.#watchedOf(profile)).filter((watched) => watched.nextLookAtMs <= nowMs);
    // Each profile on its own: one that fails or hangs until its time-out does not hold up the others' notifications.
    await Promise.all(due.map((watched) => this.#look(watched, settings)));
    if (this.#options.lock.locked) return;
    this.#options.notifier?.setBadge(this.list().waitingForMe);
    this.#announce();
  }

  #watchedOf(profile: Profile): Watched {
    const key = JSON.stringify(profile);
    const known = this.#watched.get(profile.id);
    if (known?.key === key) return known;
    const watched: Watched = {
      key,
      profile,
      client: undefined,
      reader: undefined,
      who: undefined,
      waiting: undefined,
      failures: 0,
      nextLookAtMs: 0,
      error: undefined,
      checkedAtMs: undefined,
      decided: known?.decided ?? [],
      notified: known?.notified ?? new Set(),
      readings: new Map(),
    };
    this.#watched.set(profile.id, watched);
    return watched;
  }

  async #look(watched: Watched, settings: InboxSettings): Promise<void> {
    const { now } = this.#options;
    try {
      watched.client ??= this.#options.clientFor(watched.profile);
      const client = watched.client;
      const activities = await waitingActivities(client);
      const previous = watched.waiting;
      // Who decides may have changed whenever something appeared or was decided (a quorum change that needed no vote
      // leaves no trace in this list): the quorum is read again then, and only then, so a quiet look costs one request.
      const appearedOrLeft =
        previous === undefined || activities.length !== previous.size || activities.some((activity) => !previous.has(activity.id));
      if (watched.who === undefined) watched.who = await whoIs(client);
      else if (appearedOrLeft) watched.who.quorum = await quorumOf(client);
      watched.waiting = new Map(activities.map((activity) => [activity.id, activity]));
      await this.#read(watched, activities);
      const toldThisLook: Told = { shown: 0, more: 0 };
      await this.#notifyDecided(watched, previous, settings, toldThisLook);
      this.#notifyWaiting(watched, activities, previous === undefined, settings, toldThisLook);
      this.#tellMore(watched, toldThisLook);
      // What left the list never waits again: only what still waits needs remembering as told.
      for (const told of watched.notified) if (!watched.waiting.has(told.slice(told.indexOf(':') + 1))) watched.notified.delete(told);
      watched.failures = 0;
      watched.nextLookAtMs = 0;
      watched.error = undefined;
      watched.checkedAtMs = now();
    } catch (error) {
      const failure = toQkError(error);
      watched.failures += 1;
      const intervalMs = settings.intervalSeconds * 1000;
      const backOffMs = Math.min(intervalMs * 2 ** watched.failures, MAX_BACK_OFF_MS);
      // ±25 % so that many desktops pointed at one recovering service do not all come back at the same instant.
      const jittered = Math.round(backOffMs * (0.75 + 0.5 * (this.#options.random ?? Math.random)()));
      watched.nextLookAtMs = now() + jittered;
      watched.error = { code: failure.code, message: failure.message, retryAtMs: watched.nextLookAtMs };
      // The next look asks again who the user is: the failure may have been a changed key or organization.
      watched.client = undefined;
      watched.reader = undefined;
      watched.who = undefined;
    }
  }

  /**
   * Reads what waits whose votes changed since it was last read (main's readings, as the Approvals screen's), and
   * forgets what no longer waits. A reading that fails leaves its row with the title alone and says why.
   */
  async #read(watched: Watched, activities: readonly Activity[]): Promise<void> {
    const present = new Set(activities.map((activity) => activity.id));
    for (const activityId of watched.readings.keys()) if (!present.has(activityId)) watched.readings.delete(activityId);
    watched.reader ??= this.#options.readingsFor?.(watched.profile);
    const readings = watched.reader;
    if (readings === undefined) return;
    const stale = activities.filter((activity) => watched.readings.get(activity.id)?.votes !== votesSignature(activity));
    if (stale.length === 0) return;
    try {
      const read = await readings.of(stale);
      stale.forEach((activity, index) => watched.readings.set(activity.id, { votes: votesSignature(activity), reading: read[index]! }));
    } catch (error) {
      const unread = toQkError(error).message;
      for (const activity of stale) watched.readings.set(activity.id, { votes: votesSignature(activity), unread });
    }
  }

  /**
   * Proposals of this user that stopped waiting since the last look: a get_activity each says how they ended, a few
   * at a time, for at most as many as are kept. One still waiting had only slid off the page the look asked for.
   */
  async #notifyDecided(watched: Watched, previous: Map<string, Activity> | undefined, settings: InboxSettings, told: Told): Promise<void> {
    const { client, who, waiting } = watched;
    if (previous === undefined || who === undefined || waiting === undefined || client === undefined) return;
    const stopped = [...previous.entries()]
      .filter(([activityId, before]) => !waiting.has(activityId) && requesterOf(before)?.userId === who.userId)
      .slice(0, DECIDED_KEPT)
      .map(([activityId]) => activityId);
    const answers = await mapConcurrently(stopped, async (activityId) => ({
      activityId,
      activity: (await client.query('get_activity', { activityId })).activity,
    }));
    for (const { activityId, activity } of answers) {
      if (activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED') continue;
      const title = titleOf(activity);
      watched.decided = [
        { activityId, type: activity.type, title, status: activity.status, decidedAtMs: this.#options.now() },
        ...watched.decided,
      ].slice(0, DECIDED_KEPT);
      if (settings.notifyDecided) {
        this.#show(watched, told, `decided:${activityId}`, {
          kind: 'decided',
          title: `${outcomeInWords(activity.status)}: ${title}`,
          body: `You proposed it, on ${whereInWords(watched)}.`,
          activityId,
        });
      }
    }
  }

  #notifyWaiting(watched: Watched, activities: readonly Activity[], firstLook: boolean, settings: InboxSettings, told: Told): void {
    for (const item of itemsOf(watched, activities, this.#options.now())) {
      if (!item.waitingForMe) continue;
      // At a profile's first look only what began waiting since the inbox started is news.
      const isNew = !firstLook || item.createdAtMs >= this.#startedAtMs;
      if (settings.notifyWaiting && isNew) {
        const warned =
          item.warnings.length === 0 ? '' : `${item.warnings.length === 1 ? '1 warning' : `${item.warnings.length} warnings`}: ${item.warnings[0]} `;
        this.#show(watched, told, `waiting:${item.activityId}`, {
          kind: 'waiting',
          title: `Your vote: ${item.summary}`,
          body: `${warned}${item.completesIt ? 'Your approval completes it. ' : ''}${item.requester === undefined ? '' : `Proposed by ${item.requester}, `}on ${whereInWords(watched)}.`,
          activityId: item.activityId,
        });
      }
      if (settings.notifyExpiring && item.expiringSoon) {
        this.#show(watched, told, `expiring:${item.activityId}`, {
          kind: 'expiring',
          title: `Expires within the hour: ${item.title}`,
          body: `It waits for your vote on ${whereInWords(watched)}.`,
          activityId: item.activityId,
        });
      }
    }
  }

  /** Shows one notification, once, unless this look has shown its share: then it is counted for #tellMore. */
  #show(
    watched: Watched,
    told: Told,
    once: string,
    { kind, title, body, activityId }: { kind: 'waiting' | 'decided' | 'expiring'; title: string; body: string; activityId: string },
  ): void {
    if (watched.notified.has(once)) return;
    watched.notified.add(once);
    if (told.shown >= NOTIFIED_PER_LOOK) {
      told.more += 1;
      return;
    }
    told.shown += 1;
    const profileId = watched.profile.id;
    // The service's words (titles, names) and the profile's name are shown as text, never acted on.
    this.#options.notifier?.show({ kind, title: visibleText(title), body: visibleText(body), onClick: () => void this.#open(profileId, activityId) });
  }

  /** One notification for what a look had to tell beyond its share: how many, and where; the inbox lists them. */
  #tellMore(watched: Watched, told: Told): void {
    if (told.more === 0) return;
    this.#options.notifier?.show({
      kind: 'count',
      title: `${told.more} more in QuorumKey's inbox`,
      body: visibleText(`Also waiting or decided on ${whereInWords(watched)}.`),
      onClick: () => this.#options.onOpened?.(),
    });
  }

  /** A notification's click: its profile becomes active (as a switch on the Profiles screen would), then the window shows the activity. */
  async #open(profileId: string, activityId: string): Promise<void> {
    try {
      await this.#options.profiles.setActive(profileId);
    } catch (error) {
      // Removed since it was notified: nothing to open.
      console.error('the notified profile cannot be opened:', toQkError(error).message);
      return;
    }
    this.#options.events.emit({ type: 'open-activity', profileId, activityId });
    this.#options.onOpened?.();
  }

  /** Locked: no content stays on screen; one notification says how many approvals wait, nothing about them. */
  #onLock(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const { notifier } = this.#options;
    if (notifier === undefined) return;
    notifier.withdrawAll();
    const waiting = this.list().waitingForMe;
    if (waiting === 0) return;
    void this.#options.settings.get().then(
      ({ inbox }) => {
        if (!inbox.notifyWaiting || !this.#options.lock.locked) return;
        notifier.show({
          kind: 'count',
          title: 'QuorumKey',
          body: `${waiting} ${waiting === 1 ? 'approval' : 'approvals'} waiting`,
          onClick: () => this.#options.onOpened?.(),
        });
      },
      (error: unknown) => console.error('the inbox could not read its settings:', toQkError(error).message),
    );
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), delayMs);
    // The inbox alone must not keep a process (a test, the bench) alive.
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    let intervalMs = 10_000;
    try {
      await this.check();
      intervalMs = (await this.#options.settings.get()).inbox.intervalSeconds * 1000;
    } catch (error) {
      console.error('the inbox could not look:', toQkError(error).message);
    }
    if (this.#started && !this.#options.lock.locked && this.#timer === undefined) this.#schedule(intervalMs);
  }

  /** Tells the window when what it would show changed (time passing alone does not count). */
  #announce(): void {
    const signature = JSON.stringify(
      this.list().profiles.map(({ items, checkedAtMs: _checked, ...rest }) => ({
        ...rest,
        items: items.map(({ timeLeftMs: _left, ...item }) => item),
      })),
    );
    if (signature === this.#shownSignature) return;
    this.#shownSignature = signature;
    this.#options.events.emit({ type: 'inbox' });
  }

  #view(watched: Watched): InboxProfileView {
    const { profile, who, waiting, error, checkedAtMs, decided } = watched;
    return {
      profileId: profile.id,
      profileName: profile.name,
      organizationId: profile.organizationId,
      ...(who === undefined ? {} : { organizationName: visibleText(who.organizationName) }),
      ...(error === undefined ? {} : { error }),
      ...(checkedAtMs === undefined ? {} : { checkedAtMs }),
      items: waiting === undefined ? [] : itemsOf(watched, [...waiting.values()], this.#options.now()),
      decided,
    };
  }
}

async function whoIs(client: InboxClient): Promise<Who> {
  const [{ userId, organizationName }, quorum] = await Promise.all([client.query('whoami', {}), quorumOf(client)]);
  return { userId, organizationName, quorum };
}

function quorumOf(client: InboxClient): Promise<Who['quorum']> {
  return client.query('get_organization_configs', {}).then(
    ({ configs }) => configs.quorum,
    // A service without the configs query still has activities to vote on; who completes one stays unknown.
    () => undefined,
  );
}

/** The items of one profile: those waiting for this user's vote first, then soonest to expire; no window open last. */
function itemsOf(watched: Watched, activities: readonly Activity[], nowMs: number): InboxItemView[] {
  const who = watched.who;
  return activities
    .map((activity) => itemOf(activity, who, watched.readings.get(activity.id), nowMs))
    .sort(
      (a, b) =>
        Number(b.waitingForMe) - Number(a.waitingForMe) || (a.timeLeftMs || Infinity) - (b.timeLeftMs || Infinity) || b.createdAtMs - a.createdAtMs,
    );
}

/** Warnings a row and its notification carry at most; the Approvals screen lists them all. */
const ROW_WARNINGS = 20;

function itemOf(activity: Activity, who: Who | undefined, kept: KeptReading | undefined, nowMs: number): InboxItemView {
  const { voters, approverIds, timeLeftMs } = tallyOf(activity.votes, nowMs);
  const reading = kept?.reading;
  const vote = reading?.vote;
  const quorum = who?.quorum;
  // Without main's vote reading (not read yet, or it failed): "of threshold" only while every approval so far is a
  // quorum member's, and any user without a vote is asked.
  const required =
    vote !== undefined
      ? vote.required
      : quorum !== undefined && approverIds.every((userId) => quorum.userIds.includes(userId))
        ? quorum.threshold
        : undefined;
  const unvoted = who !== undefined && currentVoteOf(voters, who.userId) === undefined;
  const waitingForMe = unvoted && (vote === undefined || vote.viewerCounts || vote.stillToVote.some((voter) => voter.userId === who.userId));
  const requester = requesterOf(activity);
  const title = visibleText(reading?.title ?? describeActivity(activity).title);
  const warnings = [...(vote?.warnings ?? []), ...(reading?.warnings ?? []), ...(reading?.largeValue === undefined ? [] : [reading.largeValue])];
  return {
    activityId: activity.id,
    fingerprint: activity.fingerprint,
    type: activity.type,
    title: clipped(title, 200),
    summary: clipped(
      reading === undefined
        ? kept?.unread === undefined
          ? title
          : `${title} (not read: ${visibleText(kept.unread)})`
        : visibleText(reading.summary),
      400,
    ),
    warnings: warnings.slice(0, ROW_WARNINGS).map((warning) => clipped(visibleText(warning), 1000)),
    ...(requester === undefined ? {} : { requester: visibleText(requester.user.userName || requester.userId) }),
    createdAtMs: timestampMs(activity.createdAt),
    waitingForMe,
    proposedByMe: who !== undefined && requester?.userId === who.userId,
    approvals: approverIds.length,
    ...(required === undefined ? {} : { required }),
    completesIt:
      waitingForMe &&
      (vote !== undefined
        ? vote.viewerCompletes
        : required !== undefined && quorum!.userIds.includes(who.userId) && approverIds.length + 1 >= required),
    timeLeftMs,
    expiringSoon: waitingForMe && timeLeftMs > 0 && timeLeftMs <= EXPIRING_SOON_MS,
  };
}

/** What a reading depends on that changes while an activity waits: its votes. */
function votesSignature(activity: Activity): string {
  return activity.votes.map((vote) => `${vote.userId}:${vote.selection}:${timestampMs(vote.createdAt)}`).join(',');
}

function clipped(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** The describer's title, as the Approvals screen shows it ("Rename a user"), escaped: it may quote the service. */
function titleOf(activity: Activity): string {
  return visibleText(describeActivity(activity).title);
}

/** Who proposed it: the first vote is the proposer's. */
function requesterOf(activity: Activity): Vote | undefined {
  return [...activity.votes].sort((a, b) => timestampMs(a.createdAt) - timestampMs(b.createdAt))[0];
}

function countWaiting(profiles: readonly InboxProfileView[]): number {
  return profiles.reduce((sum, profile) => sum + profile.items.filter((item) => item.waitingForMe).length, 0);
}

function whereInWords({ profile, who }: Watched): string {
  return who === undefined ? `profile ${profile.name}` : `${who.organizationName} (profile ${profile.name})`;
}

function outcomeInWords(status: Activity['status']): string {
  switch (status) {
    case 'ACTIVITY_STATUS_COMPLETED':
      return 'Approved';
    case 'ACTIVITY_STATUS_REJECTED':
      return 'Rejected';
    case 'ACTIVITY_STATUS_FAILED':
      return 'Approved but failed';
    default:
      return 'Decided';
  }
}
