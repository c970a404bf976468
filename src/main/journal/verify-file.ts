/**
 * Verifying the journal file incrementally: a verification remembers how far the file verified (its bytes and their
 * SHA-256, and the last entry), and the next one checks only the lines appended since, once the file is found to
 * still begin with exactly those bytes. Hashing the prefix is cheap next to the signature checks it spares, and it
 * catches any edit inside it, whatever the file's size or times say. A verification answers index rows of the entries
 * it verified (journal-index.ts), not the entries; reading lines back checks each against the hash it verified with.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { QkError } from '../../shared/errors';
import type { BootProofCheck } from '../../shared/journal/attestations';
import type { JournalSignatureVerifier } from '../../shared/journal/format';
import { verifyAppended, verifyJournal, type JournalVerdict, type VerifiedEnd, type VerifyOptions } from '../../shared/journal/verify';
import { indexRows, joinRows, type IndexRows, type LineLocation } from './journal-index';

/** How far the file verified. */
export interface VerifiedPrefix extends VerifiedEnd {
  /** The bytes the verified entries take at the file's start, newlines included. */
  bytes: number;
  /** The SHA-256 of those bytes, hex. */
  sha256: string;
}

export interface FileVerification {
  /** Whether it continued after the known prefix; otherwise it verified from the file's start. */
  continued: boolean;
  /** The verdict on the lines it checked, without their entries. */
  verdict: Omit<JournalVerdict, 'entries'>;
  /** The index rows of the entries that verified: when it continued, only of the ones after the prefix. */
  rows: IndexRows;
  /** How far the file now verified; undefined when not even its first entry did. */
  prefix: VerifiedPrefix | undefined;
}

export interface VerifyFileOptions {
  verifySignature: JournalSignatureVerifier;
  /** Remembers the boot proofs it verified, for the next verification and for reading the entries' roots. */
  bootProofs?: BootProofCheck;
  /** Answer 'too-large' rather than check more than this many new bytes (main's bound on its own event loop). */
  maxNewBytes?: number;
  /** About how many bytes of lines are checked at a time (VERIFY_BATCH_BYTES). */
  batchBytes?: number;
}

/** Lines are verified about this many bytes at a time (some thousands of entries). */
const VERIFY_BATCH_BYTES = 4 << 20;

/** Bytes read (and hashed) at a time: the event loop runs between reads. */
const READ_CHUNK = 1 << 20;

/**
 * Verifies `file`, continuing after `known` when the file still begins with its bytes. 'prefix-changed' when it does
 * not (an edit, a truncation, another file): only a verification from the start can then say what broke.
 */
export async function verifyJournalFile(
  file: string,
  known: VerifiedPrefix | undefined,
  { verifySignature, bootProofs, maxNewBytes = Infinity, batchBytes = VERIFY_BATCH_BYTES }: VerifyFileOptions,
): Promise<FileVerification | 'prefix-changed' | 'too-large'> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(file, error);
    if (known !== undefined) return 'prefix-changed';
    const { entries, ...verdict } = verifyJournal('');
    return { continued: false, verdict, rows: indexRows(entries, '', Buffer.alloc(0), 0), prefix: undefined };
  }
  try {
    const { size } = await handle.stat();
    const start = known?.bytes ?? 0;
    if (size < start) return 'prefix-changed';
    if (size - start > maxNewBytes) return 'too-large';
    const hash = createHash('sha256');
    if (known !== undefined && (await hashRange(handle, hash, start)) !== known.sha256) return 'prefix-changed';
    const checks = { verifySignature, ...(bootProofs === undefined ? {} : { bootProofs }) };
    return await verifyInBatches(handle, { known, start, size, hash, checks, batchBytes });
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === undefined || error instanceof QkError ? error : fileError(file, error);
  } finally {
    await handle.close();
  }
}

interface LinesToVerify {
  known: VerifiedPrefix | undefined;
  /** Where the lines to check begin (the known prefix's end) and the file's size. */
  start: number;
  size: number;
  /** The SHA-256 of the bytes before `start`, to be continued over the lines that verify. */
  hash: Hash;
  checks: Pick<VerifyOptions, 'verifySignature' | 'bootProofs'>;
  batchBytes: number;
}

/**
 * Verifies [start, size) a batch of whole lines at a time, so that only one batch's entries are held. A journal that
 * does not verify is checked again in one piece (unless one batch held it all), so that what broke, and how far it
 * verified, is said exactly as a verification of the whole file says it: every line is read before any signature is
 * checked, and an entry moved further on is "reordered", not "deleted".
 */
async function verifyInBatches(handle: FileHandle, range: LinesToVerify): Promise<FileVerification> {
  const { known, start, size, hash, checks, batchBytes } = range;
  const atStart = hash.copy();
  let end: VerifiedEnd | undefined = known;
  let verdict: Omit<JournalVerdict, 'entries'> | undefined;
  const parts: IndexRows[] = [];
  // At least one batch, empty when nothing was appended: its verdict is the answer.
  for (let position = start; verdict === undefined || position < size;) {
    const batch = await readLines(handle, position, size, batchBytes);
    const { entries, ...summary } = verifyLines(end, batch.toString('utf8'), checks);
    if (!summary.valid && (position > start || batch.length < size - start)) {
      return verifyInBatches(handle, { ...range, hash: atStart, batchBytes: Infinity });
    }
    verdict = summary;
    const rows = indexRows(entries, summary.head ?? '', batch, position);
    parts.push(rows);
    hash.update(batch.subarray(0, rows.end - position));
    const last = entries.at(-1);
    if (last !== undefined) end = { count: (end?.count ?? 0) + entries.length, last, head: summary.head!, journalKey: summary.journalKey! };
    position += batch.length;
  }
  const rows = joinRows(parts);
  const prefix = end === known ? known : { ...end!, bytes: rows.end, sha256: hash.digest('hex') };
  return { continued: known !== undefined, verdict, rows, prefix };
}

/** The lines in `text` checked as the continuation of `end`, or as the journal's start when nothing verified before. */
function verifyLines(end: VerifiedEnd | undefined, text: string, checks: LinesToVerify['checks']): JournalVerdict {
  return end === undefined ? verifyJournal(text, checks) : verifyAppended(end, text, checks);
}

/**
 * The whole lines from `position` on, about `batchBytes` of them (more when one line is longer), or everything left,
 * a torn last line included, when the file ends within that.
 */
async function readLines(handle: FileHandle, position: number, size: number, batchBytes: number): Promise<Buffer> {
  for (let length = batchBytes; ; length *= 2) {
    if (position + length >= size) return readRange(handle, position, size - position);
    const bytes = await readRange(handle, position, length);
    const lastNewline = bytes.lastIndexOf(0x0a);
    if (lastNewline !== -1) return bytes.subarray(0, lastNewline + 1);
  }
}

/** Bytes between two lines a list wants that are read through rather than skipped with another read. */
const READ_GAP = 16 * 1024;

/**
 * The lines at `locations`, in the order given, read in as few reads as fit: FAILED_PRECONDITION when a line's bytes
 * no longer have the SHA-256 they verified with, as when the file was edited after its verification.
 */
export async function readIndexedLines(file: string, locations: LineLocation[]): Promise<string[]> {
  const ascending = [...locations].sort((a, b) => a.offset - b.offset);
  const lines = new Map<number, string>();
  await withFile(file, async (handle) => {
    for (let first = 0; first < ascending.length;) {
      const start = ascending[first]!.offset;
      let last = first;
      for (let next = ascending[last + 1]; next !== undefined; next = ascending[last + 1]) {
        if (next.offset - lineEnd(ascending[last]!) > READ_GAP || lineEnd(next) - start > READ_CHUNK) break;
        last += 1;
      }
      const span = await readRange(handle, start, lineEnd(ascending[last]!) - start);
      for (const location of ascending.slice(first, last + 1)) {
        const bytes = span.subarray(location.offset - start, lineEnd(location) - start);
        if (bytes.length !== location.length || !createHash('sha256').update(bytes).digest().equals(location.hash)) {
          throw new QkError(
            'FAILED_PRECONDITION',
            `${file} changed after it verified: entry ${location.seq} (line ${location.seq + 1}) is no longer the entry that verified, so it is not shown; open the journal again to verify it anew`,
            { path: file, seq: location.seq },
          );
        }
        lines.set(location.seq, bytes.toString('utf8'));
      }
      first = last + 1;
    }
  });
  return locations.map(({ seq }) => lines.get(seq)!);
}

/**
 * Hands bytes [from, to) of the verified prefix to `write` a chunk at a time while hashing the whole prefix:
 * FAILED_PRECONDITION when the prefix's bytes turn out not to be those that verified (what `write` was handed is then
 * not the verified journal, and must be discarded).
 */
export async function copyVerifiedRange(
  file: string,
  prefix: VerifiedPrefix,
  { from, to }: { from: number; to: number },
  write: (bytes: Buffer) => Promise<void>,
): Promise<void> {
  await withFile(file, async (handle) => {
    const digest = await hashRange(handle, createHash('sha256'), prefix.bytes, async (bytes, position) => {
      const start = Math.max(from, position);
      const end = Math.min(to, position + bytes.length);
      if (start < end) await write(bytes.subarray(start - position, end - position));
    });
    if (digest !== prefix.sha256) {
      throw new QkError('FAILED_PRECONDITION', `${file} changed while it was being exported; export again`, { path: file });
    }
  });
}

/**
 * Hashes the file's first `length` bytes into `hash`, a chunk at a time, handing each chunk (and where it starts) to
 * `onChunk` first; answers the digest so far, or '' when the file is shorter.
 */
async function hashRange(
  handle: FileHandle,
  hash: Hash,
  length: number,
  onChunk?: (bytes: Buffer, position: number) => Promise<void>,
): Promise<string> {
  const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(length, 1)));
  for (let position = 0; position < length;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, length - position), position);
    if (bytesRead === 0) return '';
    await onChunk?.(chunk.subarray(0, bytesRead), position);
    hash.update(chunk.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.copy().digest('hex');
}

function lineEnd({ offset, length }: LineLocation): number {
  return offset + length;
}

/** Runs `fn` with the file open for reading; a failure to read it is FILE_ERROR. */
async function withFile(file: string, fn: (handle: FileHandle) => Promise<void>): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw fileError(file, error);
  }
  try {
    await fn(handle);
  } catch (error) {
    throw error instanceof QkError ? error : fileError(file, error);
  } finally {
    await handle.close();
  }
}

async function readRange(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  for (let read = 0; read < length;) {
    const { bytesRead } = await handle.read(bytes, read, length - read, position + read);
    if (bytesRead === 0) return bytes.subarray(0, read);
    read += bytesRead;
  }
  return bytes;
}

function fileError(path: string, error: unknown): QkError {
  return new QkError('FILE_ERROR', `cannot read the journal file ${path}: ${(error as Error).message}`, { path });
}
