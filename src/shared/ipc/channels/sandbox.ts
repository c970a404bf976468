/** The `sandbox.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { channel, noInput } from '../schemas';

/** What a person types to reset the Sandbox. */
export const SANDBOX_RESET_PHRASE = 'reset the Sandbox';

const sandboxStatus = z.strictObject({
  running: z.boolean(),
  /** `starting` also while main restarts a Sandbox whose process died; `failed` once it gave up (see `error`). */
  state: z.enum(['stopped', 'starting', 'running', 'failed']),
  error: z.string().nullable(),
  /** Restarts after the Sandbox's process died, since the app started. */
  restarts: z.number().int().nonnegative(),
  /** Why it serves at another address than before (its port was taken), while it runs. */
  notice: z.string().nullable(),
  /** The Sandbox profile, once the sandbox has started at least once in this data directory. */
  profileId: z.string().nullable(),
  organizationId: z.string().nullable(),
  rootUserId: z.string().nullable(),
  baseUrl: z.string().nullable(),
  enclaveSignerPublicKey: z.string().nullable(),
});

export const sandboxChannels = {
  status: channel(noInput, sandboxStatus),
  /** Starts the embedded service (once; later calls answer the running one); first run makes Sandbox the active profile. */
  start: channel(noInput, sandboxStatus),
  stop: channel(noInput, sandboxStatus),
  /**
   * Deletes the Sandbox's database (every user, policy, wallet and key in it) and starts it afresh. The person types
   * the confirmation phrase; main refuses anything else, so no renderer bug can reset it by accident.
   */
  reset: channel(z.strictObject({ confirmation: z.literal(SANDBOX_RESET_PHRASE) }), sandboxStatus),
  /** Adds the Sandbox profile back after it was removed (starting the Sandbox if it is stopped). */
  restoreProfile: channel(noInput, sandboxStatus),
} as const;
