import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { outcomeView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import { ContractInterfaces, checkContractInterface } from './contracts';

type ContractChannel = 'contracts.list' | 'contracts.check' | 'contracts.create' | 'contracts.delete';

/** The organization's uploaded contract interfaces, which clear signing decodes calls with. */
export function contractsHandlers({ active, now }: ActiveProfileHandlerDeps): Pick<IpcHandlers, ContractChannel> {
  const contracts = async () => new ContractInterfaces((await active.services()).client);
  const idOf = ({ smartContractInterfaceId }: { smartContractInterfaceId: string }) => ({ smartContractInterfaceId });
  return {
    'contracts.list': async () => (await contracts()).list(),
    'contracts.check': async (input) => ({ summary: checkContractInterface(input) }),
    'contracts.create': async (input) => outcomeView(await (await contracts()).create(input), idOf, now()),
    'contracts.delete': async ({ smartContractInterfaceId }) => outcomeView(await (await contracts()).delete(smartContractInterfaceId), idOf, now()),
  };
}
