import type { Journal } from '../journal/journal';
import { profileRecord } from '../journal/local-entry';
import type { IpcHandlers } from '../ipc/register';
import type { Confirm } from '../confirmation/confirmation';
import type { TokenKeys } from '../pkcs11/token-keys';
import { confirmingCheck } from './confirmation';
import type { Profiles } from './profiles';

type ProfileChannel =
  | 'profiles.list'
  | 'profiles.get'
  | 'profiles.getActive'
  | 'profiles.add'
  | 'profiles.update'
  | 'profiles.remove'
  | 'profiles.setActive'
  | 'profiles.useTokenKey';

export function profilesHandlers({
  profiles,
  confirm,
  journal,
  tokenKeys,
}: {
  profiles: Profiles;
  confirm: Confirm;
  journal: Pick<Journal, 'record'>;
  tokenKeys: Pick<TokenKeys, 'find'>;
}): Pick<IpcHandlers, ProfileChannel> {
  // Only the renderer's edits are checked: main's own (the sandbox following its port) are not the user's to confirm.
  const confirmedByUser = confirmingCheck(confirm);
  return {
    'profiles.list': () => profiles.list(),
    'profiles.get': ({ id }) => profiles.get(id),
    'profiles.getActive': async () => (await profiles.getActive()) ?? null,
    'profiles.add': async (input) => {
      const added = await profiles.add(input, confirmedByUser);
      await journal.record(profileRecord('profile.added', added));
      return added;
    },
    'profiles.update': async ({ id, changes }) => {
      const updated = await profiles.update(id, changes, confirmedByUser);
      await journal.record(profileRecord('profile.updated', updated, Object.keys(changes)));
      return updated;
    },
    'profiles.useTokenKey': async ({ id, key }) => {
      // The public key pinned is the token's own answer, after the PIN; main's confirmation then shows it.
      const updated = await profiles.update(id, { tokenKey: await tokenKeys.find(key) }, confirmedByUser);
      await journal.record(profileRecord('profile.updated', updated, ['tokenKey']));
      return updated;
    },
    'profiles.remove': async ({ id }) => {
      const removed = await profiles.get(id);
      await profiles.remove(id);
      await journal.record(profileRecord('profile.removed', removed));
      return null;
    },
    'profiles.setActive': async ({ id }) => {
      await profiles.setActive(id);
      const active = await profiles.getActive();
      if (active !== undefined) await journal.record(profileRecord('profile.activated', active));
      return null;
    },
  };
}
