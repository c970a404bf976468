/**
 * Watches the active profile's activities that wait for votes, so an activity proposed, voted on or decided
 * elsewhere (another operator, the CLI, another machine) reaches the window without anyone pressing Refresh. A light
 * poll in main, not in the page: every few seconds one `list_activities` of what waits (one page; the details of
 * what left it a few at a time, waiting-activities.ts) and one of the newest completed activity, none while the app
 * is locked.
 */
import type { Activity } from '../../shared/api/activity-record';
import { mapConcurrently, waitingActivities } from '../client/waiting-activities';
import type { ActiveProfile } from '../profiles/active-profile';
import type { AppLock } from '../lock/lock';
import type { AppEvents } from './app-events';

export const ACTIVITY_WATCH_INTERVAL_MS = 3_000;

export interface ActivityWatchOptions {
  active: Pick<ActiveProfile, 'services'>;
  lock: Pick<AppLock, 'locked' | 'onChange'>;
  events: Pick<AppEvents, 'emit'>;
  intervalMs?: number;
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
  #timer: NodeJS.Timeout | undefined;
  #seen: Seen | undefined;
  #checking: Promise<void> | undefined;
  #started = false;

  constructor(options: ActivityWatchOptions) {
    this.#options = options;
    // Nothing is read while locked; on unlock the watch starts over from what is waiting then.
    options.lock.onChange((locked) => {
      if (locked) this.#pause();
      else if (this.#started) this.#resume();
    });
  }

  start(): void {
    this.#started = true;
    if (!this.#options.lock.locked) this.#resume();
  }

  stop(): void {
    this.#started = false;
    this.#pause();
  }

  /**
   * Reads what waits now and reports every activity that appeared, changed (a vote, a status) or stopped waiting since
   * the last check of the same profile. The first check of a profile reports every activity waiting then as changed:
   * the window may have read the profile before one appeared, and nothing else would tell it.
   */
  check(): Promise<void> {
    this.#checking ??= this.#checkOnce().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #checkOnce(): Promise<void> {
    if (this.#options.lock.locked) return;
    let services;
    try {
      services = await this.#options.active.services();
    } catch {
      // No profile is active, or it is the Sandbox and stopped: nothing to watch until that changes.
      this.#seen = undefined;
      return;
    }
    const { profile, client } = services;
    const scope = JSON.stringify([profile.id, profile.baseUrl, profile.organizationId]);
    let waiting: Activity[];
    let newest: Activity | undefined;
    try {
      // The newest completed activity too: a change made elsewhere that needed no vote (a policy, a user, the root
      // quorum) never waits, and it is seen only there; main's read of the organization is made anew when it is reported.
      [waiting, newest] = await Promise.all([
        waitingActivities(client),
        client
          .query('list_activities', { filterByStatus: ['ACTIVITY_STATUS_COMPLETED'], paginationOptions: { limit: '1' } })
          .then(({ activities }) => activities[0]),
      ]);
    } catch {
      // Unreachable for now (a restart, the network): the screens say so when they read; the next check tries again.
      return;
    }
    const previous = this.#seen?.scope === scope ? this.#seen : undefined;
    const activities = new Map(waiting.map((activity) => [activity.id, stateOf(activity)]));
    const newestState = newest === undefined ? undefined : `${newest.id}:${stateOf(newest)}`;
    this.#seen = { scope, activities, newest: newestState };
    const { events } = this.#options;
    // As for what waits, a profile's first look reports it: the organization may have been read before it ran.
    if (newest !== undefined && newestState !== previous?.newest) {
      events.emit({ type: 'activity', change: 'created', organizationId: newest.organizationId, activityId: newest.id, status: newest.status });
    }
    for (const activity of waiting) {
      const before = previous?.activities.get(activity.id);
      if (before === stateOf(activity)) continue;
      const change = previous !== undefined && before === undefined ? 'created' : 'changed';
      events.emit({ type: 'activity', change, organizationId: activity.organizationId, activityId: activity.id, status: activity.status });
    }
    // Decided (or expired from the list) since the last check: its new status says which.
    const left = [...(previous?.activities.keys() ?? [])].filter((activityId) => !activities.has(activityId));
    const decided = await mapConcurrently(left, (activityId) =>
      client.query('get_activity', { activityId }).then(
        ({ activity }) => activity,
        () => undefined,
      ),
    );
    for (const [index, activity] of decided.entries()) {
      if (activity === undefined) continue;
      events.emit({
        type: 'activity',
        change: 'changed',
        organizationId: activity.organizationId,
        activityId: left[index]!,
        status: activity.status,
      });
    }
  }

  #resume(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.check(), this.#options.intervalMs ?? ACTIVITY_WATCH_INTERVAL_MS);
    // The watch alone must not keep a process (the CLI, a test) alive.
    this.#timer.unref();
    void this.check();
  }

  #pause(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#seen = undefined;
  }
}

function stateOf(activity: Activity): string {
  return `${activity.status}:${activity.votes.map((vote) => `${vote.userId}=${vote.selection}`).join(',')}`;
}
