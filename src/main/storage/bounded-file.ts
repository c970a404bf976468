/**
 * Reading and writing the files a user names (bundles, key files, plaintexts, request bodies). A named file may be
 * anything — /dev/zero, a log of gigabytes — so reads stop one byte past what the format can need instead of
 * loading the whole file, and a write never replaces an existing file.
 */
import { open, writeFile, type FileHandle } from 'node:fs/promises';
import { QkError } from '../../shared/errors';
import { STATE_BUNDLE_LIMITS } from '../../shared/offline/state-bundle';

/** The largest file of each kind the CLI and the app read, each with room to spare for what the format holds. */
export const FILE_LIMITS = {
  /** An export bundle: a signed JSON envelope around an HPKE-sealed mnemonic or key (a few hundred bytes of hex). */
  exportBundle: { bytes: 64 * 1024, what: 'an export bundle' },
  /** An import bundle: a signed JSON envelope around the target's public key. */
  importBundle: { bytes: 64 * 1024, what: 'an import bundle' },
  /** A key file: a 32-byte private key as hex, optionally with its curve. */
  keyFile: { bytes: 4 * 1024, what: 'a private key file' },
  /** A plaintext to import: a mnemonic of at most 24 words (CJK wordlists included) or one private key. */
  plaintext: { bytes: 16 * 1024, what: 'a mnemonic or private key' },
  /** A request body: the service refuses bodies over 1 MiB. */
  requestBody: { bytes: 1024 * 1024, what: 'a request body' },
  /** A stamped request file: a body of up to 1 MiB kept as a JSON string (escapes can double it), and its stamp. */
  stampedRequest: { bytes: 2 * 1024 * 1024 + 64 * 1024, what: 'a stamped request' },
  /** A state bundle: the accounts, code and slots one simulation read, each with its proof. */
  stateBundle: { bytes: STATE_BUNDLE_LIMITS.bytes, what: 'a state bundle' },
  /** A journal or its export: a few kilobytes an entry, for years of entries. */
  journal: { bytes: 1024 * 1024 * 1024, what: 'a journal' },
  /** A journal checkpoint: a count, two hashes, a key and a signature. */
  checkpoint: { bytes: 4 * 1024, what: 'a journal checkpoint' },
} as const;

export type FileLimit = (typeof FILE_LIMITS)[keyof typeof FILE_LIMITS];

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The file's text, read through a handle at most `limit.bytes + 1` bytes far: a longer file (or an endless device) is
 * refused with FILE_ERROR naming the limit without reading the rest.
 */
export async function readBoundedText(path: string, limit: FileLimit): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new QkError('FILE_ERROR', `cannot read ${path}: ${(error as Error).message}`, { path });
  }
  try {
    const buffer = Buffer.alloc(limit.bytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > limit.bytes) {
      throw new QkError('FILE_ERROR', `${path} is larger than ${limit.bytes} bytes, more than ${limit.what} can need; is it the right file?`, {
        path,
        limitBytes: limit.bytes,
      });
    }
    try {
      return strictUtf8.decode(buffer.subarray(0, length));
    } catch {
      throw new QkError('FILE_ERROR', `${path} is not UTF-8 text; expected ${limit.what}`, { path });
    }
  } catch (error) {
    if (error instanceof QkError) throw error;
    throw new QkError('FILE_ERROR', `cannot read ${path}: ${(error as Error).message}`, { path });
  } finally {
    await handle.close();
  }
}

/** Creates `path` with `text` (mode 0600 where given); an existing file is ALREADY_EXISTS, never overwritten. */
export async function writeNewFile(path: string, text: string, options: { mode?: number } = {}): Promise<void> {
  try {
    await writeFile(path, text, { flag: 'wx', ...(options.mode === undefined ? {} : { mode: options.mode }) });
  } catch (error) {
    throw newFileError(path, error);
  }
}

/** Creates `path` for writing a piece at a time, as {@link writeNewFile} would create it. */
export async function openNewFile(path: string, options: { mode?: number } = {}): Promise<FileHandle> {
  try {
    return await open(path, 'wx', options.mode);
  } catch (error) {
    throw newFileError(path, error);
  }
}

function newFileError(path: string, error: unknown): QkError {
  if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
    return new QkError('ALREADY_EXISTS', `${path} already exists; name a new file, or remove this one first`, { path });
  }
  return new QkError('FILE_ERROR', `cannot write ${path}: ${(error as Error).message}`, { path });
}
