import type { IpcHandlers } from '../ipc/register';
import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import type { Simulations } from './simulation';

type SimulationChannel = Extract<keyof IpcHandlers, `simulation.${string}`>;

export interface SimulationHandlerDeps extends Pick<ActiveProfileHandlerDeps, 'active'> {
  simulations: Pick<Simulations, 'forActivity'>;
}

export function simulationHandlers({ active, simulations }: SimulationHandlerDeps): Pick<IpcHandlers, SimulationChannel> {
  return {
    'simulation.forActivity': async ({ activityId }) => simulations.forActivity((await active.services()).client, activityId),
  };
}
