/**
 * What main's polls (the inbox, the activity watch) ask a service about the activities waiting for votes, bounded
 * whatever the service answers: one page of them per look, and the details of those that stopped waiting a few at a
 * time, never one long sequence of requests nor all at once.
 */
import type { Activity } from '../../shared/api/activity-record';
import { WAITING_STATUSES } from '../../shared/approvals/voting';
import type { ApiClient } from './api-client';

/**
 * Activities one look asks for and keeps: the service's largest page. A service that answers more than it was asked
 * has the rest ignored, so neither main nor the window holds more than a page of it.
 */
export const ACTIVITIES_PER_LOOK = 100;
/** `get_activity` requests one poll has in flight at once. */
export const DETAILS_IN_FLIGHT = 4;

/** The activities waiting for votes, newest first: at most ACTIVITIES_PER_LOOK of them. */
export async function waitingActivities(client: Pick<ApiClient, 'query'>): Promise<Activity[]> {
  const { activities } = await client.query('list_activities', {
    filterByStatus: [...WAITING_STATUSES],
    paginationOptions: { limit: String(ACTIVITIES_PER_LOOK) },
  });
  return activities.slice(0, ACTIVITIES_PER_LOOK);
}

/** `work` on each of `items`, at most DETAILS_IN_FLIGHT at a time; the answers in the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      answers[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DETAILS_IN_FLIGHT, items.length) }, worker));
  return answers;
}
