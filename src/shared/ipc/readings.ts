/**
 * An activity's reading as main sends it with the activity: what it asks for in words (title, one-line summary,
 * facts, before → after, exports, deletions, warnings) and, for a signing request still taking votes, where the
 * organization's policies stand on it. Main computes it once per activity with the context it holds (history,
 * thresholds, declared tokens, names); the window renders it and decodes nothing.
 */
import { z } from 'zod';
import type { ActivityDescription } from '../describe/types';
import { authenticationType } from '../api/enums';
import { fact, factValue, policyStandingView, type WireOf } from './signing';

const text = z.string().max(100_000);

/**
 * Where an activity waiting for votes stands and what the viewer's vote would do: main's one answer
 * (src/main/approvals/vote-reading.ts), which every surface shows as it is.
 */
export const voteReadingView = z.strictObject({
  voter: text,
  proposer: text.optional(),
  proposedByViewer: z.boolean(),
  approvals: z.number().int().nonnegative(),
  required: z.number().int().nonnegative().optional(),
  progress: text,
  verdict: text,
  stillNeeded: text,
  stillToVote: z.array(z.strictObject({ userId: z.string(), userName: z.string(), reasons: z.array(z.string()) })).max(10_000),
  viewerVote: z.enum(['approved', 'rejected']).optional(),
  viewerCounts: z.boolean(),
  viewerCompletes: z.boolean(),
  approveDoes: text,
  rejectDoes: text,
  warnings: z.array(text).max(100),
  /** The viewer's MFA step an activity in ACTIVITY_STATUS_AUTHENTICATORS_NEEDED waits for, and whether this desktop meets it. */
  authenticators: z
    .strictObject({
      headline: text,
      approveLabel: text,
      policy: text,
      method: authenticationType,
      credentialId: z.string().optional(),
      credential: text,
      heldHere: z.boolean(),
      held: text,
      stepsMet: z.number().int().nonnegative(),
      steps: z.number().int().nonnegative(),
      approvalIs: text,
    })
    .optional(),
  /** The other users' MFA steps it waits for, in words. */
  awaitedAuthenticators: z.array(text).max(10_000).optional(),
});
export type VoteReadingView = z.infer<typeof voteReadingView>;
const refs = z.array(factValue).max(10_000).readonly();
const facts = z.array(fact).max(10_000).readonly();

export const activityReading = z.strictObject({
  type: z.string(),
  /** `signing`: one of the signing operations, which the window reads in full on main's signing card. */
  kind: z.enum(['signing', 'activity']),
  title: text,
  recognised: z.boolean(),
  summary: text,
  facts,
  changes: z.array(z.strictObject({ label: text, before: refs.optional(), after: refs })).readonly(),
  exports: z.strictObject({ what: refs, target: z.strictObject({ publicKey: text, fingerprint: text, localKeyName: text.optional() }) }).optional(),
  deletions: z.array(z.strictObject({ what: factValue, kind: text, exported: z.boolean().optional() })).readonly(),
  warnings: z.array(text).readonly(),
  largeValue: text.optional(),
  signing: z
    .strictObject({
      signWith: factValue,
      signer: text.optional(),
      payloads: z.array(z.string().max(400_000)).readonly(),
      facts,
      decoded: facts.optional(),
    })
    .optional(),
  rawIntent: z.record(z.string(), z.unknown()).optional(),
  /** Signing requests still taking votes: the policies' standing, as the signing card shows it. */
  verdict: policyStandingView.optional(),
  /** Any activity still taking votes: where it stands and what the viewer's vote would do, in main's words. */
  vote: voteReadingView.optional(),
}) satisfies z.ZodType<WireOf<ActivityDescription>>;
export type ActivityReadingView = z.infer<typeof activityReading>;
