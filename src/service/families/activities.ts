import type { z } from 'zod';
import type { outcome } from '../../shared/api/resources';
import { QkError } from '../../shared/errors';
import type { Family, QueryContext } from '../activities/context';
import { toTimestamp } from '../../shared/api/timestamps';
import { activityView } from '../activities/views';
import type { ActivityRecord } from '../store/activities';

const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 100;

export function pageSize(limit: string | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  const size = Number(limit);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new QkError('REQUEST_INVALID', `paginationOptions.limit must be between 1 and ${MAX_PAGE_SIZE}, got ${limit}`, {
      issues: [{ path: 'paginationOptions.limit', message: `must be between 1 and ${MAX_PAGE_SIZE}` }],
    });
  }
  return size;
}

function requireActivity(ctx: QueryContext, activityId: string): ActivityRecord {
  const activity = ctx.store.activities.get(ctx.organizationId, activityId);
  if (activity === undefined) {
    throw new QkError('ACTIVITY_NOT_FOUND', `no activity ${activityId} in organization ${ctx.organizationId}`, { activityId });
  }
  return activity;
}

export const activitiesFamily: Family = {
  queries: {
    get_activity: (ctx, request) => ({ activity: activityView(ctx.store, requireActivity(ctx, request.activityId)) }),
    get_policy_evaluations(ctx, request) {
      const activity = requireActivity(ctx, request.activityId);
      return {
        policyEvaluations: ctx.store.activities.policyEvaluations(activity.id).map((evaluation) => ({
          id: evaluation.id,
          activityId: activity.id,
          organizationId: activity.organizationId,
          voteId: evaluation.voteId,
          policyEvaluations: evaluation.outcomes as { policyId: string; outcome: z.infer<typeof outcome> }[],
          createdAt: toTimestamp(evaluation.createdAt),
        })),
      };
    },
    /**
     * Cursors are activity ids, and pages run newest first. The swagger leaves order and cursor direction unstated;
     * Turnkey's own SDK code walks activities "newest first" by passing the last item's id as `before`, so clients
     * written for the hosted service page that way: `before` gives the activities created earlier than the cursor
     * (the next page), `after` the ones created later that lie nearest to it (the previous page, still newest first),
     * and both together the activities between the two. A page shorter than `limit` is the last one.
     */
    list_activities(ctx, request) {
      const pagination = request.paginationOptions;
      for (const cursor of [pagination?.before, pagination?.after]) {
        if (cursor !== undefined && ctx.store.activities.get(ctx.organizationId, cursor) === undefined) {
          throw new QkError('REQUEST_INVALID', `pagination cursor ${cursor} is not an activity of organization ${ctx.organizationId}`, {
            issues: [{ path: 'paginationOptions', message: 'unknown cursor' }],
          });
        }
      }
      const activities = ctx.store.activities.list({
        organizationId: ctx.organizationId,
        ...(request.filterByStatus === undefined ? {} : { statuses: request.filterByStatus }),
        ...(request.filterByType === undefined ? {} : { types: request.filterByType }),
        limit: pageSize(pagination?.limit),
        ...(pagination?.before === undefined ? {} : { before: pagination.before }),
        ...(pagination?.after === undefined ? {} : { after: pagination.after }),
      });
      return { activities: activities.map((activity) => activityView(ctx.store, activity)) };
    },
  },
  activities: {
    approve_activity: { decision: 'VOTE_SELECTION_APPROVED' },
    reject_activity: { decision: 'VOTE_SELECTION_REJECTED' },
  },
};
