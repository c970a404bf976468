/**
 * Offline stamped-request files on disk (the format is src/shared/offline/stamped-request.ts): stamping a request
 * into a new file without touching the network, and posting one later exactly as stamped.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { checkStampableRequest, parseStampedRequest, stampedRequestText, type StampedRequest } from '../../shared/offline/stamped-request';
import { QkError } from '../../shared/errors';
import type { ApiClient } from '../client/api-client';
import type { Stamper } from './stamper';

export interface StampToFileOptions {
  stamper: Pick<Stamper, 'stamp'>;
  apiKeyName: string;
  path: string;
  /** The exact text to stamp; it is kept as is. */
  body: string;
  /** A new file (never overwritten), created with mode 0600. */
  file: string;
}

export async function stampToFile({ stamper, apiKeyName, path, body, file }: StampToFileOptions): Promise<StampedRequest> {
  checkStampableRequest({ path, body });
  const stamp = await stamper.stamp(apiKeyName, body);
  const request = { path, body, stamp };
  try {
    await writeFile(file, stampedRequestText(request), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    throw new QkError('FILE_ERROR', `cannot write ${file}: ${(error as Error).message}`, { path: file });
  }
  return { version: 1, ...request };
}

export async function readStampedFile(file: string): Promise<StampedRequest> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new QkError('FILE_ERROR', `cannot read ${file}: ${(error as Error).message}`, { path: file });
  }
  return parseStampedRequest(text, file);
}

/**
 * Posts the request in `file` exactly as stamped, whoever's key stamped it; answers the service's parsed response.
 * `check` sees the request first and may refuse it: then nothing is sent.
 */
export async function postStampedFile(
  client: Pick<ApiClient, 'postRaw'>,
  file: string,
  check: (request: StampedRequest) => void = () => undefined,
): Promise<{ request: StampedRequest; answer: unknown }> {
  const request = await readStampedFile(file);
  check(request);
  return { request, answer: await client.postRaw(request.path, request.body, request.stamp) };
}
