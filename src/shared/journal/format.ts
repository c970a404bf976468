/**
 * The journal's entry and checkpoint formats (docs/formats.md#journal): one canonical JSON object (RFC 8785) per line,
 * each holding the SHA-256 of the line before it and an ECDSA P-256 signature (raw r‖s, over SHA-256 of the entry's
 * canonical JSON without `sig`) by the journal key named in the first entry. Pure: the signature functions are passed
 * in, so main can sign with node:crypto and anyone can verify with @noble/curves.
 */
import canonicalize from 'canonicalize';
import { sha256 } from '@noble/hashes/sha2.js';
import { z } from 'zod';
import { bytesToHex, utf8Encode } from '../crypto/encoding';
import { QkError } from '../errors';

export const JOURNAL_VERSION = 1;
export const CHECKPOINT_KIND = 'quorumkey-journal-checkpoint';
/** `prev` of the first entry: there is no line before it. */
export const GENESIS_PREV = '0'.repeat(64);
/** The first entry's action: it introduces the journal key. */
export const JOURNAL_STARTED = 'journal.started';

/** What an entry records. The dotted prefix is the family the Journal screen filters on. */
export const JOURNAL_ACTIONS = [
  JOURNAL_STARTED,
  'activity.submitted',
  'vote.approved',
  'vote.rejected',
  'vote.stamped-offline',
  'request.stamped-offline',
  'request.posted-from-file',
  'export.revealed',
  'export.decrypted',
  'export.withdrawn',
  'app.unlocked',
  'app.unlock-failed',
  'profile.added',
  'profile.updated',
  'profile.removed',
  'profile.activated',
  'settings.widened',
] as const;
export type JournalAction = (typeof JOURNAL_ACTIONS)[number];

/**
 * The most bytes an entry's line may take, its newline aside: far above any entry the app writes (kilobytes; a few
 * megabytes with the most proofs an entry holds), and the bound on what a verifier holds of one line, so a file of one
 * endless line is judged at its first line without reading the rest.
 */
export const MAX_ENTRY_BYTES = 16 * 1024 * 1024;

/** A SHA-256 in lowercase hex: an entry's hash, a root certificate's fingerprint. */
export const sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, { error: 'expected a SHA-256: 64 lowercase hex digits' });
const text = z.string().max(100_000);
/** Uncompressed P-256 point, 130 hex characters. */
export const journalKeySchema = z.string().regex(/^04[0-9a-f]{128}$/);

/** What main showed (or would show) for the action: the confirmation's title, summary, facts, warnings and verdict. */
export const journalReadingSchema = z.strictObject({
  title: text,
  summary: text,
  facts: z.array(z.strictObject({ label: text, value: text })).max(1000),
  warnings: z.array(text).max(100),
  /** How it ended, in words: "completed", "waiting for votes", "failed: …". */
  verdict: text,
});
export type JournalReading = z.infer<typeof journalReadingSchema>;

const appProofSchema = z.strictObject({
  scheme: z.literal('SIGNATURE_SCHEME_EPHEMERAL_KEY_P256'),
  publicKey: z.string().regex(/^[0-9a-f]{260}$/),
  proofPayload: z.string().max(100_000),
  signature: z.string().regex(/^[0-9a-f]{128}$/),
});

/** Turnkey's `v1BootProof`, verbatim: the attestation that vouches for an app proof's ephemeral key. */
const bootProofSchema = z.strictObject({
  ephemeralPublicKeyHex: z.string().regex(/^[0-9a-f]{260}$/),
  awsAttestationDocB64: z.string().max(64_000),
  qosManifestB64: z.string().max(64_000),
  qosManifestEnvelopeB64: z.string().max(256_000),
  deploymentLabel: z.string().max(1000),
  enclaveApp: z.string().max(1000),
  owner: z.string().max(1000),
  createdAt: z.strictObject({ seconds: z.string().max(32), nanos: z.string().max(32) }),
  qosManifestVersion: z.string().max(1000).exactOptional(),
});

/** Kinds of credential that stamp: an API key in the OS keychain, a key on a PKCS#11 token, a passkey (votes). */
export const CREDENTIAL_KINDS = ['keychain', 'pkcs11', 'passkey'] as const;

/** Actions whose entry may name a credential: this desktop stamped their request. */
export const STAMPED_ACTIONS: readonly JournalAction[] = [
  'activity.submitted',
  'vote.approved',
  'vote.rejected',
  'vote.stamped-offline',
  'request.stamped-offline',
];

export const journalCredentialSchema = z.strictObject({
  kind: z.enum(CREDENTIAL_KINDS),
  /** In words: `API key "ops" in the OS keychain`, `PKCS#11 token "yk" key "ops-1"`. */
  name: z.string().min(1).max(200),
  /** The stamping key's public key as hex, whose fingerprint is the entry's `apiKeyFingerprint`. */
  publicKey: z.string().regex(/^(?:[0-9a-f]{2}){32,65}$/),
  /** A passkey's WebAuthn credential id (base64url), which its vote names on the service. */
  credentialId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,1366}$/)
    .optional(),
});
export type JournalCredential = z.infer<typeof journalCredentialSchema>;

/** Who and what, without the chain fields: what {@link JournalEntry} adds to a record. */
export const journalRecordSchema = z.strictObject({
  action: z.enum(JOURNAL_ACTIONS),
  profileId: z.string().max(128).optional(),
  profileName: z.string().max(64).optional(),
  organizationId: z.string().max(128).optional(),
  userId: z.string().max(128).optional(),
  /** `sha256:` + hex SHA-256 of the stamping API key's public key bytes. */
  apiKeyFingerprint: z.string().max(80).optional(),
  /** Which credential stamped it, on an entry of a request this desktop stamped; older entries lack it. */
  credential: journalCredentialSchema.optional(),
  activityId: z.string().max(128).optional(),
  activityFingerprint: z.string().max(80).optional(),
  reading: journalReadingSchema,
  /** The service's app proofs for the activity, verbatim. */
  appProofs: z.array(appProofSchema).max(100).optional(),
  /** The boot proof of each ephemeral key that signed those app proofs, verbatim (`get_boot_proof`). */
  bootProofs: z.array(bootProofSchema).max(10).optional(),
});
export type JournalRecord = z.infer<typeof journalRecordSchema>;

export const journalEntrySchema = journalRecordSchema.extend({
  v: z.literal(JOURNAL_VERSION),
  seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** ISO 8601 UTC with milliseconds. */
  at: z.iso.datetime(),
  prev: sha256HexSchema,
  /** Only in entry 0: the key every entry is signed with. */
  journalKey: journalKeySchema.optional(),
  sig: z.string().regex(/^[0-9a-f]{128}$/),
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;
export type UnsignedEntry = Omit<JournalEntry, 'sig'>;

export const checkpointSchema = z.strictObject({
  kind: z.literal(CHECKPOINT_KIND),
  v: z.literal(JOURNAL_VERSION),
  /** How many entries the journal held: entries 0 … count-1. */
  count: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  /** The hash of entry count-1. */
  head: sha256HexSchema,
  at: z.iso.datetime(),
  journalKey: journalKeySchema,
  sig: z.string().regex(/^[0-9a-f]{128}$/),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

/** Signs a message with the journal key: ECDSA P-256 over SHA-256(message), answering raw r‖s. */
export type JournalSigner = (message: Uint8Array) => Uint8Array | Promise<Uint8Array>;
/** Whether `signature` (raw r‖s, ECDSA P-256 over SHA-256(message)) verifies under the uncompressed `publicKey`. */
export type JournalSignatureVerifier = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/** RFC 8785 text of a JSON value. */
export function canonicalJson(value: unknown): string {
  const serialized = canonicalize(value);
  if (serialized === undefined) throw new QkError('INTERNAL', 'a journal value has no JSON form');
  return serialized;
}

/** An entry's hash: SHA-256 of its line (the canonical JSON, without the newline). */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8Encode(text)));
}

/** What the signature covers: the UTF-8 canonical JSON of everything but `sig`. */
export function signedBytes(value: object): Uint8Array {
  const { sig: _sig, ...unsigned } = value as { sig?: unknown };
  return utf8Encode(canonicalJson(unsigned));
}

/** An entry's line on disk (without the newline), whose SHA-256 the next entry's `prev` holds. */
export async function signEntry(unsigned: UnsignedEntry, sign: JournalSigner): Promise<{ entry: JournalEntry; line: string; hash: string }> {
  const entry: JournalEntry = { ...unsigned, sig: bytesToHex(await sign(signedBytes(unsigned))) };
  const line = canonicalJson(entry);
  return { entry, line, hash: sha256Hex(line) };
}

export async function signCheckpoint(fields: Omit<Checkpoint, 'sig' | 'kind' | 'v'>, sign: JournalSigner): Promise<Checkpoint> {
  const unsigned = { kind: CHECKPOINT_KIND, v: JOURNAL_VERSION, ...fields } as const;
  return { ...unsigned, sig: bytesToHex(await sign(signedBytes(unsigned))) };
}
