/**
 * The journal of what this desktop stamped, approved and revealed (docs/formats.md#journal): `<dataDir>/journal.jsonl`,
 * append-only, one signed entry a line, each chained to the one before. An entry is written and fsynced before the
 * action is reported done. The app and the CLI append to the same file, so an append holds an OS lock beside it
 * (journal-lock.ts) and, holding it, reads the journal's end again and checks it before extending it. A crash can
 * leave only a torn last line (an append cut short); it is reported by verification and cut off by the next append,
 * which then continues from the last complete entry.
 *
 * Main holds no entries for the app's life, whatever the journal's size: once verified, it keeps an index of the
 * verified entries (journal-index.ts: time, action, profile, where the line is and its hash, some 55 bytes an entry
 * rather than kilobytes parsed), and a list or an export reads from the file only the lines it answers, checked
 * against the hashes that verified.
 */
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { QkError } from '../../shared/errors';
import {
  canonicalJson,
  GENESIS_PREV,
  JOURNAL_STARTED,
  JOURNAL_VERSION,
  journalRecordSchema,
  MAX_ENTRY_BYTES,
  signCheckpoint,
  signEntry,
  type Checkpoint,
  type JournalEntry,
  type JournalRecord,
  type JournalSignatureVerifier,
} from '../../shared/journal/format';
import { BootProofCheck, proofRoots, type ProofRoot } from '../../shared/journal/attestations';
import { verifyJournalEnd, type JournalVerdict } from '../../shared/journal/verify';
import type { SecretStore } from '../keychain/secret-store';
import { openNewFile, writeNewFile } from '../storage/bounded-file';
import { JournalIndex, type IndexFilter } from './journal-index';
import { JOURNAL_KEY_FILE, journalKeyFor, nodeJournalVerifier, type JournalKey } from './journal-key';
import { withJournalLock } from './journal-lock';
import { copyVerifiedRange, lastLines, readIndexedLines, verifyJournalFile, type VerifiedPrefix } from './verify-file';
import { verifyJournalFileOffThread } from './verify-off-thread';

export const JOURNAL_FILE = 'journal.jsonl';
/** The OS lock appends take (journal-lock.ts), beside the journal; older versions' `journal.jsonl.lock` is not read. */
export const JOURNAL_LOCK_FILE = 'journal.lock';

/** An append waits this long for another process's lock before giving up. */
const LOCK_WAIT_MS = 10_000;
/**
 * New bytes a verification checks on main's event loop: some 50 entries, tens of milliseconds of signature checks.
 * More, as when a large journal is verified from its start, go to a worker thread.
 */
const INLINE_VERIFY_BYTES = 32 * 1024;

export interface JournalOptions {
  dataDir: string;
  secrets: SecretStore;
  now?: () => number;
  /**
   * Checks the signatures of entries main verifies itself (node:crypto's by default); the worker thread that verifies
   * a large journal uses node:crypto's.
   */
  verifySignature?: JournalSignatureVerifier;
}

export interface JournalRange {
  /** Entries at or after this instant (milliseconds since the epoch). */
  fromMs?: number;
  /** Entries at or before this instant. */
  toMs?: number;
}

/** Where the last complete entry stands, as read from the file and checked. */
interface Tail {
  seq: number;
  hash: string;
  journalKey: string;
}

/** A verdict on the whole journal as main keeps it: how many entries verified, rather than the entries. */
export type JournalStanding = Omit<JournalVerdict, 'entries'> & { count: number };

/** How far the file verified, and the index of the entries up to there. */
interface Verified {
  prefix: VerifiedPrefix;
  index: JournalIndex;
}

/** A verification's verdict on the whole file, and what verified (undefined: not even entry 0). */
interface Verification {
  verdict: JournalStanding;
  verified: Verified | undefined;
}

export class Journal {
  readonly file: string;
  private readonly secrets: SecretStore;
  private readonly now: () => number;
  private readonly verifySignature: JournalSignatureVerifier;
  private readonly bootProofs = new BootProofCheck();
  private key: JournalKey | undefined;
  /** How far the file verified, and its index up to there: a later verification checks only what follows. */
  private verified: Verified | undefined;
  /** The verification running (settled when none is). */
  private verificationRunning: Promise<unknown> = Promise.resolve();
  /** The verification that starts when the running one ends: every caller arriving meanwhile shares it. */
  private verificationNext: Promise<Verification> | undefined;
  /** Appends from this Journal, one after another; the lock orders them against other processes and Journals. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor({ dataDir, secrets, now = Date.now, verifySignature = nodeJournalVerifier() }: JournalOptions) {
    this.file = join(dataDir, JOURNAL_FILE);
    this.secrets = secrets;
    this.now = now;
    this.verifySignature = verifySignature;
  }

  /**
   * Appends one entry, written and fsynced when the promise resolves. The record is checked first: a record that
   * would carry something unexpected (or too large) is refused, and nothing is written.
   */
  record(record: JournalRecord): Promise<JournalEntry> {
    const checked = journalRecordSchema.safeParse(record);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return Promise.reject(
        new QkError('INTERNAL', `a journal record was refused (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}); this is a bug`),
      );
    }
    const appended = this.queue.then(() =>
      withJournalLock(join(dirname(this.file), JOURNAL_LOCK_FILE), LOCK_WAIT_MS, () => this.append(checked.data)),
    );
    this.queue = appended.catch(() => undefined);
    return appended;
  }

  /**
   * Verifies the journal. Only the entries appended since the last verification are checked, once the file is found
   * to still begin with exactly the bytes that verified; otherwise (an edit, a cut) the whole file is, and the verdict
   * names what broke. More than a few new entries are checked on a worker thread, off main's event loop.
   */
  async verify(): Promise<JournalStanding> {
    return (await this.verification()).verdict;
  }

  /**
   * The newest `limit` verified entries matching `filter`, newest first, read from the file (FAILED_PRECONDITION when
   * one is no longer what verified), with the verdict on the whole journal.
   */
  async list(filter: IndexFilter, limit: number): Promise<{ entries: JournalEntry[]; verdict: JournalStanding }> {
    const { verdict, verified } = await this.verification();
    if (verified === undefined) return { entries: [], verdict };
    const { index } = verified;
    const lines = await readIndexedLines(
      this.file,
      index.select(filter, limit).map((seq) => index.location(seq)),
    );
    // Each line is byte for byte one that verified, so it parses to the entry that did.
    return { entries: lines.map((line) => JSON.parse(line) as JournalEntry), verdict };
  }

  /**
   * One verification at a time: a caller arriving while one runs shares the next, which starts when it ends and so
   * sees whatever was appended before the caller asked.
   */
  private verification(): Promise<Verification> {
    if (this.verificationNext !== undefined) return this.verificationNext;
    const next = this.verificationRunning.then(() => {
      this.verificationNext = undefined;
      return this.verifyFile();
    });
    this.verificationNext = next;
    this.verificationRunning = next.catch(() => undefined);
    return next;
  }

  private async verifyFile(): Promise<Verification> {
    const bounded = { verifySignature: this.verifySignature, bootProofs: this.bootProofs, maxNewBytes: INLINE_VERIFY_BYTES };
    let known = this.verified;
    let result = await verifyJournalFile(this.file, known?.prefix, bounded);
    if (result === 'prefix-changed') {
      known = undefined;
      result = await verifyJournalFile(this.file, undefined, bounded);
    }
    if (typeof result === 'string') {
      const offThread = await verifyJournalFileOffThread(this.file, known?.prefix);
      this.bootProofs.adopt(offThread.bootProofs);
      result = offThread;
    }
    const index = result.continued && known !== undefined ? known.index : new JournalIndex();
    index.append(result.rows);
    this.verified = result.prefix === undefined ? undefined : { prefix: result.prefix, index };
    return { verdict: { ...result.verdict, count: index.count }, verified: this.verified };
  }

  /** The roots a verified entry's app proofs chain to (docs/formats.md#journal); none for an entry without proofs. */
  proofRoots(entry: JournalEntry): ProofRoot[] {
    return proofRoots(entry, this.bootProofs);
  }

  /** A signed checkpoint of the journal's head, as verified; refused when the journal does not verify. */
  async checkpoint(): Promise<Checkpoint> {
    const { verdict, verified } = await this.verification();
    // A checkpoint vouches for what it covers: the key must never sign the head of a journal that was tampered with.
    if (!verdict.valid) {
      throw new QkError('FAILED_PRECONDITION', `the journal does not verify, so no checkpoint is signed: ${verdict.problem?.message ?? ''}`);
    }
    if (verified === undefined) throw new QkError('FAILED_PRECONDITION', 'the journal is empty: there is nothing to checkpoint yet');
    const { count, head, journalKey } = verified.prefix;
    return this.checkpointOf(count, head, journalKey);
  }

  /**
   * Writes the entries in `range` to `file` as JSON lines (verbatim, so they verify), copied from the journal a chunk
   * at a time while its verified bytes are hashed again, and a checkpoint of the last one beside it
   * (`<name>.checkpoint.json`): a slice that does not start at entry 0 is verified against it. Both are new files;
   * nothing is left of either when the journal does not verify, changed meanwhile, or a write fails.
   */
  async writeExport(range: JournalRange, file: string): Promise<{ file: string; checkpointFile: string; count: number }> {
    const { verdict, verified } = await this.verification();
    if (!verdict.valid) {
      throw new QkError('FAILED_PRECONDITION', `the journal does not verify, so it is not exported: ${verdict.problem?.message ?? ''}`);
    }
    const span = verified?.index.span(range);
    if (verified === undefined || span === undefined) throw new QkError('NOT_FOUND', 'the journal has no entry in that date range');
    const { prefix, index } = verified;
    const checkpointFile = checkpointFileFor(file);
    const output = await openNewFile(file, { mode: 0o600 });
    try {
      try {
        await copyVerifiedRange(this.file, prefix, { from: index.location(span.first).offset, to: index.lineEnd(span.last) }, (bytes) =>
          writeAll(output, bytes, file),
        );
      } finally {
        await output.close();
      }
      const checkpoint = await this.checkpointOf(span.last + 1, index.hashHex(span.last), prefix.journalKey);
      await writeNewFile(checkpointFile, checkpointText(checkpoint), { mode: 0o600 });
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
    return { file, checkpointFile, count: span.last - span.first + 1 };
  }

  async writeCheckpoint(file: string): Promise<Checkpoint> {
    const checkpoint = await this.checkpoint();
    await writeNewFile(file, checkpointText(checkpoint), { mode: 0o600 });
    return checkpoint;
  }

  /** A signed checkpoint of entries 0 … count-1, the last of which hashes to `head`. */
  private async checkpointOf(count: number, head: string, journalKey: string | undefined): Promise<Checkpoint> {
    const key = await this.signingKey(journalKey);
    return signCheckpoint({ count, head, at: new Date(this.now()).toISOString(), journalKey: key.publicKey }, key.sign);
  }

  private async append(record: JournalRecord): Promise<JournalEntry> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    let handle: FileHandle;
    try {
      handle = await open(this.file, fsConstants.O_RDWR | fsConstants.O_CREAT | fsConstants.O_APPEND, 0o600);
    } catch (error) {
      throw fileError(this.file, error);
    }
    try {
      let tail = await this.readTail(handle);
      if (tail === undefined) {
        const key = await this.signingKey(undefined);
        const { line, hash } = await signEntry(
          {
            v: JOURNAL_VERSION,
            seq: 0,
            at: new Date(this.now()).toISOString(),
            prev: GENESIS_PREV,
            action: JOURNAL_STARTED,
            journalKey: key.publicKey,
            reading: {
              title: 'Journal started',
              summary: 'Every entry after this one is signed by the journal key named here',
              facts: [
                { label: 'Journal key', value: key.publicKey },
                {
                  label: 'Held in',
                  value:
                    key.home === 'keychain' ? 'the OS keychain' : `the file ${JOURNAL_KEY_FILE} of the data directory (no OS keychain was reachable)`,
                },
              ],
              warnings: [],
              verdict: 'started',
            },
          },
          key.sign,
        );
        await appendLine(handle, line, this.file);
        await syncDirectory(dirname(this.file));
        tail = { seq: 0, hash, journalKey: key.publicKey };
      }
      const key = await this.signingKey(tail.journalKey);
      const { entry, line } = await signEntry(
        { ...record, v: JOURNAL_VERSION, seq: tail.seq + 1, at: new Date(this.now()).toISOString(), prev: tail.hash },
        key.sign,
      );
      // A verifier refuses a longer line, so none is written.
      if (Buffer.byteLength(line) > MAX_ENTRY_BYTES) {
        throw new QkError(
          'INTERNAL',
          `a journal record was refused: its entry would take over the ${MAX_ENTRY_BYTES} bytes an entry may; this is a bug`,
        );
      }
      await appendLine(handle, line, this.file);
      return entry;
    } finally {
      await handle.close();
    }
  }

  /**
   * The last complete entry, read again from the file under the lock (another process may have appended since) and
   * checked: signed by the journal key and following the entry before it, so that an entry is never appended after one
   * that does not verify. A torn last line is cut off first (fsynced), so the next entry follows the last complete one.
   */
  private async readTail(handle: FileHandle): Promise<Tail | undefined> {
    const { first, before, last, torn } = await lastLines(handle, this.file);
    if (torn > 0) {
      await handle.truncate((await handle.stat()).size - torn);
      await handle.sync();
    }
    if (first === undefined || last === undefined) return undefined;
    const end = verifyJournalEnd(first, before, last, { verifySignature: this.verifySignature, bootProofs: this.bootProofs });
    if ('kind' in end) {
      throw new QkError(
        'FAILED_PRECONDITION',
        `${this.file} does not end in an entry that verifies (${end.message}), so nothing is appended to it; check it with journal verify, then move it aside to begin a new one`,
        { path: this.file },
      );
    }
    return { seq: end.lastSeq, hash: end.head, journalKey: end.journalKey };
  }

  /** The journal key entry 0 names (created only for a journal not yet begun): journal-key.ts says where it is held. */
  private async signingKey(expected: string | undefined): Promise<JournalKey> {
    if (this.key === undefined || (expected !== undefined && this.key.publicKey !== expected)) {
      this.key = await journalKeyFor({ keychain: this.secrets, file: join(dirname(this.file), JOURNAL_KEY_FILE) }, expected);
    }
    return this.key;
  }
}

/** `audit.jsonl` → `audit.checkpoint.json`: where an export's checkpoint goes. */
export function checkpointFileFor(file: string): string {
  return `${file.replace(/\.jsonl?$/, '')}.checkpoint.json`;
}

function checkpointText(checkpoint: Checkpoint): string {
  return `${canonicalJson(checkpoint)}\n`;
}

/** Writes all of `bytes` at the handle's position; a failure is FILE_ERROR naming `file`. */
async function writeAll(handle: FileHandle, bytes: Buffer, file: string): Promise<void> {
  try {
    for (let written = 0; written < bytes.length;) written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten;
  } catch (error) {
    throw new QkError('FILE_ERROR', `cannot write ${file}: ${(error as Error).message}`, { path: file });
  }
}

/** Writes the line and its newline (the file is opened for appending), then fsyncs. */
async function appendLine(handle: FileHandle, line: string, file: string): Promise<void> {
  await writeAll(handle, Buffer.from(`${line}\n`, 'utf8'), file);
  await handle.sync();
}

/** Makes a newly created file's directory entry durable too. */
async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

function fileError(path: string, error: unknown): QkError {
  return new QkError('FILE_ERROR', `cannot use the journal file ${path}: ${(error as Error).message}`, { path });
}
