/** The `signing.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { signingCardView, signingRequestInput, signingResultView } from '../signing';
import { activityOutcome, activityView, channel, id, stampedFileInfo, stampedFileName } from '../schemas';

export const signingChannels = {
  /**
   * A signing activity's clear-signing card: what it signs in words, its warnings, and where the organization's
   * policies stand on it (matched policies, what consensus still needs, whether the viewer's vote counts).
   */
  describe: channel(z.strictObject({ activityId: id }), signingCardView.extend({ activity: activityView })),
  /** The same card for a request not yet submitted (the Sign screen). */
  preview: channel(z.strictObject({ request: signingRequestInput }), signingCardView),
  /** Submits a signing request; it goes through policies and consensus like any activity. */
  submit: channel(z.strictObject({ request: signingRequestInput }), activityOutcome(signingResultView)),
  /** A signing activity as it stands, with its signed result once it completed. */
  result: channel(z.strictObject({ activityId: id }), z.strictObject({ activity: activityView, result: signingResultView.optional() })),
  /**
   * Writes a completed signing activity's result (signed transaction or signatures), as main reads it from the
   * activity, to `file` in the signatures directory main keeps (never overwriting); the renderer names files, not paths.
   */
  saveResult: channel(z.strictObject({ activityId: id, file: stampedFileName }), z.strictObject({ file: z.string(), signaturesDir: z.string() })),
  /**
   * Offline: stamps a signing request with the active profile's key into `file` in the stamped-requests directory, to
   * be posted later (approvals.postStampedFile). Only the three signing operations, built by main from typed fields.
   */
  stampToFile: channel(z.strictObject({ request: signingRequestInput, file: stampedFileName }), stampedFileInfo),
} as const;
