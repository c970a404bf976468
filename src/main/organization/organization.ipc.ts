import type { ActiveProfileHandlerDeps } from '../activities/activities.ipc';
import type { IpcHandlers } from '../ipc/register';
import type { Keychain } from '../keychain/keychain';
import { readOrganization } from './organization';

export interface OrganizationHandlerDeps extends Pick<ActiveProfileHandlerDeps, 'active'> {
  keychain: Pick<Keychain, 'listEncryptionKeys'>;
}

export function organizationHandlers({ active, keychain }: OrganizationHandlerDeps): Pick<IpcHandlers, 'organization.lookup'> {
  return {
    'organization.lookup': async () => readOrganization((await active.services()).client, keychain),
  };
}
