import type { IpcHandlers } from '../ipc/register';
import type { Profiles } from '../profiles/profiles';
import { endedPasskeyNotice, type PendingPasskeys } from './pending-passkeys';

export interface PasskeysHandlerDeps {
  pendingPasskeys: Pick<PendingPasskeys, 'ended' | 'dismiss'>;
  profiles: Pick<Profiles, 'list'>;
}

export function passkeysHandlers({
  pendingPasskeys,
  profiles,
}: PasskeysHandlerDeps): Pick<IpcHandlers, 'passkeys.notices' | 'passkeys.dismissNotice'> {
  return {
    'passkeys.notices': async () => {
      const names = new Map((await profiles.list()).map((profile) => [profile.id, profile.name]));
      // An ending whose profile was removed since is forgotten on the feed's next round; until then it is not shown.
      return (await pendingPasskeys.ended()).flatMap((ended) => {
        const profileName = names.get(ended.profileId);
        return profileName === undefined ? [] : [endedPasskeyNotice(ended, profileName)];
      });
    },
    'passkeys.dismissNotice': async ({ activityId }) => {
      await pendingPasskeys.dismiss(activityId);
      return null;
    },
  };
}
