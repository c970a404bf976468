import { randomUUID } from 'node:crypto';
import { GrpcCode, QkError, errorCodes } from '../../shared/errors';
import { TURNKEY_ERROR_DETAIL_TYPE, type TurnkeyErrorDetail } from '../../shared/api/error-body';

/** HTTP status per gRPC code (docs/service.md#status-codes; grpc-gateway defaults where the docs are silent). */
const httpStatusByGrpc: Record<GrpcCode, number> = {
  [GrpcCode.INVALID_ARGUMENT]: 400,
  [GrpcCode.NOT_FOUND]: 404,
  [GrpcCode.ALREADY_EXISTS]: 409,
  [GrpcCode.PERMISSION_DENIED]: 403,
  [GrpcCode.RESOURCE_EXHAUSTED]: 429,
  [GrpcCode.FAILED_PRECONDITION]: 400,
  [GrpcCode.ABORTED]: 409,
  [GrpcCode.INTERNAL]: 500,
  [GrpcCode.UNAVAILABLE]: 503,
  [GrpcCode.UNAUTHENTICATED]: 401,
};

/** `rpcStatus` as grpc-gateway writes it (docs/service.md#error-body). */
export interface RpcStatus {
  code: number;
  message: string;
  details: Record<string, unknown>[];
}

/**
 * `details.wireDetails` on a QkError carries extra protobuf-Any entries (e.g. PolicyEnginePermissionError);
 * they follow the TurnkeyErrorDetail that every error carries.
 */
export function rpcStatusOf(error: QkError): RpcStatus {
  const extra = error.details?.wireDetails;
  return {
    code: errorCodes[error.code],
    message: error.message,
    details: [
      { '@type': TURNKEY_ERROR_DETAIL_TYPE, turnkeyErrorCode: error.code } satisfies TurnkeyErrorDetail,
      ...(Array.isArray(extra) ? (extra as Record<string, unknown>[]) : []),
    ],
  };
}

export function httpStatusOf(error: QkError): number {
  return httpStatusByGrpc[errorCodes[error.code]];
}

/**
 * Maps anything thrown to the wire. QkErrors keep their code and message; anything else becomes
 * `internal server error (<id>)` with the id and stack logged — never the stack in the response.
 */
export function wireError(error: unknown, log: (line: string) => void): { status: number; body: RpcStatus } {
  if (error instanceof QkError && error.code !== 'INTERNAL') {
    return { status: httpStatusOf(error), body: rpcStatusOf(error) };
  }
  const errorId = randomUUID();
  log(`internal error ${errorId}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const internal = new QkError('INTERNAL', `internal server error (${errorId})`);
  return { status: 500, body: rpcStatusOf(internal) };
}
