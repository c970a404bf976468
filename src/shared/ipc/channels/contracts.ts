/** The `contracts.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { contractInterfaceInput, contractInterfaceType, contractInterfaceView } from '../signing';
import { activityOutcome, channel, id, noInput } from '../schemas';

export const contractsChannels = {
  list: channel(noInput, z.array(contractInterfaceView)),
  /** Checks an ABI or IDL upload as decoding will read it, without submitting; answers what it defines. */
  check: channel(
    z.strictObject({
      type: contractInterfaceType,
      address: contractInterfaceInput.shape.address,
      definition: contractInterfaceInput.shape.definition,
    }),
    z.strictObject({ summary: z.string() }),
  ),
  create: channel(contractInterfaceInput, activityOutcome(z.strictObject({ smartContractInterfaceId: z.string() }))),
  delete: channel(z.strictObject({ smartContractInterfaceId: id }), activityOutcome(z.strictObject({ smartContractInterfaceId: z.string() }))),
} as const;
