/** The `requests.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { channel, epochMs, noInput } from '../schemas';

/** Requests to the active profile's service still waiting for their answer, oldest first. */
export const pendingRequestsSchema = z.array(z.strictObject({ id: z.string(), url: z.string(), startedAtMs: epochMs }));

export const requestsChannels = {
  /** What waits now; main's `requests` event (src/shared/ipc/events.ts) then reports each change with the whole list. */
  pending: channel(noInput, pendingRequestsSchema),
  /** Cancels the pending request with `id`, or all of them; the cancelled calls fail with CANCELLED. */
  cancel: channel(z.strictObject({ id: z.string().min(1).max(64).optional() }), z.strictObject({ cancelled: z.number().int().nonnegative() })),
} as const;
