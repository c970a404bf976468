/** The `inbox.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { fingerprintSchema } from '../../approvals/voting';
import { activityStatus } from '../../api/enums';
import { activityType, activityView, channel, epochMs, id, noInput, nothing, profileId } from '../schemas';

/** An activity waiting for votes, with the count against the organization's root quorum. */
/** One activity in the inbox of one profile (docs/architecture.md#the-inbox). */
const inboxItem = z.strictObject({
  activityId: id,
  fingerprint: fingerprintSchema,
  type: activityType,
  /** The activity's title in words, as the Approvals screen reads it. */
  title: z.string().max(200),
  /** What it asks for in one line ("Transfer 250,000 USDC to 0x… on Ethereum"), main's reading of it. */
  summary: z.string().max(400),
  /** The reading's warnings, the vote's own first (an approval overriding every policy). */
  warnings: z.array(z.string().max(1000)).max(20),
  /** Who proposed it (the first vote), when known. */
  requester: z.string().max(200).optional(),
  createdAtMs: epochMs,
  /** This profile's user may vote on it and has no vote in the open window, or it waits for their MFA step. */
  waitingForMe: z.boolean(),
  /**
   * It waits for this user's MFA step, from main's vote reading: "Needs your security key", whether this desktop holds
   * a credential that meets it, and if not, why ("this desktop has no security key registered for Bea").
   */
  authenticator: z.strictObject({ headline: z.string().max(200), heldHere: z.boolean(), held: z.string().max(1000) }).optional(),
  proposedByMe: z.boolean(),
  approvals: z.number().int().nonnegative(),
  /** The count in words: "1 of 2 approved" from main's vote reading, "1 approved" until it is made. */
  progress: z.string().max(200),
  /** This user's approval is the one that completes it. */
  completesIt: z.boolean(),
  /** Until the approvals gathered so far expire; 0 when no window is open. */
  timeLeftMs: z.number().int().nonnegative(),
  /** It expires within the hour. */
  expiringSoon: z.boolean(),
});

/** An activity this profile's user proposed that was decided since the inbox last showed it. */
const inboxDecided = z.strictObject({ activityId: id, type: activityType, title: z.string().max(200), status: activityStatus, decidedAtMs: epochMs });

const inboxProfile = z.strictObject({
  profileId,
  profileName: z.string().max(64),
  organizationId: id,
  /** Known once the service answered for this profile. */
  organizationName: z.string().max(256).optional(),
  /** Why the last look failed; the next is tried after a back-off. The items are those of the last good look. */
  error: z.strictObject({ code: z.string().max(64), message: z.string().max(2000), retryAtMs: epochMs }).optional(),
  checkedAtMs: epochMs.optional(),
  /** Soonest to expire first. */
  items: z.array(inboxItem),
  decided: z.array(inboxDecided),
});

export type InboxProfileView = z.infer<typeof inboxProfile>;

export type InboxItemView = z.infer<typeof inboxItem>;

export const inboxChannels = {
  /**
   * Every profile's inbox, as main last saw it: what waits for this user's vote, what they proposed and still waits,
   * what they proposed that was decided. Main polls; this only reads what it found.
   */
  list: channel(noInput, z.strictObject({ waitingForMe: z.number().int().nonnegative(), profiles: z.array(inboxProfile) })),
  /** Votes with `profileId`'s key (whichever profile is active), after main's confirmation like any vote. */
  vote: channel(z.strictObject({ profileId, fingerprint: fingerprintSchema, vote: z.enum(['approve', 'reject']) }), activityView),
  /** Forgets the decided activities shown so far. */
  clearDecided: channel(noInput, nothing),
} as const;
