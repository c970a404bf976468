import type { IpcHandlers } from '../ipc/register';
import type { InFlightRequests } from '../client/in-flight';

export function requestsHandlers({ inFlight }: { inFlight: InFlightRequests }): Pick<IpcHandlers, 'requests.pending' | 'requests.cancel'> {
  return {
    'requests.pending': async () => inFlight.list(),
    'requests.cancel': async ({ id }) => ({ cancelled: inFlight.cancel(id) }),
  };
}
