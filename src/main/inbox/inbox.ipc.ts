import { activityView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import type { ActiveProfile } from '../profiles/active-profile';
import type { Profiles } from '../profiles/profiles';
import type { Inbox } from './inbox';

export function inboxHandlers({
  inbox,
  active,
  profiles,
  now,
}: {
  inbox: Pick<Inbox, 'list' | 'clearDecided'>;
  /** With main's confirmation before every stamp: a vote from the inbox is asked like any other. */
  active: Pick<ActiveProfile, 'servicesFor'>;
  profiles: Pick<Profiles, 'get'>;
  now: () => number;
}): Pick<IpcHandlers, 'inbox.list' | 'inbox.vote' | 'inbox.clearDecided'> {
  return {
    'inbox.list': () => Promise.resolve(inbox.list()),
    // The profile's own key votes, whichever profile is active; the confirmation names the profile's reading.
    'inbox.vote': async ({ profileId, fingerprint, vote }) => {
      const { approvals } = active.servicesFor(await profiles.get(profileId));
      const activity = vote === 'approve' ? await approvals.approve(fingerprint) : await approvals.reject(fingerprint);
      return activityView(activity, now());
    },
    'inbox.clearDecided': () => {
      inbox.clearDecided();
      return Promise.resolve(null);
    },
  };
}
