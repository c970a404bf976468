/**
 * The journal's verifier: pure, offline, needing only the file and the key in its first entry (or a checkpoint's).
 * It walks the lines in order and stops at the first thing that breaks, naming the entry and what broke, so an
 * auditor reads one precise sentence rather than a cascade of follow-on errors.
 */
import { p256 } from '@noble/curves/nist.js';
import { hexToBytes } from '../crypto/encoding';
import { BootProofCheck, checkEntryProofs } from './attestations';
import {
  canonicalJson,
  checkpointSchema,
  GENESIS_PREV,
  JOURNAL_STARTED,
  journalEntrySchema,
  sha256Hex,
  signedBytes,
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
  /** A last line without its newline: an append cut short by a crash, left out of `entries`. */
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

/** Splits the file into complete lines and a torn tail (text after the last newline). */
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

export function verifyJournal(text: string, options: VerifyOptions = {}): JournalVerdict {
  const verifySignature = options.verifySignature ?? nobleVerifySignature;
  const { lines, tornTail } = journalLines(text);
  const walk = newWalk(tornTail);
  try {
    const checkpoint = options.checkpoint === undefined ? undefined : parseCheckpoint(options.checkpoint, verifySignature);
    const parsed = lines.map((line, index) => parseLine(line, index + 1));
    const first = parsed[0];
    if (first === undefined) return verdictOf(walk, checkpoint === undefined ? undefined : truncated(checkpoint, 0, undefined));
    if (first.seq !== 0 && checkpoint === undefined) {
      throw new JournalCheckFailure({
        kind: 'slice-without-checkpoint',
        line: 1,
        seq: first.seq,
        message: `the file starts at entry ${first.seq}, not entry 0: it is an exported slice; verify it with the checkpoint exported beside it`,
      });
    }
    walk.journalKey = first.seq === 0 ? genesisKey(first) : checkpoint?.journalKey;
    if (checkpoint !== undefined && walk.journalKey !== checkpoint.journalKey) {
      throw new JournalCheckFailure({
        kind: 'key-replaced',
        line: 1,
        seq: first.seq,
        message: `entry 0 names journal key ${shortKey(walk.journalKey)}, but the checkpoint was signed by ${shortKey(checkpoint.journalKey)}: the journal key was replaced`,
      });
    }
    checkEntries(lines, parsed, { previous: undefined, lineOffset: 0 }, walk, {
      verifySignature,
      bootProofs: options.bootProofs ?? new BootProofCheck(),
    });
    if (checkpoint !== undefined) checkExtends(checkpoint, parsed, lines);
    return verdictOf(walk);
  } catch (error) {
    if (error instanceof JournalCheckFailure) return verdictOf(walk, error.problem);
    throw error;
  }
}

/** Where a verified journal ends: all that checking the lines appended after it needs. */
export interface VerifiedEnd {
  /** How many lines (entries) verified. */
  count: number;
  /** The last of them. */
  last: JournalEntry;
  /** Its hash: the next entry's `prev`. */
  head: string;
  journalKey: string;
}

/**
 * Verifies `text`, the lines appended after a journal verified up to `end`, as {@link verifyJournal} would verify
 * them within the whole file: the verdict's entries are the new ones only, and its lines count from the file's start.
 */
export function verifyAppended(end: VerifiedEnd, text: string, options: Pick<VerifyOptions, 'verifySignature' | 'bootProofs'> = {}): JournalVerdict {
  const { lines, tornTail } = journalLines(text);
  const walk = newWalk(tornTail);
  walk.journalKey = end.journalKey;
  walk.head = end.head;
  try {
    const parsed = lines.map((line, index) => parseLine(line, end.count + index + 1));
    checkEntries(lines, parsed, { previous: { entry: end.last, hash: end.head }, lineOffset: end.count }, walk, {
      verifySignature: options.verifySignature ?? nobleVerifySignature,
      bootProofs: options.bootProofs ?? new BootProofCheck(),
    });
    return verdictOf(walk);
  } catch (error) {
    if (error instanceof JournalCheckFailure) return verdictOf(walk, error.problem);
    throw error;
  }
}

/** What a verification has established so far. */
interface Walk {
  entries: JournalEntry[];
  journalKey: string | undefined;
  head: string | undefined;
  tornTail: boolean;
}

function newWalk(tornTail: string): Walk {
  return { entries: [], journalKey: undefined, head: undefined, tornTail: tornTail !== '' };
}

function verdictOf({ entries, journalKey, head, tornTail }: Walk, problem?: JournalProblem): JournalVerdict {
  return { valid: problem === undefined, entries, problem, journalKey, head, tornTail };
}

/**
 * Checks each entry in order against the one before it (`start.previous`, for the first) and the journal key, adding
 * it to `walk` once it holds; throws at the first that does not.
 */
function checkEntries(
  lines: string[],
  parsed: JournalEntry[],
  start: { previous: { entry: JournalEntry; hash: string } | undefined; lineOffset: number },
  walk: Walk,
  { verifySignature, bootProofs }: { verifySignature: JournalSignatureVerifier; bootProofs: BootProofCheck },
): void {
  const key = hexToBytes(walk.journalKey ?? '', 'journal key');
  const seqs = parsed.map((entry) => entry.seq);
  let previous = start.previous;
  for (const [index, entry] of parsed.entries()) {
    const line = start.lineOffset + index + 1;
    if (previous !== undefined) checkSequence(previous.entry, index, line);
    else if (entry.seq === 0 && entry.prev !== GENESIS_PREV) {
      throw new JournalCheckFailure({ kind: 'chain', line, seq: 0, message: 'entry 0: prev must be 64 zeros, as nothing comes before it' });
    }
    if (!verifySignature(hexToBytes(entry.sig, 'sig'), signedBytes(entry), key)) {
      throw new JournalCheckFailure({
        kind: 'signature',
        line,
        seq: entry.seq,
        message: `entry ${entry.seq} (line ${line}): the signature does not verify under the journal key ${shortKey(walk.journalKey)}; the entry was changed after it was signed, or signed with another key`,
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
      checkEntryProofs(entry, bootProofs);
    } catch (error) {
      throw new JournalCheckFailure({
        kind: 'app-proof',
        line,
        seq: entry.seq,
        message: `entry ${entry.seq} (line ${line}): ${(error as Error).message}`,
      });
    }
    previous = { entry, hash: sha256Hex(lines[index] ?? '') };
    walk.entries.push(entry);
    walk.head = previous.hash;
  }

  /** The entry at `index` must be the one after `before`; otherwise names how the order broke. */
  function checkSequence(before: JournalEntry, index: number, line: number): void {
    const entry = parsed[index]!;
    const expected = before.seq + 1;
    if (entry.journalKey !== undefined) {
      throw new JournalCheckFailure({
        kind: 'inserted',
        line,
        seq: entry.seq,
        message: `line ${line}: a second entry naming a journal key; only entry 0 may`,
      });
    }
    if (entry.seq === expected) return;
    if (entry.seq < expected) {
      // Moving an entry shows first as a gap (handled below): going back in sequence means an extra entry.
      throw new JournalCheckFailure({
        kind: 'inserted',
        line,
        seq: entry.seq,
        message: `line ${line}: entry ${entry.seq} comes again after entry ${expected - 1}; an entry was inserted`,
      });
    }
    const movedLater = seqs.slice(index + 1).some((seq) => seq >= expected && seq < entry.seq);
    throw new JournalCheckFailure(
      movedLater
        ? {
            kind: 'reordered',
            line,
            seq: entry.seq,
            message: `line ${line}: entry ${entry.seq} comes before entry ${expected}; the entries were reordered`,
          }
        : {
            kind: 'deleted',
            line,
            seq: entry.seq,
            message: `line ${line}: entry ${entry.seq} follows entry ${expected - 1}; ${entry.seq - expected === 1 ? `entry ${expected} was` : `entries ${expected}-${entry.seq - 1} were`} deleted`,
          },
    );
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

function checkExtends(checkpoint: Checkpoint, parsed: JournalEntry[], text: string[]): void {
  const firstSeq = parsed[0]?.seq ?? 0;
  const index = checkpoint.count - 1 - firstSeq;
  const last = parsed.at(-1);
  if (index >= parsed.length || last === undefined) throw new JournalCheckFailure(truncated(checkpoint, parsed.length + firstSeq, parsed.length));
  if (index < 0) {
    throw new JournalCheckFailure({
      kind: 'checkpoint-invalid',
      line: undefined,
      seq: undefined,
      message: `the checkpoint covers entries 0-${checkpoint.count - 1}, which end before this file's first entry ${firstSeq}`,
    });
  }
  if (sha256Hex(text[index] ?? '') !== checkpoint.head) {
    throw new JournalCheckFailure({
      kind: 'diverged',
      line: index + 1,
      seq: checkpoint.count - 1,
      message: `entry ${checkpoint.count - 1} (line ${index + 1}) is not the entry the checkpoint recorded as head: this journal does not extend the checkpoint`,
    });
  }
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
