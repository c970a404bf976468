import { QkError } from '../../shared/errors';
import type { ActiveProfileHandlerDeps } from '../activities/activities.ipc';
import { outcomeView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import { addressViews, privateKeyView, walletAccountView, walletView } from './wallet-views';

type WalletChannel = 'wallets.list' | 'wallets.accounts' | 'wallets.create' | 'wallets.createAccounts' | 'privateKeys.list' | 'privateKeys.create';

export function walletsHandlers({ active, now }: ActiveProfileHandlerDeps): Pick<IpcHandlers, WalletChannel> {
  return {
    'wallets.list': async () => {
      const { client } = await active.services();
      return (await client.query('list_wallets', {})).wallets.map(walletView);
    },
    'wallets.accounts': async ({ walletId }) => {
      const { client } = await active.services();
      return (await client.query('list_wallet_accounts', { walletId })).accounts.map(walletAccountView);
    },
    'wallets.create': async ({ name, mnemonicLength, accounts }) => {
      const { client } = await active.services();
      const outcome = await client.submit('create_wallet', {
        walletName: name,
        accounts,
        ...(mnemonicLength === undefined ? {} : { mnemonicLength }),
      });
      return outcomeView(outcome, ({ walletId, addresses }) => ({ walletId, addresses }), now());
    },
    'wallets.createAccounts': async ({ walletId, accounts }) => {
      const { client } = await active.services();
      return outcomeView(await client.submit('create_wallet_accounts', { walletId, accounts }), ({ addresses }) => ({ addresses }), now());
    },
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
