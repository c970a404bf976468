import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { outcomeView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import type { Keychain } from '../keychain/keychain';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { rootQuorumOverlap } from '../policies/quorum-overlap';
import { lookupOf } from './organization';

export interface OrganizationHandlerDeps extends ActiveProfileHandlerDeps {
  keychain: Pick<Keychain, 'listEncryptionKeys'>;
  tokens: Pick<DeclaredTokens, 'list'>;
}

export function organizationHandlers({
  active,
  now,
  keychain,
  tokens,
}: OrganizationHandlerDeps): Pick<IpcHandlers, 'organization.lookup' | 'organization.updateRootQuorum'> {
  return {
    'organization.lookup': async () => {
      const lookup = await lookupOf(await (await active.services()).organization.snapshot(), keychain, tokens, now());
      const overlap = rootQuorumOverlap(lookup);
      return overlap === undefined ? lookup : { ...lookup, rootQuorumOverlap: overlap };
    },
    'organization.updateRootQuorum': async ({ userIds, threshold }) => {
      const { client } = await active.services();
      return outcomeView(await client.submit('update_root_quorum', { userIds, threshold }), () => ({}), now());
    },
  };
}
