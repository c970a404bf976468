/**
 * Verifying the journal file incrementally: a verification remembers how far the file verified (its bytes and their
 * SHA-256, and the last entry), and the next one checks only the lines appended since, once the file is found to
 * still begin with exactly those bytes. Hashing the prefix is cheap next to the signature checks it spares, and it
 * catches any edit inside it, whatever the file's size or times say. A verification answers index rows of the entries
 * it verified (journal-index.ts), not the entries; reading lines back checks each against the hash it verified with.
 *
 * The file is read a chunk at a time and each line checked as it is read (the shared JournalVerifier), so memory
 * holds a chunk and one line (at most MAX_ENTRY_BYTES) whatever the file's size, and reading stops at the first line
 * that does not verify.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { QkError } from '../../shared/errors';
import type { BootProofCheck } from '../../shared/journal/attestations';
import { MAX_ENTRY_BYTES, type JournalEntry, type JournalSignatureVerifier } from '../../shared/journal/format';
import { JournalVerifier, type JournalVerifierOptions, type StreamedVerdict, type VerifiedEnd } from '../../shared/journal/verify';
import { indexRows, joinRows, type IndexedLine, type IndexRows, type LineLocation } from './journal-index';

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
  verdict: StreamedVerdict;
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
}

/** Bytes read (and hashed) at a time: the event loop runs between reads. */
const READ_CHUNK = 1 << 20;

/** Bytes read at a time from the journal's end when an append looks for its last lines. */
const TAIL_CHUNK = 64 * 1024;

/** Index rows are gathered into typed arrays this many entries at a time, so few entries' objects are held. */
const ROWS_PER_PART = 4096;

/**
 * Verifies `file`, continuing after `known` when the file still begins with its bytes. 'prefix-changed' when it does
 * not (an edit, a truncation, another file): only a verification from the start can then say what broke.
 */
export async function verifyJournalFile(
  file: string,
  known: VerifiedPrefix | undefined,
  { verifySignature, bootProofs, maxNewBytes = Infinity }: VerifyFileOptions,
): Promise<FileVerification | 'prefix-changed' | 'too-large'> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(file, error);
    if (known !== undefined) return 'prefix-changed';
    return { continued: false, verdict: new JournalVerifier().finish(false), rows: indexRows([], 0), prefix: undefined };
  }
  try {
    const { size } = await handle.stat();
    const start = known?.bytes ?? 0;
    if (size < start) return 'prefix-changed';
    if (size - start > maxNewBytes) return 'too-large';
    const hash = createHash('sha256');
    if (known !== undefined && (await hashRange(handle, hash, start)) !== known.sha256) return 'prefix-changed';
    const rows: IndexRows[] = [];
    let part: IndexedLine[] = [];
    let verifiedEnd = start;
    const checks = { verifySignature, ...(bootProofs === undefined ? {} : { bootProofs }), ...(known === undefined ? {} : { after: known }) };
    const { verdict, end } = await streamLines(handle, start, checks, (line, offset, entry, lineHash) => {
      part.push(indexedLine(entry, offset, lineHash));
      hash.update(line).update(NEWLINE);
      verifiedEnd = offset + line.length + 1;
      if (part.length === ROWS_PER_PART) {
        rows.push(indexRows(part, verifiedEnd));
        part = [];
      }
    });
    rows.push(indexRows(part, verifiedEnd));
    const prefix = end === undefined ? undefined : verifiedEnd === start ? known : { ...end, bytes: verifiedEnd, sha256: hash.digest('hex') };
    return { continued: known !== undefined, verdict, rows: joinRows(rows), prefix };
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === undefined || error instanceof QkError ? error : fileError(file, error);
  } finally {
    await handle.close();
  }
}

const NEWLINE = Buffer.from('\n');

/** A streamed verification's verdict, and where the lines that verified end. */
export interface StreamedVerification {
  verdict: StreamedVerdict;
  end: VerifiedEnd | undefined;
}

/**
 * Verifies the file's lines from byte `start` on, reading a chunk at a time until the verdict is decided or the file
 * ends. `onVerified` gets each line that verified, with its offset, entry and hash. A line longer than an entry may be
 * is refused once that many of its bytes are read, without reading the rest.
 */
async function streamLines(
  handle: FileHandle,
  start: number,
  options: Omit<JournalVerifierOptions, 'onEntry'>,
  onVerified: (line: Buffer, offset: number, entry: JournalEntry, hash: string) => void,
  limit?: { bytes: number; exceeded: () => QkError },
): Promise<StreamedVerification> {
  // What the verifier hands over for the line it is checking, when it verifies.
  const verified: { entry: JournalEntry | undefined; hash: string } = { entry: undefined, hash: '' };
  const verifier = new JournalVerifier({ ...options, onEntry: (entry, hash) => Object.assign(verified, { entry, hash }) });
  const answer = (tornTail: boolean): StreamedVerification => ({ verdict: verifier.finish(tornTail), end: verifier.end() });
  const chunk = Buffer.allocUnsafe(READ_CHUNK);
  /** The start of a line not yet complete, carried over from earlier chunks; reused, grown up to an entry's length. */
  let pending = Buffer.allocUnsafe(0);
  let pendingBytes = 0;
  const carry = (piece: Buffer) => {
    if (pendingBytes + piece.length > pending.length) {
      const grown = Buffer.allocUnsafe(Math.min(MAX_ENTRY_BYTES, Math.max(2 * pending.length, pendingBytes + piece.length)));
      pending.copy(grown, 0, 0, pendingBytes);
      pending = grown;
    }
    piece.copy(pending, pendingBytes);
    pendingBytes += piece.length;
  };
  let lineOffset = start;
  for (let position = start; ;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) return answer(pendingBytes > 0);
    position += bytesRead;
    if (limit !== undefined && position - start > limit.bytes) throw limit.exceeded();
    const bytes = chunk.subarray(0, bytesRead);
    for (let from = 0; from < bytes.length;) {
      const newline = bytes.indexOf(0x0a, from);
      const piece = bytes.subarray(from, newline === -1 ? bytes.length : newline);
      if (pendingBytes + piece.length > MAX_ENTRY_BYTES) {
        verifier.overlong();
        return answer(false);
      }
      if (newline === -1) {
        // Copied: the chunk is read into again.
        carry(piece);
        break;
      }
      // Checked before the next read: neither the verifier nor `onVerified` keeps the bytes.
      if (pendingBytes > 0) carry(piece);
      const line = pendingBytes === 0 ? piece : pending.subarray(0, pendingBytes);
      pendingBytes = 0;
      verified.entry = undefined;
      const open = verifier.line(line);
      if (verified.entry !== undefined) onVerified(line, lineOffset, verified.entry, verified.hash);
      if (!open) return answer(false);
      lineOffset += line.length + 1;
      from = newline + 1;
    }
  }
}

/** A journal file verified from its start, as `journal verify` verifies it. */
export interface WholeFileVerification extends StreamedVerification {
  /** How many entries verified, and the first one's `seq` (0 but in a slice). */
  count: number;
  first: number | undefined;
}

/**
 * Verifies a journal file, or an exported slice with its checkpoint, from its start, a line at a time: stopping at
 * the first line that does not verify, and holding one line however long the file. `onEntry` gets each entry that
 * verified. The file is read, not sized first (it may be a pipe): FILE_ERROR once more than `limit.bytes` are read.
 */
export async function verifyWholeFile(
  file: string,
  options: Pick<JournalVerifierOptions, 'checkpoint' | 'verifySignature' | 'bootProofs'>,
  limit: { bytes: number; what: string },
  onEntry: (entry: JournalEntry) => void = () => {},
): Promise<WholeFileVerification> {
  let count = 0;
  let first: number | undefined;
  let verification: StreamedVerification | undefined;
  const exceeded = () =>
    new QkError('FILE_ERROR', `${file} is larger than ${limit.bytes} bytes, more than ${limit.what} can need; is it the right file?`, {
      path: file,
      limitBytes: limit.bytes,
    });
  await withFile(file, async (handle) => {
    verification = await streamLines(
      handle,
      0,
      options,
      (_line, _offset, entry) => {
        first ??= entry.seq;
        count += 1;
        onEntry(entry);
      },
      { bytes: limit.bytes, exceeded },
    );
  });
  return { ...verification!, count, first };
}

/**
 * The journal's end, for an append: its first line, its last two complete lines (`before` undefined when the file
 * holds one), and how many bytes of torn line follow them. Read from the end a chunk at a time, doubled while a line
 * is longer, so that an append reads a few kilobytes whatever the journal's size; FAILED_PRECONDITION when a line
 * there is longer than an entry may be.
 */
export async function lastLines(
  handle: FileHandle,
  file: string,
): Promise<{ first: Buffer | undefined; before: Buffer | undefined; last: Buffer | undefined; torn: number }> {
  const { size } = await handle.stat();
  // Two lines and a torn one, each at most an entry long, and their newlines.
  const most = 3 * (MAX_ENTRY_BYTES + 1);
  let bytes = Buffer.alloc(0);
  let start = size;
  for (let length = TAIL_CHUNK; ; length *= 2) {
    if (size - start > most) throw notAnEntry(file, 'its last lines are longer than an entry can be');
    const from = Math.max(0, start - length);
    bytes = Buffer.concat([await readRange(handle, from, start - from), bytes]);
    start = from;
    const lastNewline = bytes.lastIndexOf(0x0a);
    const torn = bytes.length - lastNewline - 1;
    if (lastNewline === -1) {
      if (start === 0) return { first: undefined, before: undefined, last: undefined, torn };
      continue;
    }
    const lastStart = lineStart(bytes, lastNewline);
    if (lastStart === 0 && start > 0) continue;
    const last = bytes.subarray(lastStart, lastNewline);
    if (lastStart === 0) return { first: last, before: undefined, last, torn };
    const beforeStart = lineStart(bytes, lastStart - 1);
    if (beforeStart === 0 && start > 0) continue;
    const before = bytes.subarray(beforeStart, lastStart - 1);
    return { first: beforeStart === 0 ? before : await firstLine(handle, file), before, last, torn };
  }
}

/** Where the line ending at the newline at `end` starts in `bytes` (0: at its start, or before it). */
function lineStart(bytes: Buffer, end: number): number {
  return end === 0 ? 0 : bytes.lastIndexOf(0x0a, end - 1) + 1;
}

/** The file's first line, read a chunk at a time up to an entry's length. */
async function firstLine(handle: FileHandle, file: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let position = 0; position <= MAX_ENTRY_BYTES;) {
    const bytes = await readRange(handle, position, TAIL_CHUNK);
    const newline = bytes.indexOf(0x0a);
    if (newline !== -1) return Buffer.concat([...parts, bytes.subarray(0, newline)]);
    if (bytes.length === 0) break;
    parts.push(bytes);
    position += bytes.length;
  }
  throw notAnEntry(file, 'its first line is longer than an entry can be');
}

function notAnEntry(file: string, why: string): QkError {
  return new QkError('FAILED_PRECONDITION', `${file} is not a QuorumKey journal (${why}); move it aside to begin a new one`, { path: file });
}

/** An entry's row as the index keeps it, without the rest of the entry. */
function indexedLine({ at, action, profileId }: JournalEntry, offset: number, hash: string): IndexedLine {
  return { at: Date.parse(at), action, profileId, offset, hash };
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
