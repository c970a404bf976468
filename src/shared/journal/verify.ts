/**
 * The journal's verifier: pure, offline, needing only the file and the key in its first entry (or a checkpoint's).
 * It walks the lines in order and stops at the first thing that breaks, naming the entry and what broke, so an
 * auditor reads one precise sentence rather than a cascade of follow-on errors. Lines are handed to it one at a time
 * (`JournalVerifier`), so it holds one line whatever the file's size, and a file wrong at line 1 is judged once line 1
 * is read.
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8Decode, utf8Encode } from '../crypto/encoding';
import { BootProofCheck, checkEntryProofs } from './attestations';
import {
  canonicalJson,
  checkpointSchema,
  GENESIS_PREV,
  JOURNAL_STARTED,
  journalEntrySchema,
  MAX_ENTRY_BYTES,
  sha256Hex,
  signedBytes,
  STAMPED_ACTIONS,
  type Checkpoint,
  type JournalSignatureVerifier,
  type JournalEntry,
} from './format';

export type JournalProblemKind =
  | 'malformed'
  | 'not-canonical'
  | 'signature'
  | 'chain'
  | 'deleted'
  | 'inserted'
  | 'reordered'
  | 'key-replaced'
  | 'truncated'
  | 'diverged'
  | 'app-proof'
  | 'credential'
  | 'checkpoint-invalid'
  | 'slice-without-checkpoint';

export interface JournalProblem {
  kind: JournalProblemKind;
  /** 1-based line of the file where it broke; undefined for a problem of the checkpoint or of the file as a whole. */
  line: number | undefined;
  /** The entry's sequence number, where the line could be read. */
  seq: number | undefined;
  message: string;
}

export interface JournalVerdict {
  valid: boolean;
  /** Entries that verified, in order. */
  entries: JournalEntry[];
  /** The first problem; undefined when valid. */
  problem: JournalProblem | undefined;
  /** The journal key the entries were checked against (entry 0's, or the checkpoint's for a slice). */
  journalKey: string | undefined;
  /** The hash of the last verified entry. */
  head: string | undefined;
  /**
   * A last line without its newline: an append cut short by a crash, left out of `entries`. Told only when the lines
   * before it were all read, as a verification stops at the first that does not verify.
   */
  tornTail: boolean;
}

export interface VerifyOptions {
  /** A checkpoint (its JSON text) the journal must extend. Needed for a slice, which has no entry 0. */
  checkpoint?: string;
  /** The signature check; @noble/curves by default (main passes node:crypto's, which is faster). */
  verifySignature?: JournalSignatureVerifier;
  /** Verifies the entries' boot proofs, remembering those it has; a new one for each verification by default. */
  bootProofs?: BootProofCheck;
}

export const nobleVerifySignature: JournalSignatureVerifier = (signature, message, publicKey) => {
  try {
    return p256.verify(signature, message, publicKey, { lowS: false, format: 'compact' });
  } catch {
    return false;
  }
};

/** Splits text into complete lines and a torn tail (text after the last newline). */
export function journalLines(text: string): { lines: string[]; tornTail: string } {
  const end = text.lastIndexOf('\n');
  return { lines: end === -1 ? [] : text.slice(0, end).split('\n'), tornTail: text.slice(end + 1) };
}

/** Reads and checks a checkpoint's own signature; throws a problem naming what is wrong with it. */
export function parseCheckpoint(text: string, verifySignature: JournalSignatureVerifier = nobleVerifySignature): Checkpoint {
  const fail = (message: string): never => {
    throw new JournalCheckFailure({ kind: 'checkpoint-invalid', line: undefined, seq: undefined, message });
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('the checkpoint is not JSON');
  }
  const parsed = checkpointSchema.safeParse(value);
  if (!parsed.success)
    return fail(
      `the checkpoint is not a journal checkpoint (${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''})`,
    );
  const checkpoint = parsed.data;
  if (!verifySignature(hexToBytes(checkpoint.sig, 'sig'), signedBytes(checkpoint), hexToBytes(checkpoint.journalKey, 'journalKey'))) {
    fail('the checkpoint signature does not verify under its journal key');
  }
  return checkpoint;
}

class JournalCheckFailure extends Error {
  constructor(readonly problem: JournalProblem) {
    super(problem.message);
  }
}

/** Verifies a whole journal given as text, answering its entries; files are verified a line at a time instead. */
export function verifyJournal(text: string, options: VerifyOptions = {}): JournalVerdict {
  return verifyText(text, options);
}

/** Where a verified journal ends: all that checking the lines appended after it needs. */
export interface VerifiedEnd {
  /** How many lines (entries) verified. */
  count: number;
  /** The last one's `seq`. */
  lastSeq: number;
  /** Its hash: the next entry's `prev`. */
  head: string;
  journalKey: string;
}

/**
 * Verifies `text`, the lines appended after a journal verified up to `end`, as {@link verifyJournal} would verify
 * them within the whole file: the verdict's entries are the new ones only, and its lines count from the file's start.
 */
export function verifyAppended(end: VerifiedEnd, text: string, options: Pick<VerifyOptions, 'verifySignature' | 'bootProofs'> = {}): JournalVerdict {
  return verifyText(text, { ...options, after: end });
}

function verifyText(text: string, options: JournalVerifierOptions): JournalVerdict {
  const { lines, tornTail } = journalLines(text);
  const entries: JournalEntry[] = [];
  const verifier = new JournalVerifier({ ...options, onEntry: (entry) => entries.push(entry) });
  for (const line of lines) if (!verifier.line(line)) return { ...verifier.finish(false), entries };
  return { ...verifier.finish(tornTail !== ''), entries };
}

/**
 * Checks the end of a journal before an entry is appended to it, as a verification of the whole file would find it:
 * `first` (entry 0's line) names the key, and `last` must be signed by it and follow `before`, the line before it (in
 * `seq` and `prev`; undefined when `last` is entry 0). `before` itself is vouched for by `last`'s signature over its
 * hash. The lines are the file's bytes, without their newlines. Answers where the journal ends, or the first problem.
 */
export function verifyJournalEnd(
  first: Uint8Array,
  before: Uint8Array | undefined,
  last: Uint8Array,
  options: Pick<VerifyOptions, 'verifySignature' | 'bootProofs'> = {},
): VerifiedEnd | JournalProblem {
  const start = new JournalVerifier(options);
  start.line(first);
  const entryZero = start.end();
  if (entryZero === undefined || before === undefined) return start.finish(false).problem ?? entryZero!;
  const beforeSeq = seqOf(before);
  if (beforeSeq === undefined) {
    return { kind: 'malformed', line: undefined, seq: undefined, message: 'the line before the last is not a journal entry' };
  }
  const after = { ...entryZero, count: beforeSeq + 1, lastSeq: beforeSeq, head: bytesToHex(sha256(before)) };
  const tail = new JournalVerifier({ ...options, after });
  tail.line(last);
  return tail.finish(false).problem ?? tail.end()!;
}

export interface JournalVerifierOptions extends VerifyOptions {
  /** Continue after lines that verified before (a checkpoint is then not checked); line numbers count on from it. */
  after?: VerifiedEnd;
  /** Called with each entry that verified, in order, and its hash. */
  onEntry?: (entry: JournalEntry, hash: string) => void;
}

/** A verdict without the entries: a streamed verification hands them to `onEntry` instead of keeping them. */
export type StreamedVerdict = Omit<JournalVerdict, 'entries'>;

/**
 * Verifies a journal handed to it a line at a time, holding only what the next line is checked against (the key, the
 * previous entry's `seq` and hash). Each line is judged as it arrives, so the first bad one ends the verification:
 * `line()` answers false and later lines need not be read. One case reads on: an entry further on in `seq` than the
 * next one, which is a deletion, or a reordering when a skipped entry comes later; the lines after it are then only
 * searched for those entries' `seq` (see docs/formats.md#journal).
 */
export class JournalVerifier {
  private readonly verifySignature: JournalSignatureVerifier;
  private readonly bootProofs: BootProofCheck;
  private readonly onEntry: ((entry: JournalEntry, hash: string) => void) | undefined;
  /** Lines (entries) that verified before this verification began: where its line numbers count on from. */
  private readonly verifiedBefore: number;
  private readonly checkpoint: Checkpoint | undefined;
  private problem: JournalProblem | undefined;
  /** Lines handed in so far. */
  private lines = 0;
  /** Entries verified here. */
  private verified = 0;
  private firstSeq: number | undefined;
  private previous: { seq: number; hash: string } | undefined;
  private journalKey: string | undefined;
  private key: Uint8Array | undefined;
  /** The hash of the line the checkpoint's head must be, once verified. */
  private checkpointLineHash: string | undefined;
  /** A jump forward in `seq`, open until the lines after it tell a deletion from a reordering. */
  private gap: { line: number; seq: number; expected: number } | undefined;

  constructor(options: JournalVerifierOptions = {}) {
    this.verifySignature = options.verifySignature ?? nobleVerifySignature;
    this.bootProofs = options.bootProofs ?? new BootProofCheck();
    this.onEntry = options.onEntry;
    const { after } = options;
    this.verifiedBefore = after?.count ?? 0;
    if (after !== undefined) {
      this.previous = { seq: after.lastSeq, hash: after.head };
      this.setKey(after.journalKey);
    } else if (options.checkpoint !== undefined) {
      try {
        this.checkpoint = parseCheckpoint(options.checkpoint, this.verifySignature);
      } catch (error) {
        if (!(error instanceof JournalCheckFailure)) throw error;
        this.problem = error.problem;
      }
    }
  }

  /**
   * Checks the next complete line (without its newline), as text or as the file's bytes (which must be UTF-8); answers
   * whether the verdict is still open, false once it is decided.
   */
  line(line: string | Uint8Array): boolean {
    if (this.problem !== undefined) return false;
    this.lines += 1;
    const number = this.verifiedBefore + this.lines;
    if (typeof line === 'string' && longerThanAnEntry(line)) {
      this.lines -= 1;
      this.overlong();
      return false;
    }
    try {
      if (this.gap !== undefined) this.lookFor(this.gap, line);
      else if (typeof line === 'string') this.check(line, sha256Hex(line), number);
      else this.check(decodeLine(line, number), bytesToHex(sha256(line)), number);
    } catch (error) {
      if (!(error instanceof JournalCheckFailure)) throw error;
      this.problem = error.problem;
    }
    return this.problem === undefined;
  }

  /** The next line is longer than {@link MAX_ENTRY_BYTES}: it is refused without being read further. */
  overlong(): void {
    if (this.problem !== undefined) return;
    const line = this.verifiedBefore + this.lines + 1;
    this.problem =
      this.gap === undefined
        ? { kind: 'malformed', line, seq: undefined, message: `line ${line}: longer than ${MAX_ENTRY_BYTES} bytes, more than an entry can take` }
        : deleted(this.gap);
  }

  /** The verdict once every line was handed in; `tornTail` when text followed the last newline. */
  finish(tornTail: boolean): StreamedVerdict {
    if (this.problem === undefined && this.gap !== undefined) this.problem = deleted(this.gap);
    if (this.problem === undefined && this.checkpoint !== undefined) this.problem = this.extendsCheckpoint(this.checkpoint);
    return {
      valid: this.problem === undefined,
      problem: this.problem,
      journalKey: this.journalKey,
      head: this.previous?.hash,
      tornTail,
    };
  }

  /** Where the verified lines end (those verified before included); undefined when none has. */
  end(): VerifiedEnd | undefined {
    if (this.previous === undefined || this.journalKey === undefined) return undefined;
    return { count: this.verifiedBefore + this.verified, lastSeq: this.previous.seq, head: this.previous.hash, journalKey: this.journalKey };
  }

  private setKey(journalKey: string): void {
    this.journalKey = journalKey;
    this.key = hexToBytes(journalKey, 'journal key');
  }

  private check(text: string, hash: string, line: number): void {
    const entry = parseLine(text, line);
    const previous = this.previous;
    if (previous === undefined) this.checkFirst(entry, line);
    else if (!this.follows(previous.seq, entry, line)) return;
    if (!this.verifySignature(hexToBytes(entry.sig, 'sig'), signedBytes(entry), this.key!)) {
      throw new JournalCheckFailure({
        kind: 'signature',
        line,
        seq: entry.seq,
        message: `entry ${entry.seq} (line ${line}): the signature does not verify under the journal key ${shortKey(this.journalKey)}; the entry was changed after it was signed, or signed with another key`,
      });
    }
    if (previous !== undefined && entry.prev !== previous.hash) {
      throw new JournalCheckFailure({
        kind: 'chain',
        line,
        seq: entry.seq,
        message: `entry ${entry.seq} (line ${line}): prev does not match the hash of entry ${entry.seq - 1}; an entry before it was changed or replaced`,
      });
    }
    try {
      checkEntryProofs(entry, this.bootProofs);
    } catch (error) {
      throw new JournalCheckFailure({
        kind: 'app-proof',
        line,
        seq: entry.seq,
        message: `entry ${entry.seq} (line ${line}): ${(error as Error).message}`,
      });
    }
    const credentialProblem = credentialMismatch(entry);
    if (credentialProblem !== undefined) {
      throw new JournalCheckFailure({ kind: 'credential', line, seq: entry.seq, message: `entry ${entry.seq} (line ${line}): ${credentialProblem}` });
    }
    if (this.checkpoint !== undefined && this.verified === this.checkpoint.count - 1 - this.firstSeq!) this.checkpointLineHash = hash;
    this.verified += 1;
    this.previous = { seq: entry.seq, hash };
    this.onEntry?.(entry, hash);
  }

  /** The journal's first line: entry 0, naming the key, or with a checkpoint the first entry of a slice. */
  private checkFirst(entry: JournalEntry, line: number): void {
    const checkpoint = this.checkpoint;
    if (entry.seq !== 0 && checkpoint === undefined) {
      throw new JournalCheckFailure({
        kind: 'slice-without-checkpoint',
        line,
        seq: entry.seq,
        message: `the file starts at entry ${entry.seq}, not entry 0: it is an exported slice; verify it with the checkpoint exported beside it`,
      });
    }
    const journalKey = entry.seq === 0 ? genesisKey(entry) : checkpoint!.journalKey;
    if (checkpoint !== undefined && journalKey !== checkpoint.journalKey) {
      throw new JournalCheckFailure({
        kind: 'key-replaced',
        line,
        seq: entry.seq,
        message: `entry 0 names journal key ${shortKey(journalKey)}, but the checkpoint was signed by ${shortKey(checkpoint.journalKey)}: the journal key was replaced`,
      });
    }
    if (entry.seq === 0 && entry.prev !== GENESIS_PREV) {
      throw new JournalCheckFailure({ kind: 'chain', line, seq: 0, message: 'entry 0: prev must be 64 zeros, as nothing comes before it' });
    }
    this.setKey(journalKey);
    this.firstSeq = entry.seq;
  }

  /**
   * Whether `entry` is the one after `beforeSeq`; throws when it comes again or names a key, and opens a gap (answering
   * false) when it is further on.
   */
  private follows(beforeSeq: number, entry: JournalEntry, line: number): boolean {
    const expected = beforeSeq + 1;
    if (entry.journalKey !== undefined) {
      throw new JournalCheckFailure({
        kind: 'inserted',
        line,
        seq: entry.seq,
        message: `line ${line}: a second entry naming a journal key; only entry 0 may`,
      });
    }
    if (entry.seq === expected) return true;
    if (entry.seq < expected) {
      // Moving an entry shows first as a gap (below): going back in sequence means an extra entry.
      throw new JournalCheckFailure({
        kind: 'inserted',
        line,
        seq: entry.seq,
        message: `line ${line}: entry ${entry.seq} comes again after entry ${expected - 1}; an entry was inserted`,
      });
    }
    this.gap = { line, seq: entry.seq, expected };
    return false;
  }

  /** A line after a gap: a skipped entry found in it means the entries were reordered. */
  private lookFor(gap: { line: number; seq: number; expected: number }, line: string | Uint8Array): void {
    const seq = seqOf(line);
    if (seq !== undefined && seq >= gap.expected && seq < gap.seq) {
      throw new JournalCheckFailure({
        kind: 'reordered',
        line: gap.line,
        seq: gap.seq,
        message: `line ${gap.line}: entry ${gap.seq} comes before entry ${gap.expected}; the entries were reordered`,
      });
    }
  }

  private extendsCheckpoint(checkpoint: Checkpoint): JournalProblem | undefined {
    const firstSeq = this.firstSeq ?? 0;
    const index = checkpoint.count - 1 - firstSeq;
    if (this.verified === 0) return truncated(checkpoint, 0, undefined);
    if (index >= this.verified) return truncated(checkpoint, this.verified + firstSeq, this.verified);
    if (index < 0) {
      return {
        kind: 'checkpoint-invalid',
        line: undefined,
        seq: undefined,
        message: `the checkpoint covers entries 0-${checkpoint.count - 1}, which end before this file's first entry ${firstSeq}`,
      };
    }
    if (this.checkpointLineHash !== checkpoint.head) {
      return {
        kind: 'diverged',
        line: index + 1,
        seq: checkpoint.count - 1,
        message: `entry ${checkpoint.count - 1} (line ${index + 1}) is not the entry the checkpoint recorded as head: this journal does not extend the checkpoint`,
      };
    }
    return undefined;
  }
}

function deleted({ line, seq, expected }: { line: number; seq: number; expected: number }): JournalProblem {
  return {
    kind: 'deleted',
    line,
    seq,
    message: `line ${line}: entry ${seq} follows entry ${expected - 1}; ${seq - expected === 1 ? `entry ${expected} was` : `entries ${expected}-${seq - 1} were`} deleted`,
  };
}

/** A line's bytes as text: strictly UTF-8, so that the bytes hashed and the text checked are one and the same. */
/**
 * What is wrong with the credential an entry names, if anything: only a stamped action names one, and its key must be
 * the key whose fingerprint the entry records. Entries written before credentials were recorded name none and pass.
 */
function credentialMismatch(entry: JournalEntry): string | undefined {
  const { credential } = entry;
  if (credential === undefined) return undefined;
  if (!STAMPED_ACTIONS.includes(entry.action)) return `the ${entry.action} entry names a stamping credential, but nothing was stamped`;
  const fingerprint = `sha256:${bytesToHex(sha256(hexToBytes(credential.publicKey, 'credential.publicKey')))}`;
  if (entry.apiKeyFingerprint !== undefined && entry.apiKeyFingerprint !== fingerprint) {
    return `the credential (${credential.name}) has key ${fingerprint}, but the stamp's key is ${entry.apiKeyFingerprint}`;
  }
  return undefined;
}

function decodeLine(bytes: Uint8Array, line: number): string {
  try {
    return utf8Decode(bytes, `line ${line}`);
  } catch {
    throw new JournalCheckFailure({ kind: 'malformed', line, seq: undefined, message: `line ${line}: not UTF-8 text` });
  }
}

/** Whether `text` takes more than MAX_ENTRY_BYTES as UTF-8: encoded only when it could (a UTF-16 unit is 1 to 3 bytes). */
function longerThanAnEntry(text: string): boolean {
  return text.length * 3 > MAX_ENTRY_BYTES && utf8Encode(text).length > MAX_ENTRY_BYTES;
}

/** The `seq` a line names, if it is JSON with one; nothing else of it is checked. */
function seqOf(line: string | Uint8Array): number | undefined {
  try {
    const value: unknown = JSON.parse(typeof line === 'string' ? line : utf8Decode(line));
    const seq = (value as { seq?: unknown } | null)?.seq;
    return typeof seq === 'number' ? seq : undefined;
  } catch {
    return undefined;
  }
}

function parseLine(line: string, lineNumber: number): JournalEntry {
  const fail = (kind: JournalProblemKind, message: string): never => {
    throw new JournalCheckFailure({ kind, line: lineNumber, seq: undefined, message: `line ${lineNumber}: ${message}` });
  };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return fail('malformed', line === '' ? 'an empty line inside the journal' : 'not JSON');
  }
  const parsed = journalEntrySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail('malformed', `not a journal entry (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`);
  }
  if (canonicalJson(value) !== line) fail('not-canonical', 'the entry is not in canonical JSON (RFC 8785) as it was written');
  return parsed.data;
}

function genesisKey(first: JournalEntry): string {
  if (first.action !== JOURNAL_STARTED || first.journalKey === undefined) {
    throw new JournalCheckFailure({
      kind: 'malformed',
      line: 1,
      seq: 0,
      message: `entry 0 must be ${JOURNAL_STARTED} and name the journal key; it is ${first.action}${first.journalKey === undefined ? ' without a key' : ''}`,
    });
  }
  return first.journalKey;
}

function truncated(checkpoint: Checkpoint, held: number, line: number | undefined): JournalProblem {
  return {
    kind: 'truncated',
    line,
    seq: undefined,
    message: `the checkpoint covers ${checkpoint.count} entries but the journal holds only ${held}: entries ${held}-${checkpoint.count - 1} were cut off`,
  };
}

function shortKey(key: string | undefined): string {
  return key === undefined ? '(none)' : `${key.slice(0, 10)}…${key.slice(-8)}`;
}
