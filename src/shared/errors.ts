/**
 * The one error type shared by the service, main, the IPC bridge and the renderer.
 * `code` is stable and machine-readable; `message` says what is wrong and, where it helps, what to do.
 */

/** gRPC status codes used on the wire (docs/service.md#status-codes). */
export const GrpcCode = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

const G = GrpcCode;

/**
 * Every error code QuorumKey raises, with the gRPC status the service answers it with.
 * Codes that Turnkey documents as `turnkeyErrorCode` keep Turnkey's spelling.
 */
export const errorCodes = {
  // request shape
  REQUEST_INVALID: G.INVALID_ARGUMENT,
  REQUEST_TOO_LARGE: G.INVALID_ARGUMENT,
  UNSUPPORTED_MEDIA_TYPE: G.INVALID_ARGUMENT,
  OPERATION_NOT_FOUND: G.NOT_FOUND,
  HOST_NOT_ALLOWED: G.INVALID_ARGUMENT,
  INVALID_TIME: G.INVALID_ARGUMENT,
  INVALID_ORGANIZATION_ID: G.INVALID_ARGUMENT,
  // authentication
  SIGNATURE_MISSING: G.UNAUTHENTICATED,
  SIGNATURE_INVALID: G.UNAUTHENTICATED,
  STAMP_MALFORMED: G.UNAUTHENTICATED,
  PUBLIC_KEY_NOT_FOUND: G.UNAUTHENTICATED,
  CREDENTIAL_NOT_FOUND: G.UNAUTHENTICATED,
  CREDENTIAL_CONFLICT: G.UNAUTHENTICATED,
  API_KEY_EXPIRED: G.UNAUTHENTICATED,
  SESSION_EXPIRED: G.UNAUTHENTICATED,
  UNAUTHENTICATED: G.UNAUTHENTICATED,
  // authorization and consensus
  REQUEST_NOT_AUTHORIZED: G.PERMISSION_DENIED,
  ORGANIZATION_MISMATCH: G.INVALID_ARGUMENT,
  ORGANIZATION_NOT_FOUND: G.NOT_FOUND,
  ACTIVITY_NOT_FOUND: G.NOT_FOUND,
  ACTIVITY_CONFLICT: G.ABORTED,
  ACTIVITY_NOT_PENDING: G.FAILED_PRECONDITION,
  ALREADY_VOTED: G.FAILED_PRECONDITION,
  AUTHENTICATOR_NOT_ACCEPTED: G.FAILED_PRECONDITION,
  // resources
  NOT_FOUND: G.NOT_FOUND,
  ALREADY_EXISTS: G.ALREADY_EXISTS,
  FAILED_PRECONDITION: G.FAILED_PRECONDITION,
  LIMIT_EXCEEDED: G.RESOURCE_EXHAUSTED,
  OAUTH_PROVIDER_ALREADY_EXISTS: G.ALREADY_EXISTS,
  WALLET_ACCOUNT_NOT_EXPORTED: G.FAILED_PRECONDITION,
  NOT_EXPORTED: G.FAILED_PRECONDITION,
  // policy language
  POLICY_PARSE_ERROR: G.INVALID_ARGUMENT,
  POLICY_EVALUATION_ERROR: G.INVALID_ARGUMENT,
  // crypto formats
  ENCODING_INVALID: G.INVALID_ARGUMENT,
  KEY_INVALID: G.INVALID_ARGUMENT,
  KEY_FORMAT_INVALID: G.INVALID_ARGUMENT,
  CURVE_UNSUPPORTED: G.INVALID_ARGUMENT,
  ADDRESS_FORMAT_INVALID: G.INVALID_ARGUMENT,
  PATH_INVALID: G.INVALID_ARGUMENT,
  MNEMONIC_INVALID: G.INVALID_ARGUMENT,
  BUNDLE_MALFORMED: G.INVALID_ARGUMENT,
  BUNDLE_VERSION_UNSUPPORTED: G.INVALID_ARGUMENT,
  BUNDLE_SIGNER_MISMATCH: G.INVALID_ARGUMENT,
  BUNDLE_SIGNATURE_INVALID: G.INVALID_ARGUMENT,
  BUNDLE_ORGANIZATION_MISMATCH: G.INVALID_ARGUMENT,
  BUNDLE_USER_MISMATCH: G.INVALID_ARGUMENT,
  BUNDLE_EXPIRED: G.FAILED_PRECONDITION,
  BUNDLE_ALREADY_USED: G.FAILED_PRECONDITION,
  DECRYPTION_FAILED: G.INVALID_ARGUMENT,
  /** A boot proof's attestation document is malformed, or its signatures, chain, manifest or key do not match. */
  ATTESTATION_INVALID: G.INVALID_ARGUMENT,
  TOKEN_INVALID: G.UNAUTHENTICATED,
  TOKEN_EXPIRED: G.UNAUTHENTICATED,
  INVALID_OIDC_TOKEN: G.UNAUTHENTICATED,
  OTP_INVALID: G.INVALID_ARGUMENT,
  OTP_ATTEMPTS_EXCEEDED: G.RESOURCE_EXHAUSTED,
  // desktop side
  KEYCHAIN_UNAVAILABLE: G.UNAVAILABLE,
  KEYCHAIN_LOCKED: G.UNAVAILABLE,
  KEY_NOT_FOUND: G.NOT_FOUND,
  KEY_EXISTS: G.ALREADY_EXISTS,
  PROFILE_NOT_FOUND: G.NOT_FOUND,
  NETWORK_ERROR: G.UNAVAILABLE,
  /** A service answered with a redirect; stamped requests are never re-sent elsewhere. */
  REDIRECT_REFUSED: G.FAILED_PRECONDITION,
  TIMEOUT: G.UNAVAILABLE,
  /** The person cancelled a request that was still waiting for its answer. */
  CANCELLED: G.ABORTED,
  SANDBOX_UNAVAILABLE: G.UNAVAILABLE,
  /** The port a service was asked to listen on is taken by another program. */
  PORT_IN_USE: G.UNAVAILABLE,
  /** The database a Sandbox was asked to open is open in another live Sandbox (its lock names the pid). */
  DATABASE_IN_USE: G.FAILED_PRECONDITION,
  RESPONSE_INVALID: G.INTERNAL,
  /** A service's answer was larger than main reads for its operation; the connection was closed. */
  RESPONSE_TOO_LARGE: G.RESOURCE_EXHAUSTED,
  IPC_SENDER_REJECTED: G.PERMISSION_DENIED,
  APP_LOCKED: G.FAILED_PRECONDITION,
  /** The unlock passphrase (or Touch ID) did not match or was not given. */
  PASSPHRASE_INVALID: G.UNAUTHENTICATED,
  /** A change that lowers the app's guard (a widening setting) needs the unlock passphrase: ask for it. */
  PASSPHRASE_REQUIRED: G.UNAUTHENTICATED,
  /** A PKCS#11 token refused its user PIN (wrong, locked, wrong length); the message says what the token said. */
  TOKEN_PIN_INVALID: G.UNAUTHENTICATED,
  /** A token key was needed and its PIN was not given (the prompt was cancelled, or there is none here). */
  TOKEN_PIN_REQUIRED: G.UNAUTHENTICATED,
  /** A passkey or security key was needed and gave no answer: the person cancelled, or its page timed out or closed. */
  PASSKEY_CANCELLED: G.UNAUTHENTICATED,
  /** Revealing a secret needs a recent unlock: ask for the passphrase again. */
  REAUTH_REQUIRED: G.UNAUTHENTICATED,
  USER_DECLINED: G.FAILED_PRECONDITION,
  FILE_ERROR: G.INVALID_ARGUMENT,
  CONFIG_INVALID: G.INVALID_ARGUMENT,
  // anything unexpected
  INTERNAL: G.INTERNAL,
} as const satisfies Record<string, GrpcCode>;

export type ErrorCode = keyof typeof errorCodes;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodes, value);
}

/** Plain-data form, as it crosses IPC and JSON boundaries. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  // Absent or undefined alike: structured clone across IPC keeps an undefined member.
  details?: Record<string, unknown> | undefined;
}

export class QkError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'QkError';
    this.code = code;
    this.details = details;
  }

  get grpcCode(): GrpcCode {
    return errorCodes[this.code];
  }

  toData(): ErrorData {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  static fromData(data: ErrorData): QkError {
    return new QkError(data.code, data.message, data.details);
  }
}

/** Narrows anything thrown to a QkError; unexpected errors become INTERNAL with their message kept. */
export function toQkError(error: unknown): QkError {
  if (error instanceof QkError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new QkError('INTERNAL', `unexpected error: ${message}`);
}
