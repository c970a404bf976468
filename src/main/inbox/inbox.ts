/**
 * One inbox across every profile this desktop holds (docs/architecture.md#the-inbox). It reads each profile's looks
 * of the activity feed (activities/feed.ts: what waits for votes, at the inbox's interval, with a back-off per
 * profile, nothing while the app is locked) and keeps no timer of its own. From what it finds it keeps, per profile, what waits for this user's vote, what this user proposed and
 * still waits, and what they proposed that was decided; it tells the person through desktop notifications and the
 * badge, and the window through the `inbox` event. What one look keeps and tells is bounded, however much a service
 * answers, and every text of the service's is shown escaped (visibleText).
 */
import type { Activity, Vote } from '../../shared/api/activity-record';
import { timestampMs } from '../../shared/api/timestamps';
import { describeActivity } from '../../shared/describe';
import { toQkError, type QkError } from '../../shared/errors';
import type { InboxItemView, InboxProfileView, InboxSettings } from '../../shared/ipc/contract';
import type { ActivityReadingView } from '../../shared/ipc/readings';
import { visibleText } from '../../shared/visible-text';
import type { ActivityFeeds, FeedClient, FeedLook, SeenLook } from '../activities/feed';
import type { Readings } from '../activities/readings';
import { tallyOf } from '../approvals/approvals';
import { proposerOf } from '../approvals/vote-reading';
import { mapConcurrently } from '../client/waiting-activities';
import type { AppEvents } from '../events/app-events';
import type { AppLock } from '../lock/lock';
import type { Profile, Profiles } from '../profiles/profiles';
import type { Settings } from '../settings/settings';
import type { Notifier } from './notifier';
import { isWaitingForApprovals } from '../../shared/approvals/voting';

/** An activity waiting for this user's vote is "expiring soon" (and notified once) within this long of its end. */
export const EXPIRING_SOON_MS = 60 * 60 * 1000;
/** Decided proposals kept per profile until the person clears them; also the most one look asks details of. */
const DECIDED_KEPT = 20;
/** Notifications one look shows per profile; what it has to tell beyond them is counted in one more. */
export const NOTIFIED_PER_LOOK = 5;

export interface InboxOptions {
  /** The looks at each profile's service the inbox reads (the one poller; see activities/feed.ts). */
  feeds: Pick<ActivityFeeds, 'subscribe' | 'check'>;
  profiles: Pick<Profiles, 'setActive'>;
  settings: Pick<Settings, 'get'>;
  lock: Pick<AppLock, 'locked' | 'onChange'>;
  /** None where there is no desktop to show them (the CLI): the inbox still keeps what waits. */
  notifier?: Notifier;
  events: Pick<AppEvents, 'emit'>;
  now: () => number;
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
}

interface Watched {
  /** The whole profile: an edited URL, organization or key starts a new `who`. */
  key: string;
  profile: Profile;
  /** Main's readings for this profile, made with its client. */
  reader: Pick<Readings, 'of'> | undefined;
  who: Who | undefined;
  /** The activities waiting at the last good look; undefined before the first. */
  waiting: Map<string, Activity> | undefined;
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
  #started = false;
  /** Activities that began waiting before this are counted, not notified: the person was not waiting to be told. */
  #startedAtMs = 0;
  #shownSignature = '';

  constructor(options: InboxOptions) {
    this.#options = options;
    options.lock.onChange((locked) => {
      if (locked) this.#onLock();
    });
    options.feeds.subscribe({ look: (look) => this.#look(look), round: (profiles) => this.#afterRound(profiles) });
  }

  /** From now on what begins waiting is news to notify (the feed itself is started by whoever shows a window). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#startedAtMs = this.#options.now();
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

  /** Has the feed look at every profile not backing off now; resolves once what it found was notified and announced. */
  check(): Promise<void> {
    return this.#options.feeds.check();
  }

  /** After a round of looks: profiles removed since are forgotten, then the badge and the window are told. */
  #afterRound(profiles: readonly Profile[]): void {
    // In the profiles' order, whichever answered first: looks come back as each service answers.
    const kept = profiles.flatMap((profile) => this.#watched.get(profile.id) ?? []);
    this.#watched.clear();
    for (const watched of kept) this.#watched.set(watched.profile.id, watched);
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
      reader: undefined,
      who: undefined,
      waiting: undefined,
      error: undefined,
      checkedAtMs: undefined,
      decided: known?.decided ?? [],
      notified: known?.notified ?? new Set(),
      readings: new Map(),
    };
    this.#watched.set(profile.id, watched);
    return watched;
  }

  async #look(look: FeedLook): Promise<void> {
    const watched = this.#watchedOf(look.profile);
    if (!look.ok) {
      this.#failed(watched, look.error, look.retryAtMs);
      return;
    }
    const { client, waiting: activities } = look;
    try {
      const settings = (await this.#options.settings.get()).inbox;
      const previous = watched.waiting;
      watched.who ??= await whoIs(client);
      watched.waiting = new Map(activities.map((activity) => [activity.id, activity]));
      await this.#read(watched, activities);
      const toldThisLook: Told = { shown: 0, more: 0 };
      await this.#notifyDecided(watched, look, previous, settings, toldThisLook);
      this.#notifyWaiting(watched, activities, previous === undefined, settings, toldThisLook);
      this.#tellMore(watched, toldThisLook);
      // What left the list never waits again: only what still waits needs remembering as told.
      for (const told of watched.notified) if (!watched.waiting.has(told.slice(told.indexOf(':') + 1))) watched.notified.delete(told);
      watched.error = undefined;
      watched.checkedAtMs = this.#options.now();
    } catch (error) {
      // What the inbox asks beyond the look failed: the profile backs off in the feed as if the look had.
      this.#failed(watched, toQkError(error), look.fail(error));
    }
  }

  #failed(watched: Watched, failure: QkError, retryAtMs: number): void {
    watched.error = { code: failure.code, message: failure.message, retryAtMs };
    // The next look asks again who the user is: the failure may have been a changed key or organization.
    watched.reader = undefined;
    watched.who = undefined;
  }

  /**
   * Reads what waits whose votes changed since it was last read (main's readings, as the Approvals screen's), and
   * forgets what no longer waits. A reading that fails leaves its row with the title alone and says why. A vote alone
   * (another operator's, or main's own applied by the feed) reads the organization as last read, however old.
   */
  async #read(watched: Watched, activities: readonly Activity[]): Promise<void> {
    const present = new Set(activities.map((activity) => activity.id));
    for (const activityId of watched.readings.keys()) if (!present.has(activityId)) watched.readings.delete(activityId);
    watched.reader ??= this.#options.readingsFor?.(watched.profile);
    const readings = watched.reader;
    if (readings === undefined) return;
    const stale = activities.filter((activity) => watched.readings.get(activity.id)?.votes !== votesSignature(activity));
    if (stale.length === 0) return;
    // Read before and changed only in its votes, which change nothing of the organization: its kept read serves.
    const votesOnly = stale.every((activity) => watched.readings.has(activity.id));
    try {
      const read = await readings.of(stale, { keptOfAnyAge: votesOnly });
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
  async #notifyDecided(
    watched: Watched,
    { detail }: SeenLook,
    previous: Map<string, Activity> | undefined,
    settings: InboxSettings,
    told: Told,
  ): Promise<void> {
    const { who, waiting } = watched;
    if (previous === undefined || who === undefined || waiting === undefined) return;
    const stopped = [...previous.entries()]
      .filter(([activityId, before]) => !waiting.has(activityId) && requesterOf(before)?.userId === who.userId)
      .slice(0, DECIDED_KEPT)
      .map(([activityId]) => activityId);
    const answers = await mapConcurrently(stopped, async (activityId) => ({ activityId, activity: await detail(activityId) }));
    for (const { activityId, activity } of answers) {
      if (isWaitingForApprovals(activity.status)) continue;
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
          title: `${item.authenticator?.headline ?? 'Your vote'}: ${item.summary}`,
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

async function whoIs(client: FeedClient): Promise<Who> {
  const { userId, organizationName } = await client.query('whoami', {});
  return { userId, organizationName };
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

/**
 * One row, in the words of main's vote reading (vote-reading.ts). Until that reading is made (or when it cannot be)
 * the row asks nothing of the user: it names the activity and its count, and waits for the reading.
 */
function itemOf(activity: Activity, who: Who | undefined, kept: KeptReading | undefined, nowMs: number): InboxItemView {
  const { voters, approverIds, timeLeftMs } = tallyOf(activity.votes, nowMs);
  const reading = kept?.reading;
  const vote = reading?.vote;
  const authenticator = vote?.authenticators;
  const waitingForMe =
    authenticator !== undefined ||
    (vote !== undefined && vote.viewerVote === undefined && (vote.viewerCounts || vote.stillToVote.some((voter) => voter.userId === who?.userId)));
  const requester = proposerOf(voters);
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
    ...(requester === undefined ? {} : { requester }),
    createdAtMs: timestampMs(activity.createdAt),
    waitingForMe,
    ...(authenticator === undefined
      ? {}
      : {
          authenticator: { headline: authenticator.headline, heldHere: authenticator.heldHere, held: clipped(visibleText(authenticator.held), 1000) },
        }),
    proposedByMe: vote?.proposedByViewer === true,
    approvals: approverIds.length,
    progress: vote?.progress ?? `${approverIds.length} approved`,
    completesIt: waitingForMe && vote?.viewerCompletes === true,
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
