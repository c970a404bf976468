/**
 * IPC schemas of the Journal screen: the entries as recorded (each with the reading as it was shown), where
 * verification stands, and the files main writes for an auditor (an export of a date range and a checkpoint).
 */
import { z } from 'zod';
import { JOURNAL_ACTIONS, journalCredentialSchema, journalReadingSchema, sha256HexSchema } from '../journal/format';

const isoTimestamp = z.iso.datetime({ offset: true });
const optionalText = z.string().max(128).optional();
/** Journal exports and checkpoints go into one directory main keeps; the renderer names the file only. */
const journalFileName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.(?:jsonl|json)$/, {
  error: 'expected a file name like journal-2026-11.jsonl (letters, digits, . _ -), no folders',
});

const rootView = z.strictObject({
  /** SHA-256 of the root certificate. */
  fingerprint: sha256HexSchema,
  /** Its subject, as the certificate names itself. */
  subject: z.string().max(1000),
  /** What this desktop pins it as; absent when it pins no such root. */
  pinnedAs: z.string().max(200).optional(),
});

export const journalEntryView = z.strictObject({
  seq: z.number().int().min(0),
  at: isoTimestamp,
  action: z.enum(JOURNAL_ACTIONS),
  profileId: optionalText,
  profileName: optionalText,
  organizationId: optionalText,
  userId: optionalText,
  apiKeyFingerprint: optionalText,
  /** Which credential stamped it (keychain key, token key or passkey), on entries recorded since the journal names it. */
  credential: journalCredentialSchema.optional(),
  activityId: optionalText,
  activityFingerprint: optionalText,
  reading: journalReadingSchema,
  appProofCount: z.number().int().min(0),
  /** The roots the entry's app proofs chain to, through their boot proofs, and the name this desktop pins each under. */
  vouchedBy: z.array(rootView).max(10),
});
export type JournalEntryView = z.infer<typeof journalEntryView>;

export const journalVerificationView = z.strictObject({
  valid: z.boolean(),
  /** Entries that verified. */
  count: z.number().int().min(0),
  /** The journal key from entry 0: what Settings shows for an auditor to pin. */
  journalKey: z.string().max(130).optional(),
  head: z.string().max(64).optional(),
  /** The last line was cut short by a crash; the next entry replaces it. */
  tornTail: z.boolean(),
  /** The attestation roots app proofs are checked against: AWS Nitro's for Turnkey, the Sandbox's own for it. */
  pinnedRoots: z.array(z.strictObject({ fingerprint: sha256HexSchema, name: z.string().max(200) })).max(100),
  problem: z
    .strictObject({ kind: z.string().max(64), line: z.number().int().optional(), seq: z.number().int().optional(), message: z.string().max(2000) })
    .optional(),
});
export type JournalVerificationView = z.infer<typeof journalVerificationView>;

/** A family (`vote`) or a whole action (`vote.approved`). */
export const journalFilter = z.strictObject({
  action: z
    .string()
    .regex(/^[a-z-]+(?:\.[a-z-]+)?$/)
    .max(64)
    .optional(),
  profileId: z.string().min(1).max(128).optional(),
  from: isoTimestamp.optional(),
  to: isoTimestamp.optional(),
});

/** At most this many entries cross at once, newest first. */
export const JOURNAL_LIST_LIMIT = 2000;

export const journalChannels = {
  /** The entries matching the filter, newest first, with where verification of the whole journal stands. */
  list: {
    input: journalFilter,
    output: z.strictObject({ entries: z.array(journalEntryView).max(JOURNAL_LIST_LIMIT), verification: journalVerificationView }),
  },
  verify: { input: z.strictObject({}), output: journalVerificationView },
  /** Writes the entries of a date range (the whole journal without dates) as JSON lines, and its checkpoint beside it. */
  export: {
    input: z.strictObject({ from: isoTimestamp.optional(), to: isoTimestamp.optional(), file: journalFileName }),
    output: z.strictObject({ file: z.string(), checkpointFile: z.string(), count: z.number().int().min(1) }),
  },
  /** Writes a signed checkpoint of the journal's head. */
  checkpoint: {
    input: z.strictObject({ file: journalFileName }),
    output: z.strictObject({ file: z.string(), count: z.number().int().min(1), head: z.string() }),
  },
} as const;
