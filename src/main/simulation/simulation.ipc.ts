import type { IpcHandlers } from '../ipc/register';
import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { knowsSigner } from '../signing/signing-request';
import type { Simulations } from './simulation';

type SimulationChannel = Extract<keyof IpcHandlers, `simulation.${string}`>;

export interface SimulationHandlerDeps extends Pick<ActiveProfileHandlerDeps, 'active'> {
  simulations: Pick<Simulations, 'forActivity' | 'forRequest'>;
}

export function simulationHandlers({ active, simulations }: SimulationHandlerDeps): Pick<IpcHandlers, SimulationChannel> {
  return {
    'simulation.forActivity': async ({ activityId }) => simulations.forActivity((await active.services()).client, activityId),
    'simulation.forRequest': async ({ request }) => {
      const { organization } = await active.services();
      // The profile's read of its organization, read anew when it does not know the signing key yet.
      return simulations.forRequest(request, await organization.snapshot((read) => knowsSigner(read, request.signWith)));
    },
  };
}
