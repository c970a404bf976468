/** The `requests.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { channel, epochMs, noInput } from '../schemas';

export const requestsChannels = {
  /** Requests to the active profile's service still waiting for their answer, oldest first. */
  pending: channel(noInput, z.array(z.strictObject({ id: z.string(), url: z.string(), startedAtMs: epochMs }))),
  /** Cancels the pending request with `id`, or all of them; the cancelled calls fail with CANCELLED. */
  cancel: channel(z.strictObject({ id: z.string().min(1).max(64).optional() }), z.strictObject({ cancelled: z.number().int().nonnegative() })),
} as const;
