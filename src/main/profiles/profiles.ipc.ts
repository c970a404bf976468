import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { IpcHandlers } from '../ipc/register';
import type { Confirm } from '../confirmation/confirmation';
import { confirmingCheck } from './confirmation';
import type { Profile, Profiles } from './profiles';

type ProfileChannel = 'profiles.list' | 'profiles.get' | 'profiles.getActive' | 'profiles.add' | 'profiles.update' | 'profiles.remove' | 'profiles.setActive';

export function profilesHandlers({
  profiles,
  confirm,
  journal,
}: {
  profiles: Profiles;
  confirm: Confirm;
  journal: Pick<Journal, 'record'>;
}): Pick<IpcHandlers, ProfileChannel> {
  const record = async (action: 'profile.added' | 'profile.updated' | 'profile.removed' | 'profile.activated', profile: Profile, title: string) =>
    journal.record(
      localRecord(
        action,
        {
          title,
          summary: `${profile.name} (${profile.kind}) at ${profile.baseUrl}`,
          facts: {
            Service: profile.baseUrl,
            Organization: profile.organizationId,
            'API key': profile.apiKeyName,
            'Enclave signer': profile.enclaveSignerPublicKey,
          },
          verdict: 'saved',
        },
        { profile },
      ),
    );
  // Only the renderer's edits are checked: main's own (the sandbox following its port) are not the user's to confirm.
  const confirmedByUser = confirmingCheck(confirm);
  return {
    'profiles.list': () => profiles.list(),
    'profiles.get': ({ id }) => profiles.get(id),
    'profiles.getActive': async () => (await profiles.getActive()) ?? null,
    'profiles.add': async (input) => {
      const added = await profiles.add(input, confirmedByUser);
      await record('profile.added', added, 'Profile added');
      return added;
    },
    'profiles.update': async ({ id, changes }) => {
      const updated = await profiles.update(id, changes, confirmedByUser);
      await record('profile.updated', updated, `Profile changed: ${Object.keys(changes).join(', ')}`);
      return updated;
    },
    'profiles.remove': async ({ id }) => {
      const removed = await profiles.get(id);
      await profiles.remove(id);
      await record('profile.removed', removed, 'Profile removed');
      return null;
    },
    'profiles.setActive': async ({ id }) => {
      await profiles.setActive(id);
      const active = await profiles.getActive();
      if (active !== undefined) await record('profile.activated', active, 'Profile made active');
      return null;
    },
  };
}
