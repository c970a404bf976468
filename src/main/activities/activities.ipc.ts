import type { AddressBook } from '../address-book/address-book';
import type { IpcHandlers } from '../ipc/register';
import type { Keychain } from '../keychain/keychain';
import type { ActiveProfileHandlerDeps, ProfileServices } from '../profiles/active-profile';
import type { Settings } from '../settings/settings';
import { signingFor } from '../signing/signing';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { optionalProposer } from '../approvals/vote-reading';
import { activityView } from './activity-views';
import { heldCredentialsOf, Readings } from './readings';

/**
 * What reading activities takes besides the active profile: names of export keys, declared tokens, thresholds, and
 * this desktop's address book, so a row names a recipient as its card does.
 */
export interface ReadingHandlerDeps extends ActiveProfileHandlerDeps {
  keychain: Pick<Keychain, 'listEncryptionKeys' | 'getApiKeyPublic'>;
  tokens: Pick<DeclaredTokens, 'list'>;
  settings: Pick<Settings, 'get'>;
  addressBook: Pick<AddressBook, 'list'>;
}

/** The active profile's readings. */
export async function readingsOf(deps: ReadingHandlerDeps): Promise<Readings> {
  const services = await deps.active.services();
  return readingsWith(services, deps);
}

/** Readings of a profile's organization through its services: the screens' (the active profile) and the inbox's. */
export function readingsWith(
  services: Pick<ProfileServices, 'client' | 'approvals' | 'profile' | 'organization'>,
  { now, keychain, tokens, settings, addressBook }: Omit<ReadingHandlerDeps, 'active'>,
): Readings {
  return new Readings({
    keychain,
    tokens,
    now,
    profileName: services.profile.name,
    organization: (knows, options) => services.organization.snapshot(knows, options),
    signing: (snapshot) => signingFor(services, { settings, tokens, addressBook, now }).readings(snapshot),
    mfa: {
      status: async (activityId) => (await services.client.query('get_mfa_status', { activityId })).mfaStatuses,
      held: () => heldCredentialsOf(services.profile, keychain),
    },
  });
}

export function activitiesHandlers(deps: ReadingHandlerDeps): Pick<IpcHandlers, 'activities.list' | 'activities.get'> {
  const { active, now } = deps;
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
      const readings = await (await readingsOf(deps)).of(activities);
      return activities.map((activity, index) => {
        const view = activityView(activity, now());
        return { ...view, ...optionalProposer(view.voters), reading: readings[index]! };
      });
    },
    'activities.get': async ({ activityId }) => {
      const { client } = await active.services();
      return activityView((await client.query('get_activity', { activityId })).activity, now());
    },
  };
}
