/** The error body every failed request answers with, and Turnkey's error detail inside it. */
import { z } from 'zod';
import { int32, res } from './primitives';

export const TURNKEY_ERROR_DETAIL_TYPE = 'type.googleapis.com/errors.v1.TurnkeyErrorDetail';

/** `protobufAny`: a typed detail message with arbitrary extra fields. */
export const protobufAny = res({ '@type': z.string().optional() });

/** The detail carrying Turnkey's stable `turnkeyErrorCode`, on which clients should branch. */
export const turnkeyErrorDetail = res({
  '@type': z.literal(TURNKEY_ERROR_DETAIL_TYPE),
  turnkeyErrorCode: z.string(),
});
export type TurnkeyErrorDetail = z.infer<typeof turnkeyErrorDetail>;

/** The `turnkeyErrorCode` of the TurnkeyErrorDetail among an error's details, if one is there. */
export function turnkeyErrorCodeOf(details: readonly Record<string, unknown>[] | undefined): string | undefined {
  const parsed = turnkeyErrorDetail.safeParse(details?.find((entry) => entry['@type'] === TURNKEY_ERROR_DETAIL_TYPE));
  return parsed.success ? parsed.data.turnkeyErrorCode : undefined;
}

/** `rpcStatus` as it appears inside a FAILED activity: every member optional. */
export const rpcStatus = res({
  code: int32.optional(),
  message: z.string().optional(),
  details: z.array(protobufAny).optional(),
});

/** The body of every non-2xx answer: `rpcStatus` with all members present (what the SDKs read). */
export const errorBodySchema = res({
  code: int32,
  message: z.string(),
  details: z.array(protobufAny),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
