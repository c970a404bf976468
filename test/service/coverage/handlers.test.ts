/**
 * Every operation of the table has a handler (docs/architecture.md#the-operation-table: an operation without a handler
 * is a failing test, not a silent 404). Checked twice: on the route table the running service builds (recorded as
 * startService calls buildRouteTable), and over HTTP, where a valid but unstamped POST to each path must reach
 * authentication rather than the 404 fallback.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { allOperations, olderActivityVersions, requestSchemaOf, type Operation } from '../../../src/shared/api';
import type { Family } from '../../../src/service/activities/context';
import { buildRouteTable, type RouteTable } from '../../../src/service/server/routes';
import { type Reply, startTestService, type TestService } from '../../support/service';

/** What startService passed to buildRouteTable and got back. */
const built = vi.hoisted(() => [] as { families: readonly Family[]; table: RouteTable }[]);
vi.mock('../../../src/service/server/routes', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/service/server/routes')>();
  return {
    ...original,
    buildRouteTable(families: readonly Family[]): RouteTable {
      const table = original.buildRouteTable(families);
      built.push({ families, table });
      return table;
    },
  };
});

let t: TestService;
let served: { families: readonly Family[]; table: RouteTable };
beforeAll(async () => {
  t = await startTestService();
  expect(built).toHaveLength(1);
  served = built[0]!;
});
afterAll(() => t.close());

/** Stamped operations (queries and activities) the route table does not serve. */
function unroutedOperations(table: RouteTable): string[] {
  return allOperations.filter((op) => op.kind !== 'proxy' && !table.byPath.has(op.path)).map((op) => op.name);
}

const errorCodeOf = (reply: Reply): unknown => reply.body?.details?.[0]?.turnkeyErrorCode;

type JsonSchema = z.core.JSONSchema._JSONSchema;

/**
 * The smallest value a JSON Schema accepts: required members only, first enum value or union member, empty
 * arrays. The table's string patterns are all decimal digits, which "1" matches; probeBody re-parses the result.
 */
function minimalInstance(node: JsonSchema): unknown {
  if (typeof node === 'boolean') return {};
  if (node.const !== undefined) return node.const;
  if (node.enum !== undefined) return node.enum[0];
  const choices = node.anyOf ?? node.oneOf;
  if (choices !== undefined) return minimalInstance(choices[0]!);
  switch (Array.isArray(node.type) ? node.type[0] : node.type) {
    case 'object':
      return Object.fromEntries((node.required ?? []).map((name) => [name, minimalInstance(node.properties?.[name] ?? true)]));
    case 'array':
      return Array.from({ length: node.minItems ?? 0 }, () => minimalInstance(Array.isArray(node.items) ? node.items[0]! : (node.items ?? true)));
    case 'string':
      return node.pattern === undefined ? 'x'.repeat(Math.max(node.minLength ?? 1, 1)) : '1';
    case 'integer':
    case 'number':
      return node.minimum ?? 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return {};
  }
}

describe('route table of the running service', () => {
  it('serves every query and activity of the operation table', () => {
    expect(unroutedOperations(served.table)).toEqual([]);
    const stamped = allOperations.filter((op) => op.kind !== 'proxy');
    expect(served.table.byPath.size).toBe(stamped.length);
    for (const op of stamped) expect(served.table.byPath.get(op.path)?.op).toBe(op);
  });

  it('maps every activity type and older version to its route, for executing approved activities later', () => {
    const activities = allOperations.filter((op) => op.kind === 'activity');
    const types = [...activities.map((op) => op.activityType), ...olderActivityVersions.map((version) => version.activityType)];
    expect([...served.table.activitiesByType.keys()].sort()).toEqual(types.sort());
    for (const version of olderActivityVersions) {
      const route = served.table.activitiesByType.get(version.activityType);
      expect([route?.op.name, route?.version]).toEqual([version.operation, version]);
    }
  });

  it('reports the operations of a family that is left out', () => {
    const [first, ...rest] = served.families;
    const dropped = [...Object.keys(first!.queries ?? {}), ...Object.keys(first!.activities ?? {})];
    expect(dropped.length).toBeGreaterThan(0);
    expect(unroutedOperations(buildRouteTable(rest)).sort()).toEqual(dropped.sort());
  });

  it('refuses two families serving one operation', () => {
    expect(() => buildRouteTable([...served.families, served.families[0]!])).toThrow(/two families provide a handler/);
  });
});

describe('running service over HTTP', () => {
  /** A valid request for `op` in the test organization, so only the missing stamp or config header can refuse it. */
  function probeBody(op: Operation): Record<string, unknown> {
    const body = minimalInstance(z.toJSONSchema(requestSchemaOf(op), { io: 'input', unrepresentable: 'any', reused: 'inline' }));
    if (typeof body !== 'object' || body === null) throw new Error(`${op.name}: the request schema is not an object`);
    const request: Record<string, unknown> = { ...body };
    if ('organizationId' in request) request.organizationId = t.info.organizationId;
    if ('timestampMs' in request) request.timestampMs = String(t.clock.now());
    requestSchemaOf(op).parse(request);
    return request;
  }

  const stamped = allOperations.filter((op) => op.kind !== 'proxy');
  const proxied = allOperations.filter((op) => op.kind === 'proxy');

  it.each(stamped.map((op) => [op.path, op] as const))('%s answers an unstamped POST with SIGNATURE_MISSING', async (_path, op) => {
    const reply = await t.post(op.path, probeBody(op), { unstamped: true });
    expect(reply.status, JSON.stringify(reply.body)).toBe(401);
    expect(errorCodeOf(reply)).toBe('SIGNATURE_MISSING');
  });

  it.each(proxied.map((op) => [op.path, op] as const))('%s answers a POST without X-Auth-Proxy-Config-Id with UNAUTHENTICATED', async (_path, op) => {
    const reply = await t.post(op.path, probeBody(op), { unstamped: true });
    expect(reply.status, JSON.stringify(reply.body)).toBe(401);
    expect(errorCodeOf(reply)).toBe('UNAUTHENTICATED');
  });

  it('answers a path outside the table with OPERATION_NOT_FOUND, which the probes above would have caught', async () => {
    for (const path of ['/public/v1/query/get_nothing', '/public/v1/submit/create_nothing', '/v1/otp_nothing']) {
      const reply = await t.post(path, { organizationId: t.info.organizationId }, { unstamped: true });
      expect(reply.status).toBe(404);
      expect(errorCodeOf(reply)).toBe('OPERATION_NOT_FOUND');
    }
  });
});
