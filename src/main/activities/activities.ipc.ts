import type { IpcHandlers } from '../ipc/register';
import type { ActiveProfile } from '../profiles/active-profile';
import { activityView } from './activity-views';

export interface ActiveProfileHandlerDeps {
  active: Pick<ActiveProfile, 'services'>;
  /** Decides which approvals have expired with their approval window. */
  now: () => number;
}

export function activitiesHandlers({ active, now }: ActiveProfileHandlerDeps): Pick<IpcHandlers, 'activities.list' | 'activities.get'> {
  return {
    'activities.list': async ({ status, type, limit, before }) => {
      const { client } = await active.services();
      const paginationOptions = {
        ...(limit === undefined ? {} : { limit: String(limit) }),
        ...(before === undefined ? {} : { before }),
      };
      const { activities } = await client.query('list_activities', {
        ...(status === undefined ? {} : { filterByStatus: status }),
        ...(type === undefined ? {} : { filterByType: type }),
        ...(Object.keys(paginationOptions).length === 0 ? {} : { paginationOptions }),
      });
      return activities.map((activity) => activityView(activity, now()));
    },
    'activities.get': async ({ activityId }) => {
      const { client } = await active.services();
      return activityView((await client.query('get_activity', { activityId })).activity, now());
    },
  };
}
