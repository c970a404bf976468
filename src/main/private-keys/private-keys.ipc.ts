import { QkError } from '../../shared/errors';
import { outcomeView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { addressViews, privateKeyView } from '../wallets/wallet-views';

type PrivateKeyChannel = Extract<keyof IpcHandlers, `privateKeys.${string}`>;

/** Private keys held alone, outside any wallet: listed and created. */
export function privateKeysHandlers({ active, now }: ActiveProfileHandlerDeps): Pick<IpcHandlers, PrivateKeyChannel> {
  return {
    'privateKeys.list': async () => {
      const { client } = await active.services();
      return (await client.query('list_private_keys', {})).privateKeys.map(privateKeyView);
    },
    'privateKeys.create': async ({ name, curve, addressFormats }) => {
      const { client } = await active.services();
      const outcome = await client.submit('create_private_keys', {
        privateKeys: [{ privateKeyName: name, curve, privateKeyTags: [], addressFormats }],
      });
      return outcomeView(
        outcome,
        ({ privateKeys }) => {
          const created = privateKeys[0];
          if (created?.privateKeyId === undefined) {
            throw new QkError('RESPONSE_INVALID', 'create_private_keys completed without the id of the key it created');
          }
          return { privateKeyId: created.privateKeyId, addresses: addressViews(created.addresses ?? []) };
        },
        now(),
      );
    },
  };
}
