/**
 * The HTTP face of the service (Fastify 5): raw body bytes kept for stamp verification and fingerprints,
 * JSON bodies whatever their declared Content-Type, a body limit, the error shape of docs/service.md#errors for
 * everything, routes from the operation table.
 */
import { isUtf8 } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { QkError } from '../../shared/errors';
import { runQuery, submitActivity, type ActivityRoute, type PipelineDeps, type QueryRoute } from '../activities/pipeline';
import type { RequestHeaders } from '../auth/authenticate';
import { wireError } from './errors';
import { checkHostHeader } from './host-check';
import type { RequestLogEntry } from './request-log';
import type { RouteTable } from './routes';

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const HEALTH_PATH = '/health';

/** Routes outside the public API (the auth proxy) register here with the same error handling. */
export type ExtraRoutes = (app: FastifyInstance) => void;

export interface ServerOptions {
  extraRoutes?: ExtraRoutes;
  /** Host names (without the port) a request's Host header may name; see host-check.ts. */
  allowedHostNames: readonly string[];
  /** Serve HTTPS with this certificate chain and key (PEM) instead of HTTP. */
  tls?: TlsOptions;
  /** Told of every request once it is answered (docs/sandbox.md#logs); nothing is noted without it. */
  requestLog?: (entry: RequestLogEntry) => void;
  /** Told of every route as it is added, the operations' and the extra ones alike (the coverage script lists them). */
  onRoute?: (route: HttpRoute) => void;
}

export interface HttpRoute {
  method: string;
  path: string;
}

/** What the handlers learnt of a request, for its log line. */
type RequestNotes = Partial<Pick<RequestLogEntry, 'operation' | 'organizationId' | 'activityId' | 'activityStatus' | 'errorCode' | 'reason'>>;

export interface TlsOptions {
  cert: string;
  key: string;
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new QkError('REQUEST_INVALID', 'bad request body: the body is empty; send a JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new QkError('REQUEST_INVALID', `bad request body: not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new QkError('REQUEST_INVALID', 'bad request body: the body must be a JSON object');
  }
  return parsed;
}

/** The body bytes the catch-all parser kept; empty when the request carried no body. */
export function requestBytes(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

/**
 * Fastify's own refusals of a request, as the service's errors. A Content-Type that is no media type at all (an empty
 * header, `curl -H 'content-type;'`) is refused before any parser runs; every other request error Fastify raises is a
 * 400 with its message, so nothing the client sent answers 500.
 */
function fromFastify(error: unknown, request: FastifyRequest): unknown {
  const { code, statusCode, message } = error as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new QkError('REQUEST_TOO_LARGE', `the request body exceeds ${BODY_LIMIT_BYTES} bytes`);
  if (code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
    return new QkError('REQUEST_INVALID', 'bad request body: its length does not match the Content-Length header');
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    const declared = JSON.stringify(String(request.headers['content-type'] ?? '').slice(0, 100));
    return new QkError(
      'REQUEST_INVALID',
      `bad request: the Content-Type header ${declared} is not a media type; send application/json, or no Content-Type`,
    );
  }
  if (typeof code === 'string' && code.startsWith('FST_') && typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return new QkError('REQUEST_INVALID', `bad request: ${String(message)}`);
  }
  return error;
}

export function buildServer(deps: PipelineDeps, routes: RouteTable, options: ServerOptions): FastifyInstance {
  const settings = { logger: false, bodyLimit: BODY_LIMIT_BYTES, return503OnClosing: true } as const;
  // One instance type for both: the routes read nothing that differs between HTTP and HTTPS requests.
  const app = (options.tls === undefined ? Fastify(settings) : Fastify({ ...settings, https: options.tls })) as FastifyInstance;

  const { onRoute } = options;
  if (onRoute !== undefined) {
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) onRoute({ method, path: route.url });
    });
  }

  // Closing waits for every connection to end, and one whose request was still being answered would otherwise stay
  // open for its keep-alive timeout (72 s) after its answer: the answers given while closing end their connection.
  let closing = false;
  // And the listener stays open until the requests in flight when closing began are answered: meanwhile new
  // connections are answered 503 (Fastify's return503OnClosing), so /health reads "shutting down", not "refused".
  // Those are counted, not kept in a set: a set that every response passed through kept answered requests reachable
  // to V8's young-generation collector, which copied and promoted them (docs/performance.md, "Eighth round").
  let inFlightBeforeClosing = 0;
  let lastAnswered: (() => void) | undefined;
  const answered = (): void => {
    inFlightBeforeClosing -= 1;
    if (inFlightBeforeClosing === 0) lastAnswered?.();
  };
  app.server.on('request', (_request, response: ServerResponse) => {
    if (closing) return;
    inFlightBeforeClosing += 1;
    response.once('close', answered);
  });
  app.addHook('preClose', async () => {
    closing = true;
    if (inFlightBeforeClosing > 0) await new Promise<void>((resolve) => (lastAnswered = resolve));
  });
  // Hooks on every request take Fastify's callback form: an async hook costs each request a promise and a microtask.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });

  // First of all, before the body is read: a request for another host is not ours to answer. The port is read once,
  // at the first request (the server listens by then, and on one port for its life): reading it is a system call.
  let listeningPort: number | undefined;
  const { requestLog } = options;
  // Fastify times a reply only with its own logger or an onResponse hook, neither of which the service has.
  const arrivals = new WeakMap<FastifyRequest, number>();
  app.addHook('onRequest', (request, _reply, done) => {
    if (requestLog !== undefined) arrivals.set(request, performance.now());
    listeningPort ??= (app.server.address() as AddressInfo).port;
    try {
      checkHostHeader(request.headers.host, options.allowedHostNames, listeningPort);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });

  // The hosted service reads every body as JSON: older SDKs (@turnkey/http 2.x, @turnkey/sdk-server up to 4.x)
  // send theirs as a string, so fetch declares it text/plain, or send no Content-Type at all.
  app.removeAllContentTypeParsers();
  // Stored bodies must hash to their fingerprints: a body that is not UTF-8 would be decoded lossily, so it is
  // refused here, before any route, stamp or proxy check reads it.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) =>
    isUtf8(body as Buffer)
      ? done(null, body)
      : done(new QkError('REQUEST_INVALID', 'bad request body: not valid UTF-8; JSON bodies must be UTF-8 encoded'), undefined),
  );

  const notes = new WeakMap<FastifyRequest, RequestNotes>();
  const note = (request: FastifyRequest, learnt: RequestNotes): void => {
    if (requestLog !== undefined) notes.set(request, { ...notes.get(request), ...learnt });
  };
  if (requestLog !== undefined) {
    // Written as the answer is sent, not once it has left: a client that has read its answer (a CI job copying the
    // log as soon as its tests fail) finds the request's line already there.
    app.addHook('onSend', (request, reply, payload, done) => {
      const ms = performance.now() - (arrivals.get(request) ?? performance.now());
      requestLog({ method: request.method, path: request.url, ...notes.get(request), status: reply.statusCode, ms });
      done(null, payload);
    });
  }
  const answerError = (request: FastifyRequest, reply: FastifyReply, error: unknown): void => {
    const { status, body } = wireError(error, deps.log);
    note(request, { errorCode: String(body.details[0]?.turnkeyErrorCode), reason: body.message });
    void reply.status(status).send(body);
  };

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    answerError(request, reply, error instanceof QkError ? error : fromFastify(error, request));
  });

  app.setNotFoundHandler((request, reply) => {
    answerError(request, reply, new QkError('OPERATION_NOT_FOUND', `no operation at ${request.method} ${request.url}; every operation is POST`));
  });

  // For orchestrators (docs/sandbox.md#one-command): the database answers; while closing, Fastify answers 503.
  app.get(HEALTH_PATH, async () => {
    deps.store.read.organizations.firstRoot();
    return { status: 'ok' };
  });

  for (const [path, route] of routes.byPath) {
    app.post(path, async (request) => {
      note(request, { operation: route.op.name });
      const rawBody = requestBytes(request);
      const body = parseJsonBody(rawBody);
      if (typeof (body as { organizationId?: unknown }).organizationId === 'string') {
        note(request, { organizationId: (body as { organizationId: string }).organizationId });
      }
      const incoming = { rawBody, body, headers: request.headers as RequestHeaders, remoteAddress: request.socket.remoteAddress };
      if (route.op.kind !== 'activity') return runQuery(deps, route as QueryRoute, incoming);
      const answer = await submitActivity(deps, route as ActivityRoute, incoming, routes.activitiesByType);
      note(request, { activityId: answer.activity.id, activityStatus: answer.activity.status });
      return answer;
    });
  }
  options.extraRoutes?.(app);
  return app;
}
