/** The `approvals.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { fingerprintSchema, voterSchema } from '../../approvals/voting';
import { activityReading } from '../readings';
import { activityType, activityView, channel, epochMs, noInput, stampedFileInfo, stampedFileName } from '../schemas';

const pendingApproval = z.strictObject({
  activityId: z.string(),
  type: activityType,
  fingerprint: z.string(),
  organizationId: z.string(),
  createdAtMs: epochMs,
  /** Distinct users whose approvals count in the open approval window. */
  approvals: z.number().int().nonnegative(),
  /** Who proposed it, named by main from its votes. */
  proposer: z.string().max(200).optional(),
  voters: z.array(voterSchema),
  /** Until the approvals gathered so far expire (24 h from the window's first approval); 0 when none is open. */
  timeLeftMs: z.number().int().nonnegative(),
  canApprove: z.boolean(),
  canReject: z.boolean(),
  activity: activityView,
  /** What it asks for, read in main (src/main/activities/readings.ts). */
  reading: activityReading,
});

export const approvalsChannels = {
  /** Who the active profile's API key signs as (to tell one's own votes apart). */
  whoami: channel(noInput, z.strictObject({ organizationId: z.string(), organizationName: z.string(), userId: z.string(), username: z.string() })),
  pending: channel(noInput, z.array(pendingApproval)),
  /** Votes on the activity with this fingerprint; answers that activity as it stands after the vote. */
  approve: channel(z.strictObject({ fingerprint: fingerprintSchema }), activityView),
  reject: channel(z.strictObject({ fingerprint: fingerprintSchema }), activityView),
  /**
   * Offline: stamps a vote (approve unless `vote` says reject) on the activity with `fingerprint` with the active
   * profile's key and writes it to `file` in the stamped-requests directory (never overwriting). No network.
   * Votes only, on purpose: the renderer must never get main to sign a request of its choosing (the CLI's
   * `request --no-post` stamps any body, for an operator at a terminal).
   */
  stampToFile: channel(
    z.strictObject({ fingerprint: fingerprintSchema, vote: z.enum(['approve', 'reject']).optional(), file: stampedFileName }),
    stampedFileInfo,
  ),
  /** Posts a stamped file from the stamped-requests directory byte for byte; answers the service's activity. */
  postStampedFile: channel(z.strictObject({ file: stampedFileName }), activityView),
} as const;
