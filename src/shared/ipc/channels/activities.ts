/** The `activities.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { activityStatus } from '../../api/enums';
import { activityType as submittableActivityType } from '../../api/activity-types';
import { activityReading } from '../readings';
import { activityView, channel, id } from '../schemas';

export const activitiesChannels = {
  /**
   * Newest first, each with its reading (computed in main, the same the signing card and the pending list show);
   * `before` (an activity id) answers the page of activities older than that one.
   */
  list: channel(
    z.strictObject({
      status: z.array(activityStatus).max(7).optional(),
      type: z.array(submittableActivityType).max(64).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      before: id.optional(),
    }),
    z.array(activityView.extend({ proposer: z.string().max(200).optional(), reading: activityReading })),
  ),
  get: channel(z.strictObject({ activityId: id }), activityView),
} as const;
