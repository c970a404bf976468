/** The `policies.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { expressionPiece, policyFieldChange, policyReading } from '../policy-words';
import { dryRunView, signingRequestInput } from '../signing';
import { authenticationType, effect } from '../../api/enums';
import { LINT_RULES } from '../../policy/lint-rules';
import { draftEntry } from '../policy-draft';
import { activityOutcome, channel, epochMs, id, noInput, policyView } from '../schemas';

const policyName = z.string().min(1).max(256);

/** Policy expressions (condition/consensus/time): checked with the policy language in main before anything is signed. */
const policyExpression = z.string().max(8192);

const policyNotes = z.string().max(4096);

const policyFields = {
  name: policyName,
  effect,
  condition: policyExpression.optional(),
  consensus: policyExpression.optional(),
  time: policyExpression.optional(),
  notes: policyNotes.optional(),
};

/** A policy as the editor holds it: every field as text, empty meaning "not set". */
const editorPolicy = z.strictObject({
  name: z.string().max(256),
  effect,
  condition: policyExpression,
  consensus: policyExpression,
  time: policyExpression,
  notes: policyNotes,
});

/** A policy linter finding (docs/service.md#policy-lint), at its position in one expression of the policy. */
const lintFinding = z.strictObject({
  rule: z.enum(LINT_RULES),
  severity: z.enum(['warning', 'error']),
  field: z.enum(['condition', 'consensus', 'time']),
  span: z.strictObject({
    offset: z.number().int().nonnegative(),
    line: z.number().int().positive(),
    column: z.number().int().positive(),
    length: z.number().int().nonnegative(),
  }),
  message: z.string(),
  suggestion: z.string().optional(),
});

/** A draft: policies to replace or add, and deletions. */
const policyDraft = z.array(draftEntry).max(100);

const replayedOutcome = z.enum(['allowed', 'consensus-needed', 'denied', 'not-replayable']);

const rehearsalReport = z.strictObject({
  replayed: z.number().int().nonnegative(),
  unreproduced: z.array(
    z.strictObject({
      activityId: z.string(),
      type: z.string(),
      reading: z.string(),
      recorded: z.enum(['allowed', 'consensus-needed']),
      replayed: replayedOutcome,
      reason: z.string(),
    }),
  ),
  changes: z.array(
    z.strictObject({
      activityId: z.string(),
      type: z.string(),
      reading: z.string(),
      createdAtMs: epochMs,
      before: replayedOutcome,
      after: replayedOutcome,
      approvalsBefore: z.number().int().nonnegative(),
      approvalsAfter: z.number().int().nonnegative(),
      /** The change in words, as main words it: "needed 2 approvals, would now need 1". */
      words: z.string(),
      policies: z.array(z.strictObject({ policyId: z.string(), policyName: z.string(), before: z.string(), after: z.string() })),
    }),
  ),
  totals: z.strictObject({
    allowedToDenied: z.number().int(),
    deniedToAllowed: z.number().int(),
    toConsensus: z.number().int(),
    fromConsensus: z.number().int(),
    fewerApprovals: z.number().int(),
    moreApprovals: z.number().int(),
    unchanged: z.number().int(),
  }),
});

/** One step of an MFA policy: met by any one of its methods; an `id` names one credential of the user. */
const mfaStep = z.strictObject({
  any: z
    .array(z.strictObject({ type: authenticationType, id: id.optional() }))
    .min(1)
    .max(10),
});

/** One user's MFA policy in words: its condition read as a policy's, and the steps it asks for. */
export const mfaPolicyView = z.strictObject({
  mfaPolicyId: z.string(),
  mfaPolicyName: z.string(),
  userId: z.string(),
  userName: z.string(),
  /** Lower first; the user's first policy whose condition holds is the one enforced. */
  order: z.number().int().nonnegative(),
  condition: z.string(),
  conditionReading: z.array(expressionPiece).max(20_000),
  /** "need, in order: a passkey, then an API key — for Bea". */
  requirement: z.string().max(10_000),
  /** The steps as the service holds them, in order, for the editor to start from. */
  steps: z.array(mfaStep),
  notes: z.string().optional(),
});
export type MfaPolicyView = z.infer<typeof mfaPolicyView>;

const mfaPolicyFields = {
  name: policyName,
  /** Which of the user's activities wait for the steps, in the policy language; checked in main before stamping. */
  condition: policyExpression.min(1),
  /** In the order they must be met. */
  steps: z.array(mfaStep).min(1).max(10),
  /** Lower is evaluated first; the user's first policy whose condition holds is enforced. */
  order: z.number().int().nonnegative().max(1_000_000),
  notes: policyNotes.optional(),
};

const mfaOutcome = activityOutcome(z.strictObject({ mfaPolicyId: z.string() }));

export const policiesChannels = {
  /** Each policy with its reading: ids named, amounts in units (main reads them against the organization). */
  list: channel(noInput, z.array(policyView.extend({ reading: policyReading }))),
  /** Every user's MFA policies in words, from the profile's read of its organization. */
  mfaList: channel(noInput, z.array(mfaPolicyView)),
  get: channel(z.strictObject({ policyId: id }), policyView),
  /** An MFA policy for `userId`, the profile's own user when absent; `order` defaults to after the user's last. */
  mfaCreate: channel(z.strictObject({ ...mfaPolicyFields, userId: id.optional(), order: mfaPolicyFields.order.optional() }), mfaOutcome),
  /** Changes only the fields given. */
  mfaUpdate: channel(z.strictObject({ userId: id, mfaPolicyId: id, changes: z.strictObject(mfaPolicyFields).partial() }), mfaOutcome),
  mfaDelete: channel(z.strictObject({ userId: id, mfaPolicyId: id }), mfaOutcome),
  create: channel(z.strictObject(policyFields), activityOutcome(z.strictObject({ policyId: z.string() }))),
  /** Changes only the fields given. */
  update: channel(
    z.strictObject({ policyId: id, changes: z.strictObject(policyFields).partial() }),
    activityOutcome(z.strictObject({ policyId: z.string() })),
  ),
  delete: channel(z.strictObject({ policyId: id }), activityOutcome(z.strictObject({ policyId: z.string() }))),
  /** An update's changed fields token by token, read against the organization (names, units, grouped digits). */
  review: channel(z.strictObject({ before: editorPolicy, after: editorPolicy }), z.array(policyFieldChange)),
  /** A policy being edited, read as the list reads a saved one: users, tags and wallets named, amounts in units. */
  read: channel(editorPolicy.pick({ condition: true, consensus: true, time: true }), policyReading),
  /**
   * The linter's findings on a policy being edited, read against the organization as it stands; nothing is saved.
   * `policyId` names the saved policy the draft edits. An `error` finding blocks saving, a `warning` does not.
   */
  lint: channel(z.strictObject({ policyId: id.optional(), policy: editorPolicy.omit({ notes: true }) }), z.array(lintFinding)),
  /**
   * Replays recorded activities (the newest `last`, or those since `sinceMs`) against the current policies and the
   * draft (docs/service.md#policy-rehearsal): what the replay does not reproduce, then the outcomes the draft changes.
   */
  rehearse: channel(
    z.strictObject({
      draft: policyDraft.min(1),
      last: z.number().int().min(1).max(100_000).optional(),
      sinceMs: epochMs.optional(),
    }),
    rehearsalReport,
  ),
  /**
   * A signing request read as its card reads it, and every policy's verdict on it as if the active profile's user
   * submitted it now, against the current policies with `draft` applied (docs/service.md#dry-run); nothing is
   * submitted. The standing says who must still approve, as the approval card would.
   */
  dryRun: channel(z.strictObject({ request: signingRequestInput, draft: policyDraft.optional() }), dryRunView),
} as const;
