import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { activityView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import { addressViews } from '../wallets/wallet-views';

export function importsHandlers({ active, now }: ActiveProfileHandlerDeps): Pick<IpcHandlers, 'imports.wallet' | 'imports.privateKey'> {
  return {
    'imports.wallet': async (input) => {
      const result = await (await active.services()).importer.importWallet(input);
      return result.state === 'imported'
        ? {
            state: 'imported',
            result: { walletId: result.result.walletId, addresses: result.result.addresses },
            activity: activityView(result.activity, now()),
          }
        : { state: result.state, activity: activityView(result.activity, now()), step: result.step };
    },
    'imports.privateKey': async ({ name, privateKey, format, curve, addressFormats }) => {
      const result = await (await active.services()).importer.importPrivateKey({ name, privateKey, format, curve, addressFormats });
      return result.state === 'imported'
        ? {
            state: 'imported',
            result: { privateKeyId: result.result.privateKeyId, addresses: addressViews(result.result.addresses) },
            activity: activityView(result.activity, now()),
          }
        : { state: result.state, activity: activityView(result.activity, now()), step: result.step };
    },
  };
}
