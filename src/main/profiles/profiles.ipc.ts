import type { IpcHandlers } from '../ipc/register';
import type { Confirm } from '../confirmation/confirmation';
import { confirmingCheck } from './confirmation';
import type { Profiles } from './profiles';

type ProfileChannel = 'profiles.list' | 'profiles.get' | 'profiles.getActive' | 'profiles.add' | 'profiles.update' | 'profiles.remove' | 'profiles.setActive';

export function profilesHandlers({ profiles, confirm }: { profiles: Profiles; confirm: Confirm }): Pick<IpcHandlers, ProfileChannel> {
  // Only the renderer's edits are checked: main's own (the sandbox following its port) are not the user's to confirm.
  const confirmedByUser = confirmingCheck(confirm);
  return {
    'profiles.list': () => profiles.list(),
    'profiles.get': ({ id }) => profiles.get(id),
    'profiles.getActive': async () => (await profiles.getActive()) ?? null,
    'profiles.add': (input) => profiles.add(input, confirmedByUser),
    'profiles.update': ({ id, changes }) => profiles.update(id, changes, confirmedByUser),
    'profiles.remove': async ({ id }) => {
      await profiles.remove(id);
      return null;
    },
    'profiles.setActive': async ({ id }) => {
      await profiles.setActive(id);
      return null;
    },
  };
}
