/**
 * The one operation table (docs/architecture.md#the-operation-table). The client's methods, the service's router and
 * the test coverage list are all derived from `allOperations`.
 */
import { z } from 'zod';
import { activityOperations } from './activities';
import type { ActivityVersion } from './activity-versions';
import { activityResponseSchema, supersededActivityTypes, type Activity, type ActivityResponse, type ActivityTypeInfo } from './activity-record';
import { bounded, decimalString, req } from './primitives';
import type { ActivityOperation, Operation } from './operation';
import { proxyOperations } from './proxy';
import { queryOperations } from './queries';
import { parseResponse } from './validate';

export * from './timestamps';
export * from './primitives';
export * from './enums';
export * from './params';
export * from './resources';
export * from './error-body';
export * from './activity-record';
export * from './activity-types';
export * from './activity-versions';
export * from './operation';
export * from './validate';
export { activityOperations, proxyOperations, queryOperations };

/** Every operation by name; each entry keeps its precise schema types. */
export const operations = { ...queryOperations, ...activityOperations, ...proxyOperations } as const;
export type OperationName = keyof typeof operations;

export const allOperations: readonly Operation[] = Object.values(operations);

const byPath = new Map<string, Operation>(allOperations.map((op) => [op.path, op]));

/** The operation served at `path` (e.g. `/public/v1/submit/create_policy`), if any. */
export function operationByPath(path: string): Operation | undefined {
  return byPath.get(path);
}

// ─── submit envelope ──────────────────────────────────────────────────────────────────────────

/** The body of `POST /public/v1/submit/<name>` (docs/service.md#envelope-and-record). */
export interface SubmitBody<Params> {
  type: string;
  timestampMs: string;
  organizationId: string;
  parameters: Params;
  generateAppProofs?: boolean;
}

const submitSchemas = new WeakMap<ActivityOperation | ActivityVersion, z.ZodType>();

function envelopeSchema(activityType: string, parameters: z.ZodType, acceptsAppProofs: boolean): z.ZodType {
  const envelope = {
    type: z.literal(activityType),
    timestampMs: decimalString,
    organizationId: bounded.id,
    parameters,
  };
  return acceptsAppProofs ? req({ ...envelope, generateAppProofs: z.boolean().optional() }) : req(envelope);
}

/**
 * The strict envelope schema of one activity: `type` must be its current ACTIVITY_TYPE_* value,
 * and `generateAppProofs` is only accepted where the swagger declares it.
 */
export function submitBodySchema<P extends z.ZodType>(
  op: ActivityOperation<P, z.ZodType>,
): z.ZodType<SubmitBody<z.output<P>>, SubmitBody<z.input<P>>> {
  // The envelope's field types follow from `op.parameters`; the cast only restates them.
  type Envelope = z.ZodType<SubmitBody<z.output<P>>, SubmitBody<z.input<P>>>;
  const cached = submitSchemas.get(op);
  if (cached) return cached as Envelope;
  const schema = envelopeSchema(op.activityType, op.parameters, op.acceptsAppProofs);
  submitSchemas.set(op, schema);
  return schema as Envelope;
}

/** The envelope of an older version submitted at `op`'s path: its own type value and parameters. */
export function olderVersionSubmitBodySchema(version: ActivityVersion, op: ActivityOperation): z.ZodType<SubmitBody<unknown>> {
  const cached = submitSchemas.get(version);
  if (cached) return cached as z.ZodType<SubmitBody<unknown>>;
  const schema = envelopeSchema(version.activityType, version.parameters, op.acceptsAppProofs);
  submitSchemas.set(version, schema);
  return schema as z.ZodType<SubmitBody<unknown>>;
}

// ─── activity types ───────────────────────────────────────────────────────────────────────────

/** intent/result member names of every declared ACTIVITY_TYPE_* and of the superseded versions. */
export const activityTypeInfo: Readonly<Record<string, ActivityTypeInfo>> = Object.freeze({
  ...supersededActivityTypes,
  ...Object.fromEntries(
    Object.values(activityOperations).map((op): [string, ActivityTypeInfo] => [
      op.activityType,
      { intentKey: op.intentKey, resultKey: op.resultKey },
    ]),
  ),
});

/**
 * The typed result member of a completed activity (`activity.result[op.resultKey]`);
 * `undefined` while the activity has no result yet; `null` for approve/reject.
 */
export function activityResultOf<R extends z.ZodType>(op: ActivityOperation<z.ZodType, R>, activity: Activity): z.output<R> | undefined {
  if (op.resultKey === null) return op.result.parse(null);
  if (!(op.resultKey in activity.result)) return undefined;
  return parseResponse(op.result, activity.result[op.resultKey], `activity.result.${op.resultKey}`);
}

// ─── type helpers ─────────────────────────────────────────────────────────────────────────────

type AnyActivity = { kind: 'activity'; parameters: z.ZodType; result: z.ZodType };
type AnyRequestResponse = { kind: 'query' | 'proxy'; request: z.ZodType; response: z.ZodType };

/** What a caller passes: an activity's `parameters`, or a query's / proxy call's whole request. */
export type ParamsOf<Op> = Op extends AnyActivity ? z.input<Op['parameters']> : Op extends AnyRequestResponse ? z.input<Op['request']> : never;

/** `ParamsOf` after validation (int64 counters normalised to strings): what a handler receives. */
export type ParsedParamsOf<Op> = Op extends AnyActivity
  ? z.output<Op['parameters']>
  : Op extends AnyRequestResponse
    ? z.output<Op['request']>
    : never;

/** What a caller gets back: an activity's result member, or a query's / proxy call's whole response. */
export type ResultOf<Op> = Op extends AnyActivity ? z.output<Op['result']> : Op extends AnyRequestResponse ? z.output<Op['response']> : never;

/** The full request body on the wire. */
export type RequestOf<Op> = Op extends AnyActivity
  ? SubmitBody<z.input<Op['parameters']>>
  : Op extends AnyRequestResponse
    ? z.input<Op['request']>
    : never;

/** The full response body on the wire: `{activity}` for every activity. */
export type ResponseOf<Op> = Op extends AnyActivity ? ActivityResponse : Op extends AnyRequestResponse ? z.output<Op['response']> : never;

/** The response schema of any operation: `activityResponseSchema` for activities. */
export function responseSchemaOf(op: Operation): z.ZodType {
  return op.kind === 'activity' ? activityResponseSchema : op.response;
}

/** The request body schema of any operation: the submit envelope for activities. */
export function requestSchemaOf(op: Operation): z.ZodType {
  return op.kind === 'activity' ? submitBodySchema(op) : op.request;
}
