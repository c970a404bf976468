/**
 * Offline stamped-request files on disk (the format is src/shared/offline/stamped-request.ts): stamping a request
 * into a new file without touching the network, and posting one later exactly as stamped.
 */
import { checkStampableRequest, parseStampedRequest, stampedRequestText, type StampedRequest } from '../../shared/offline/stamped-request';
import type { ApiClient } from '../client/api-client';
import { FILE_LIMITS, readBoundedText, writeNewFile } from '../storage/bounded-file';
import type { RequestStamper, StampCredential } from './stamp';

export interface StampToFileOptions {
  stamper: RequestStamper;
  credential: StampCredential;
  path: string;
  /** The exact text to stamp; it is kept as is. */
  body: string;
  /** A new file (an existing one is ALREADY_EXISTS, never overwritten), created with mode 0600. */
  file: string;
}

export async function stampToFile({ stamper, credential, path, body, file }: StampToFileOptions): Promise<StampedRequest> {
  checkStampableRequest({ path, body });
  const stamp = await stamper.stamp(credential, body);
  const request = { path, body, stamp };
  await writeNewFile(file, stampedRequestText(request), { mode: 0o600 });
  return { version: 1, ...request };
}

export async function readStampedFile(file: string): Promise<StampedRequest> {
  return parseStampedRequest(await readBoundedText(file, FILE_LIMITS.stampedRequest), file);
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
