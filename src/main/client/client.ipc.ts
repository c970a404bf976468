import type { IpcHandlers } from '../ipc/register';
import type { InFlightRequests } from './in-flight';

export function clientHandlers({ inFlight }: { inFlight: InFlightRequests }): Pick<IpcHandlers, 'requests.pending' | 'requests.cancel'> {
  return {
    'requests.pending': async () => inFlight.list(),
    'requests.cancel': async ({ id }) => ({ cancelled: inFlight.cancel(id) }),
  };
}
