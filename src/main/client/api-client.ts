/**
 * The typed client of one profile's service: every method comes from the operation table in src/shared/api.
 * Requests are validated before they are stamped, responses after they arrive; error bodies become QkErrors
 * carrying the service's `turnkeyErrorCode`. Activities waiting for votes are a normal outcome, not an error, and
 * the client never posts a body the caller did not see: a retry re-posts the identical bytes (same fingerprint).
 * A stamp is valid for whoever receives it, so redirects are refused rather than followed (a 307 would re-send the
 * stamped body to another host, past the https rule and the profile confirmation), and every request times out.
 * An answer is read as it streams, up to a byte cap per operation (responseByteCapOf): a service cannot make main
 * buffer more than that, however much it sends.
 *
 * It is a plain transport: it knows its endpoint, its stamper and the hooks it is given, and imports nothing of the
 * app. Whoever builds it passes what main does around a stamp (ask a person first, record the answer) as functions.
 */
import {
  activityResponseSchema,
  activityResultOf,
  errorBodySchema,
  operationByPath,
  operations,
  parseRequest,
  parseResponse,
  requestSchemaOf,
  submitBodySchema,
  turnkeyErrorCodeOf,
  type Activity,
  type ActivityOperation,
  type OperationName,
  type ParamsOf,
  type QueryOperation,
  type ResultOf,
  type SubmitBody,
} from '../../shared/api';
import { activityTypeInWords } from '../../shared/describe';
import { GrpcCode, QkError, isErrorCode, type ErrorCode } from '../../shared/errors';
import type { RequestStamper, Stamp, StampCredential } from '../stamper/stamp';
import type { InFlightRequests } from './in-flight';
import { submissionOf, type Submission } from './submission';
import type { UnansweredSubmissions } from './unanswered';

type Operations = typeof operations;
export type ActivityName = { [N in OperationName]: Operations[N] extends { kind: 'activity' } ? N : never }[OperationName];
export type QueryName = { [N in OperationName]: Operations[N] extends { kind: 'query' } ? N : never }[OperationName];

/** A query's request; `organizationId` defaults to the profile's organization. */
export type QueryRequest<N extends QueryName> = Omit<ParamsOf<Operations[N]>, 'organizationId'> & { organizationId?: string };

/** A request exactly as posted: re-posting it is idempotent (same fingerprint, same activity). */
export interface PostedRequest {
  path: string;
  body: string;
}

/**
 * How a submitted activity stands. `completed` carries the typed result; `consensus-needed` waits for votes
 * (approve/reject by `activity.fingerprint`); `pending` is still being processed; `rejected` was voted down.
 * FAILED activities are thrown as QkErrors instead.
 */
export type ActivityOutcome<R> = (
  | { state: 'completed'; activity: Activity; result: R; request: PostedRequest }
  | { state: 'consensus-needed' | 'pending' | 'rejected'; activity: Activity; request: PostedRequest }
) & {
  /**
   * Set when this was a retry of a request sent earlier without an answer (see UnansweredSubmissions): the earlier
   * body was re-sent, so this is the activity that attempt created, if it arrived; when it was first sent.
   */
  resentFromMs?: number;
};

/** Where a client posts and whose credential stamps: a profile's service URL, organization and key. */
export interface Endpoint extends StampCredential {
  baseUrl: string;
  organizationId: string;
}

/**
 * A 2xx answer as it arrived, with the stamp its request carried; `shown` is what the stamp check answered for it
 * (main's confirmation: the reading a person confirmed), handed back untouched.
 */
export interface AnsweredRequest<Shown = unknown> {
  path: string;
  /** The `X-Stamp` value the request carried. */
  stampHeader: string;
  /** False when the stamp came with the request (an offline file stamped elsewhere or earlier). */
  stampedHere: boolean;
  answer: unknown;
  shown?: Shown;
}

export interface ApiClientOptions<Shown = unknown> {
  profile: Endpoint;
  stamper: RequestStamper;
  /** Milliseconds since the epoch for `timestampMs`; injected so tests and the sandbox can move time. */
  now?: () => number;
  fetch?: typeof fetch;
  /** How long one request may take, answer body included, before it fails with TIMEOUT. */
  timeoutMs?: number;
  /** Where pending requests are listed, so the person can see and cancel them. */
  inFlight?: Pick<InFlightRequests, 'begin'>;
  /** Where submissions sent without an answer are kept, so a retry re-sends the same body; none: every try is new. */
  unanswered?: UnansweredSubmissions;
  /** Told about every activity a submission (a proposal or a vote) answered, so the window can show it at once. */
  onActivity?: (activity: Activity, submitted: { vote: boolean }) => void;
  /**
   * Runs before this client stamps an activity submission (a vote included) and stops it by throwing: main's
   * confirmation for the page's channels. Bodies posted with a stamp made elsewhere are not stamped here.
   */
  checkStamp?: (submission: Submission) => Promise<Shown | undefined>;
  /**
   * Told of every 2xx answer before the caller sees it (the journal records the activities among them); when it
   * throws, so does the request.
   */
  afterAnswer?: (answered: AnsweredRequest<Shown>) => Promise<void>;
}

/**
 * The two hooks as the client keeps them. Method signatures, so that a client built with its own `Shown` serves
 * wherever an ApiClient is taken: it hands afterAnswer only what its own check answered.
 */
interface StampHooks<Shown> {
  checkStamp?(submission: Submission): Promise<Shown | undefined>;
  afterAnswer?(answered: AnsweredRequest<Shown>): Promise<void>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

const MIB = 1024 * 1024;
/**
 * The most main reads of an answer about one thing (a resource, an activity, a vote's outcome): four times the
 * largest request a service takes (1 MiB), which bounds an activity's intent.
 */
export const RESPONSE_BYTE_CAP = 4 * MIB;
/**
 * The most main reads of an answer that holds a collection: a page of up to 100 activities, or every user, policy,
 * private key or contract interface reference of an organization.
 */
export const COLLECTION_RESPONSE_BYTE_CAP = 16 * MIB;

/** The byte cap on the answer to `operationName` (docs/architecture.md#through-main). */
export function responseByteCapOf(operationName: string): number {
  return operationName.startsWith('list_') || operationName === 'get_organization' ? COLLECTION_RESPONSE_BYTE_CAP : RESPONSE_BYTE_CAP;
}

/** What an error without a known `turnkeyErrorCode` is called, by its gRPC status. */
const codeByGrpc: Record<number, ErrorCode> = {
  [GrpcCode.INVALID_ARGUMENT]: 'REQUEST_INVALID',
  [GrpcCode.NOT_FOUND]: 'NOT_FOUND',
  [GrpcCode.ALREADY_EXISTS]: 'ALREADY_EXISTS',
  [GrpcCode.PERMISSION_DENIED]: 'REQUEST_NOT_AUTHORIZED',
  [GrpcCode.RESOURCE_EXHAUSTED]: 'LIMIT_EXCEEDED',
  [GrpcCode.FAILED_PRECONDITION]: 'FAILED_PRECONDITION',
  [GrpcCode.ABORTED]: 'ACTIVITY_CONFLICT',
  [GrpcCode.UNAVAILABLE]: 'NETWORK_ERROR',
  [GrpcCode.UNAUTHENTICATED]: 'UNAUTHENTICATED',
};

export class ApiClient<Shown = unknown> {
  private readonly profile: Endpoint;
  private readonly stamper: RequestStamper;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly inFlight: ApiClientOptions['inFlight'];
  private readonly unanswered: ApiClientOptions['unanswered'];
  private readonly onActivity: ApiClientOptions['onActivity'];
  private readonly hooks: StampHooks<Shown>;

  constructor({
    profile,
    stamper,
    now = Date.now,
    fetch: fetchImpl = globalThis.fetch,
    timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
    inFlight,
    unanswered,
    onActivity,
    checkStamp,
    afterAnswer,
  }: ApiClientOptions<Shown>) {
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
      throw new QkError('CONFIG_INVALID', `the request timeout must be a positive number of milliseconds, got ${timeoutMs}`);
    }
    this.profile = profile;
    this.stamper = stamper;
    this.now = now;
    this.fetch = fetchImpl;
    this.timeoutMs = timeoutMs;
    this.inFlight = inFlight;
    this.unanswered = unanswered;
    this.onActivity = onActivity;
    this.hooks = { ...(checkStamp === undefined ? {} : { checkStamp }), ...(afterAnswer === undefined ? {} : { afterAnswer }) };
  }

  get organizationId(): string {
    return this.profile.organizationId;
  }

  /** Runs a read query and returns its validated response. */
  async query<N extends QueryName>(name: N, request: QueryRequest<N>): Promise<ResultOf<Operations[N]>> {
    const op = operations[name] as QueryOperation;
    const body = parseRequest(op.request, { organizationId: this.profile.organizationId, ...request }, `${name} request`);
    const answer = await this.post(op.path, JSON.stringify(body));
    return parseResponse(op.response, answer, `${name} response`) as ResultOf<Operations[N]>;
  }

  /**
   * Builds the submit envelope (timestamp from the injected clock), then stamps and posts it. If the same request was
   * sent before and never answered, its body is sent again unchanged instead, so the service answers with the activity
   * that attempt may have created rather than creating a second one.
   */
  async submit<N extends ActivityName>(
    name: N,
    parameters: ParamsOf<Operations[N]>,
    options: { organizationId?: string } = {},
  ): Promise<ActivityOutcome<ResultOf<Operations[N]>>> {
    const { unanswered } = this;
    const organizationId = options.organizationId ?? this.profile.organizationId;
    if (unanswered === undefined) return this.postActivity(name, this.envelope(name, parameters, organizationId));
    const identity = { baseUrl: this.profile.baseUrl, apiKeyName: this.profile.apiKeyName, organizationId, operation: name, parameters };
    const earlier = unanswered.find(identity);
    const attempt = earlier ?? { body: this.envelope(name, parameters, organizationId), sentAtMs: this.now() };
    try {
      const outcome = await this.postActivity(name, attempt.body);
      unanswered.forget(identity);
      return earlier === undefined ? outcome : { ...outcome, resentFromMs: earlier.sentAtMs };
    } catch (error) {
      if (outcomeUnknown(error)) unanswered.remember(identity, attempt);
      else unanswered.forget(identity);
      throw error;
    }
  }

  /** The JSON text of a submit body for `name`, validated, without stamping or posting it. */
  envelope<N extends ActivityName>(name: N, parameters: ParamsOf<Operations[N]>, organizationId?: string): string {
    const op = operations[name] as ActivityOperation;
    const envelope: SubmitBody<unknown> = {
      type: op.activityType,
      timestampMs: String(this.now()),
      organizationId: organizationId ?? this.profile.organizationId,
      parameters,
      // The service's proofs of the decision and of derived addresses: the journal keeps them with the entry.
      ...(op.acceptsAppProofs ? { generateAppProofs: true } : {}),
    };
    return JSON.stringify(parseRequest(submitBodySchema(op), envelope, `${name} request`));
  }

  /** Posts a submit body verbatim (e.g. re-posting a pending request, or one read from a stamped file). */
  async postActivity<N extends ActivityName>(name: N, body: string, stamp?: Stamp): Promise<ActivityOutcome<ResultOf<Operations[N]>>> {
    const op = operations[name] as ActivityOperation;
    const answer = await this.post(op.path, body, stamp);
    const { activity } = parseResponse(activityResponseSchema, answer, `${name} response`);
    this.reportActivity(op, activity);
    const request = { path: op.path, body };
    // approve/reject answer the activity they voted on, whose own outcome is what the caller wants to see.
    if (op.resultKey !== null && activity.type !== op.activityType) {
      throw new QkError('RESPONSE_INVALID', `${name} answered an activity of type ${activity.type}, not ${op.activityType}`, {
        activityId: activity.id,
      });
    }
    return outcomeOf(op, activity, request) as ActivityOutcome<ResultOf<Operations[N]>>;
  }

  /**
   * Posts any body to any path of the operation table, stamped with the profile's key unless a stamp is given.
   * Answers the parsed JSON response; for the CLI's `request` and for stamped files.
   */
  async postRaw(path: string, body: string, stamp?: Stamp): Promise<unknown> {
    const op = Object.values(operations).find((candidate) => candidate.path === path);
    if (op === undefined) {
      throw new QkError('OPERATION_NOT_FOUND', `${path} is not an operation this client knows; check the path (e.g. /public/v1/query/whoami)`, {
        path,
      });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new QkError('REQUEST_INVALID', `the body for ${path} is not valid JSON`, { path });
    }
    parseRequest(requestSchemaOf(op), parsed, `${op.name} request`);
    const answer = await this.post(path, body, stamp);
    if (op.kind === 'activity') {
      const submitted = activityResponseSchema.safeParse(answer);
      if (submitted.success) this.reportActivity(op, submitted.data.activity);
    }
    return answer;
  }

  private reportActivity(op: ActivityOperation, activity: Activity): void {
    // approve/reject are the operations without a result of their own: they answer the activity voted on.
    this.onActivity?.(activity, { vote: op.resultKey === null });
  }

  /** Stamps (unless `stamp` is given) and posts `body`; returns the parsed 2xx JSON or throws the mapped error. */
  private async post(path: string, body: string, stamp?: Stamp): Promise<unknown> {
    let shown: Shown | undefined;
    if (stamp === undefined && this.hooks.checkStamp !== undefined) {
      const submission = submissionOf(path, body, 'post');
      if (submission !== undefined) shown = await this.hooks.checkStamp(submission);
    }
    const { headerName, headerValue } = stamp ?? (await this.stamper.stamp(this.profile, body));
    const url = `${this.profile.baseUrl}${path}`;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const ticket = this.inFlight?.begin(url);
    // Aborted when an answer outgrows its cap, so the connection closes rather than draining the rest.
    const tooLarge = new AbortController();
    const signal = AbortSignal.any([timeout, tooLarge.signal, ...(ticket === undefined ? [] : [ticket.signal])]);
    const operation = operationByPath(path)?.name ?? path;
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [headerName]: headerValue },
        body,
        redirect: 'manual',
        signal,
      });
      refuseRedirect(url, response);
      text = await readCapped(response, { url, operation, capBytes: responseByteCapOf(operation), abort: () => tooLarge.abort() });
    } catch (error) {
      if (error instanceof QkError) throw error;
      if (timeout.aborted) {
        throw new QkError('TIMEOUT', `${url} did not answer within ${this.timeoutMs / 1000} s; check the service, then retry`, {
          url,
          timeoutMs: this.timeoutMs,
        });
      }
      if (ticket?.signal.aborted === true) throw new QkError('CANCELLED', `the request to ${url} was cancelled`, { url });
      throw new QkError('NETWORK_ERROR', `could not reach ${url}: ${describeCause(error)}; check the profile's URL and your connection`, {
        url,
      });
    } finally {
      ticket?.end();
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (response.ok) {
      if (json === undefined) throw new QkError('RESPONSE_INVALID', `${url} answered HTTP ${response.status} without a JSON body`, { url });
      await this.hooks.afterAnswer?.({
        path,
        stampHeader: headerValue,
        stampedHere: stamp === undefined,
        answer: json,
        ...(shown === undefined ? {} : { shown }),
      });
      return json;
    }
    throw errorFromResponse(url, response.status, json, text);
  }
}

/**
 * The answer's body as text, read as it arrives and never beyond `capBytes`: a Content-Length over the cap is refused
 * before reading, and a body that streams past it is cut off there. Either way the connection is closed and
 * RESPONSE_TOO_LARGE names the operation and the cap.
 */
async function readCapped(
  response: Response,
  { url, operation, capBytes, abort }: { url: string; operation: string; capBytes: number; abort: () => void },
): Promise<string> {
  const refuse = (read: string) => {
    abort();
    return new QkError(
      'RESPONSE_TOO_LARGE',
      `${url} answered ${operation} with ${read}, more than the ${capBytes / MIB} MiB QuorumKey reads of it; the connection was closed. Check the profile's URL and the service`,
      { url, operation, capBytes },
    );
  };
  const declared = Number(response.headers.get('content-length'));
  if (declared > capBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw refuse(`${declared} bytes`);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  // Kept as bytes, outside the JavaScript heap, and decoded once whole: an answer cut off is never turned into text.
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > capBytes) {
      chunks.length = 0;
      void reader.cancel().catch(() => undefined);
      throw refuse(`over ${capBytes} bytes`);
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(whole);
}

/**
 * Throws REDIRECT_REFUSED for a 3xx answer (or the opaque redirect a browser-style fetch reports instead), naming
 * where it pointed. The profile's URL is the only place a stamped request may go.
 */
function refuseRedirect(url: string, response: Response): void {
  const isRedirect = response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
  if (!isRedirect) return;
  const location = response.headers.get('location');
  let target = 'an undisclosed location';
  if (location !== null) {
    try {
      target = new URL(location, url).host;
    } catch {
      target = JSON.stringify(location.slice(0, 200));
    }
  }
  void response.body?.cancel().catch(() => undefined);
  throw new QkError(
    'REDIRECT_REFUSED',
    `${url} answered HTTP ${response.status} redirecting to ${target}; QuorumKey never follows redirects with a stamped request. Check the profile's URL (it must be the service itself, not a forwarder)`,
    { url, httpStatus: response.status, ...(location === null ? {} : { location: location.slice(0, 2048) }) },
  );
}

function outcomeOf(op: ActivityOperation, activity: Activity, request: PostedRequest): ActivityOutcome<unknown> {
  switch (activity.status) {
    case 'ACTIVITY_STATUS_COMPLETED':
      return { state: 'completed', activity, result: activityResultOf(op, activity), request };
    case 'ACTIVITY_STATUS_CONSENSUS_NEEDED':
      return { state: 'consensus-needed', activity, request };
    case 'ACTIVITY_STATUS_REJECTED':
      return { state: 'rejected', activity, request };
    case 'ACTIVITY_STATUS_FAILED':
      throw failedActivityError(activity);
    default:
      return { state: 'pending', activity, request };
  }
}

/**
 * Whether a submission that failed with `error` may still have created an activity nobody heard of: no answer (a
 * time-out, a cancel, no connection), a 5xx, or an answer whose body could not be read (or was too large to). A refusal (4xx) or a FAILED
 * activity is an answer.
 */
function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof QkError) || error.details?.activityId !== undefined) return false;
  if (error.code === 'TIMEOUT' || error.code === 'CANCELLED') return true;
  const httpStatus = error.details?.httpStatus;
  if (typeof httpStatus === 'number') return httpStatus >= 500;
  return error.code === 'NETWORK_ERROR' || error.code === 'RESPONSE_INVALID' || error.code === 'RESPONSE_TOO_LARGE';
}

/** A FAILED activity as a QkError with the service's code and message. */
export function failedActivityError(activity: Activity): QkError {
  const failure = activity.failure;
  const code = turnkeyCodeOf(failure?.details) ?? (failure?.code !== undefined ? codeByGrpc[failure.code] : undefined) ?? 'INTERNAL';
  // Led by what it is in words; the id comes last, for finding it in the history.
  return new QkError(code, `${activityTypeInWords(activity.type)} failed: ${failure?.message ?? 'no reason given'} (activity ${activity.id})`, {
    activityId: activity.id,
    fingerprint: activity.fingerprint,
  });
}

function turnkeyCodeOf(details: readonly Record<string, unknown>[] | undefined): ErrorCode | undefined {
  const code = turnkeyErrorCodeOf(details);
  return isErrorCode(code) ? code : undefined;
}

function errorFromResponse(url: string, httpStatus: number, json: unknown, text: string): QkError {
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) {
    const code: ErrorCode = httpStatus === 429 ? 'LIMIT_EXCEEDED' : httpStatus >= 500 ? 'NETWORK_ERROR' : 'RESPONSE_INVALID';
    return new QkError(code, `${url} answered HTTP ${httpStatus}: ${text.slice(0, 200) || '(empty body)'}`, { url, httpStatus });
  }
  const { code: grpcCode, message, details } = parsed.data;
  const turnkeyErrorCode = turnkeyErrorCodeOf(details);
  const code = turnkeyCodeOf(details) ?? codeByGrpc[grpcCode] ?? 'INTERNAL';
  return new QkError(code, message, {
    httpStatus,
    grpcCode,
    ...(typeof turnkeyErrorCode === 'string' ? { turnkeyErrorCode } : {}),
    details,
  });
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
