/**
 * Verifying the journal file incrementally: a verification remembers how far the file verified (its bytes and their
 * SHA-256, and the last entry), and the next one checks only the lines appended since, once the file is found to
 * still begin with exactly those bytes. Hashing the prefix is cheap next to the signature checks it spares, and it
 * catches any edit inside it, whatever the file's size or times say.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { QkError } from '../../shared/errors';
import type { BootProofCheck } from '../../shared/journal/attestations';
import type { JournalSignatureVerifier } from '../../shared/journal/format';
import { verifyAppended, verifyJournal, type JournalVerdict, type VerifiedEnd } from '../../shared/journal/verify';

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
  /** The verdict on the lines it checked: when it continued, its entries are only the ones after the prefix. */
  verdict: JournalVerdict;
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
    return known === undefined ? { continued: false, verdict: verifyJournal(''), prefix: undefined } : 'prefix-changed';
  }
  try {
    const { size } = await handle.stat();
    const start = known?.bytes ?? 0;
    if (size < start) return 'prefix-changed';
    if (size - start > maxNewBytes) return 'too-large';
    const hash = createHash('sha256');
    if (known !== undefined && (await hashRange(handle, hash, start)) !== known.sha256) return 'prefix-changed';
    const appended = await readRange(handle, start, size - start);
    const text = appended.toString('utf8');
    const checks = { verifySignature, ...(bootProofs === undefined ? {} : { bootProofs }) };
    const verdict = known === undefined ? verifyJournal(text, checks) : verifyAppended(known, text, checks);
    const last = verdict.entries.at(-1);
    if (last === undefined || verdict.head === undefined || verdict.journalKey === undefined)
      return { continued: known !== undefined, verdict, prefix: known };
    const verifiedBytes = endOfLine(appended, verdict.entries.length);
    hash.update(appended.subarray(0, verifiedBytes));
    return {
      continued: known !== undefined,
      verdict,
      prefix: {
        bytes: start + verifiedBytes,
        sha256: hash.digest('hex'),
        count: (known?.count ?? 0) + verdict.entries.length,
        last,
        head: verdict.head,
        journalKey: verdict.journalKey,
      },
    };
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === undefined || error instanceof QkError ? error : fileError(file, error);
  } finally {
    await handle.close();
  }
}

/** Hashes the file's first `length` bytes into `hash`, a chunk at a time; answers the digest so far. */
async function hashRange(handle: FileHandle, hash: Hash, length: number): Promise<string> {
  const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(length, 1)));
  for (let position = 0; position < length;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, length - position), position);
    if (bytesRead === 0) return '';
    hash.update(chunk.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.copy().digest('hex');
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

/** Where the `lines`-th line of `bytes` ends, its newline included. */
function endOfLine(bytes: Buffer, lines: number): number {
  let end = 0;
  for (let line = 0; line < lines; line++) end = bytes.indexOf(0x0a, end) + 1;
  return end;
}

function fileError(path: string, error: unknown): QkError {
  return new QkError('FILE_ERROR', `cannot read the journal file ${path}: ${(error as Error).message}`, { path });
}
