/** The `passkeys.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { channel, noInput, nothing } from '../schemas';

const activityId = z.string().min(1).max(128);

export const passkeysChannels = {
  /**
   * The security keys whose registration this desktop waited on and that ended without being attached, in main's
   * words: which key of which profile and why (`what`), and what to do now (`next`). Main's `passkey` event says when
   * this changed.
   */
  notices: channel(noInput, z.array(z.strictObject({ activityId, what: z.string().max(1000), next: z.string().max(1000) })).max(20)),
  /** Forgets the notice of `activityId`'s registration, once the person read it. */
  dismissNotice: channel(z.strictObject({ activityId }), nothing),
} as const;
