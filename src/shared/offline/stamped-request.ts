/**
 * The offline stamped-request file: a request stamped on one machine (possibly without network) and posted later from
 * another, byte for byte. The CLI's `request --no-post` and the app's offline vote both write it, and both post it.
 * It holds nothing secret: the stamp authenticates exactly this body, and only until the body's timestamp expires.
 */
import { z } from 'zod';
import { STAMP_HEADER_NAME } from '../crypto/stamp';
import { WEBAUTHN_STAMP_HEADER_NAME } from '../crypto/webauthn';
import { QkError } from '../errors';
import { describeIssues } from '../ipc/contract';
import { parseQuorumKeyFile } from './file-format';

export const STAMPED_REQUEST_VERSION = 1;

const requestFields = {
  /** The API path to post to, e.g. /public/v1/submit/approve_activity. */
  path: z.string().regex(/^\/[A-Za-z0-9/_]+$/, { error: 'expected an API path such as /public/v1/submit/approve_activity' }),
  /** The exact text that was stamped. */
  body: z.string().refine(isJsonObject, { error: 'expected a JSON object, as text' }),
};

export const stampedRequestSchema = z.strictObject({
  version: z.literal(STAMPED_REQUEST_VERSION),
  ...requestFields,
  /** An API key's stamp, or a passkey's for a vote stamped by a profile that votes with one. */
  stamp: z.strictObject({ headerName: z.enum([STAMP_HEADER_NAME, WEBAUTHN_STAMP_HEADER_NAME]), headerValue: z.string().min(1) }),
});
export type StampedRequest = z.infer<typeof stampedRequestSchema>;

/** Refuses, before anything is signed, a request the file format could not hold. */
export function checkStampableRequest(request: { path: string; body: string }): void {
  const parsed = z.strictObject(requestFields).safeParse(request);
  if (!parsed.success) {
    throw new QkError('REQUEST_INVALID', `cannot stamp this request: ${describeIssues(parsed.error)}`, {
      field: String(parsed.error.issues[0]?.path[0] ?? ''),
    });
  }
}

/** The file's text for `request`, checked against the format first. */
export function stampedRequestText(request: Omit<StampedRequest, 'version'>): string {
  const parsed = stampedRequestSchema.safeParse({ version: STAMPED_REQUEST_VERSION, ...request });
  if (!parsed.success) {
    throw new QkError('REQUEST_INVALID', `cannot write a stamped request: ${describeIssues(parsed.error)}`);
  }
  return `${JSON.stringify(parsed.data, null, 2)}\n`;
}

/** The request in a stamped-request file's text; `source` names the file in the error. */
export function parseStampedRequest(text: string, source: string): StampedRequest {
  return parseQuorumKeyFile(text, source, { name: 'stamped request', version: STAMPED_REQUEST_VERSION, schema: stampedRequestSchema });
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
