import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { outcomeView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import { walletAccountView, walletView } from './wallet-views';

type WalletChannel = Extract<keyof IpcHandlers, `wallets.${string}`>;

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
  };
}
