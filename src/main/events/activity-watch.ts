/**
 * Tells the window of the active profile's activities that were proposed, voted on or decided elsewhere (another
 * operator, the CLI, another machine), so they show up without anyone pressing Refresh. It asks nothing of its own:
 * it reads the active profile's looks of the activity feed (activities/feed.ts) and turns what changed since the last
 * one into `activity` events; main's read of the organization is made anew when one reports a completion that can
 * change it. Main's own submissions are announced through it too, so each change is one event, whoever saw it first.
 */
import type { Activity } from '../../shared/api/activity-record';
import { isWaitingForApprovals } from '../../shared/approvals/voting';
import type { ActivityFeeds, SeenLook } from '../activities/feed';
import { mapConcurrently } from '../client/waiting-activities';
import type { AppLock } from '../lock/lock';
import { changesOrganization } from '../organization/read-model';
import type { AppEvents } from './app-events';

export interface ActivityWatchOptions {
  feeds: Pick<ActivityFeeds, 'subscribe' | 'check'>;
  lock: Pick<AppLock, 'onChange'>;
  events: Pick<AppEvents, 'emit'>;
  /** Told of each activity reported completed, before its event (main's read of the organization may be stale). */
  completed?: (activity: Activity) => void;
}

/**
 * What the watch saw last, for one profile's organization: each waiting activity's status and vote count, and the
 * newest completed activity.
 */
interface Seen {
  scope: string;
  activities: Map<string, string>;
  newest: string | undefined;
}

export class ActivityWatch {
  readonly #options: ActivityWatchOptions;
  #seen: Seen | undefined;
  /**
   * The state main's own submissions announced, by activity id, with the organization it is of: a look that finds
   * it again says nothing new. Kept only for the organization looked at, and only until a look confirms it or sees
   * the activity decided, so votes cast from the inbox on other profiles do not pile up.
   */
  readonly #announced = new Map<string, { organizationId: string; state: string }>();
  /**
   * The state each activity was last reported in, for the latest TOLD_KEPT of them in the scope looked at: a change
   * seen twice (a look that found main's own vote decided before the service answered it, then the answer) is one event.
   */
  readonly #told = new Map<string, string>();

  constructor(options: ActivityWatchOptions) {
    this.#options = options;
    options.feeds.subscribe({ look: (look) => (look.ok && look.active ? this.#report(look) : undefined) });
    // Nothing is read while locked; after the unlock the watch starts over from what is waiting then.
    options.lock.onChange((locked) => {
      if (locked) {
        this.#seen = undefined;
        this.#told.clear();
      }
    });
  }

  /**
   * Announces an activity main itself just submitted or voted on, from the service's answer. The next look that finds
   * it in this state (still waiting with these votes, or gone from what waits once decided) reports nothing of it and
   * asks nothing more about it: one change, one event.
   */
  announce(activity: Activity, change: 'created' | 'changed'): void {
    this.#announced.set(activity.id, { organizationId: activity.organizationId, state: stateOf(activity) });
    this.#tell(activity, change);
  }

  /** Has the feed look now, and resolves once what changed was reported. */
  check(): Promise<void> {
    return this.#options.feeds.check();
  }

  /**
   * Reports every activity that appeared, changed (a vote, a status) or stopped waiting since the last look at the
   * same profile. The first look at a profile (after a switch, or the unlock) reports every activity waiting then as
   * changed: the window may have read the profile before one appeared, and nothing else would tell it.
   */
  async #report({ profile, waiting, newestCompleted: newest, detail }: SeenLook): Promise<void> {
    const scope = JSON.stringify([profile.id, profile.baseUrl, profile.organizationId]);
    // Another organization's announcements are no look's here to confirm (the scope moved on, or a vote from the inbox).
    for (const [activityId, { organizationId }] of this.#announced) if (organizationId !== profile.organizationId) this.#announced.delete(activityId);
    const previous = this.#seen?.scope === scope ? this.#seen : undefined;
    // A profile's first look reports what it finds, whatever was told before of another.
    if (previous === undefined) this.#told.clear();
    const activities = new Map(waiting.map((activity) => [activity.id, stateOf(activity)]));
    const newestState = newest === undefined ? undefined : `${newest.id}:${stateOf(newest)}`;
    this.#seen = { scope, activities, newest: newestState };
    // A change elsewhere that needed no vote is seen only as the newest completed activity. As for what waits, a
    // profile's first look reports it: the organization may have been read before it ran.
    if (newest !== undefined && newestState !== previous?.newest && !this.#wasAnnounced(newest)) {
      this.#tell(newest, 'created');
    }
    for (const activity of waiting) {
      const before = previous?.activities.get(activity.id);
      if (before === stateOf(activity) || this.#wasAnnounced(activity)) continue;
      const change = previous !== undefined && before === undefined ? 'created' : 'changed';
      this.#tell(activity, change);
    }
    // Decided (or expired from the list) since the last look: its new status says which.
    const left = [...(previous?.activities.keys() ?? [])].filter((activityId) => !activities.has(activityId) && !this.#announcedDecided(activityId));
    // What this look confirmed, or saw decided, was told already; an announcement it contradicts (a look older than the
    // vote) stays.
    for (const [activityId, { state }] of this.#announced) {
      const confirmed = activities.has(activityId) ? activities.get(activityId) === state : !isWaitingForApprovals(statusOfState(state));
      if (confirmed || left.includes(activityId)) this.#announced.delete(activityId);
    }
    const decided = await mapConcurrently(left, (activityId) =>
      detail(activityId).then(
        (activity) => activity,
        () => undefined,
      ),
    );
    for (const activity of decided) if (activity !== undefined) this.#tell(activity, 'changed');
  }

  #tell(activity: Activity, change: 'created' | 'changed'): void {
    const state = stateOf(activity);
    if (this.#told.get(activity.id) === state) return;
    this.#told.delete(activity.id);
    this.#told.set(activity.id, state);
    if (this.#told.size > TOLD_KEPT) this.#told.delete(this.#told.keys().next().value!);
    if (activity.status === 'ACTIVITY_STATUS_COMPLETED') this.#options.completed?.(activity);
    this.#options.events.emit({
      type: 'activity',
      change,
      organizationId: activity.organizationId,
      activityId: activity.id,
      status: activity.status,
      organizationChanged: activity.status === 'ACTIVITY_STATUS_COMPLETED' && changesOrganization(activity.type),
    });
  }

  /** Whether main announced `activity` as it is now. */
  #wasAnnounced(activity: Activity): boolean {
    return this.#announced.get(activity.id)?.state === stateOf(activity);
  }

  /** Whether main announced `activityId` decided (no longer waiting), so its leaving the list is already told. */
  #announcedDecided(activityId: string): boolean {
    const announced = this.#announced.get(activityId)?.state;
    return announced !== undefined && !isWaitingForApprovals(statusOfState(announced));
  }
}

/** Reported states kept: far more than change between two looks, few enough to forget. */
const TOLD_KEPT = 100;

function stateOf(activity: Activity): string {
  return `${activity.status}:${activity.votes.map((vote) => `${vote.userId}=${vote.selection}`).join(',')}`;
}

function statusOfState(state: string): string {
  return state.slice(0, state.indexOf(':'));
}
