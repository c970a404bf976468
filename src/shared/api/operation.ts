/**
 * The shape of the one operation table (docs/architecture.md#the-operation-table). Every operation is declared once as
 * data; the client's methods, the service's router and the test coverage list are derived from it.
 */
import { z } from 'zod';

export const QUERY_PREFIX = '/public/v1/query/';
export const SUBMIT_PREFIX = '/public/v1/submit/';
export const PROXY_PREFIX = '/v1/';

/** A read query: `POST /public/v1/query/<name>`, stamped, answers an operation-specific object. */
export interface QueryOperation<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType, N extends string = string> {
  readonly kind: 'query';
  readonly name: N;
  readonly path: string;
  readonly request: Req;
  readonly response: Res;
}

/**
 * A state-changing activity: `POST /public/v1/submit/<name>`, stamped, answers `{activity}`.
 * `parameters` is the request's `parameters` member and, unchanged, the intent; `result` is the
 * result member (`null` for approve/reject, which answer the target activity).
 */
export interface ActivityOperation<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType, N extends string = string> {
  readonly kind: 'activity';
  readonly name: N;
  readonly path: string;
  readonly activityType: string;
  readonly intentKey: string;
  readonly resultKey: string | null;
  readonly parameters: P;
  readonly result: R;
  /** Whether the swagger declares `generateAppProofs` on this request. */
  readonly acceptsAppProofs: boolean;
}

/** An auth-proxy call: `POST /v1/<name>` with `X-Auth-Proxy-Config-Id`, unstamped. */
export interface ProxyOperation<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType, N extends string = string> {
  readonly kind: 'proxy';
  readonly name: N;
  readonly path: string;
  readonly request: Req;
  readonly response: Res;
}

export type Operation = QueryOperation | ActivityOperation | ProxyOperation;

export function query<Req extends z.ZodType, Res extends z.ZodType, const N extends string>(
  name: N,
  request: Req,
  response: Res,
): QueryOperation<Req, Res, N> {
  return { kind: 'query', name, path: QUERY_PREFIX + name, request, response };
}

export function activity<P extends z.ZodType, R extends z.ZodType, const N extends string>(spec: {
  name: N;
  activityType: string;
  intentKey: string;
  resultKey: string | null;
  parameters: P;
  result: R;
  acceptsAppProofs?: boolean;
}): ActivityOperation<P, R, N> {
  return {
    kind: 'activity',
    path: SUBMIT_PREFIX + spec.name,
    acceptsAppProofs: spec.acceptsAppProofs ?? true,
    ...spec,
  };
}

export function proxy<Req extends z.ZodType, Res extends z.ZodType, const N extends string>(
  name: N,
  request: Req,
  response: Res,
): ProxyOperation<Req, Res, N> {
  return { kind: 'proxy', name, path: PROXY_PREFIX + name, request, response };
}
