import { activityOperations, allOperations, olderActivityVersions, type Operation } from '../../shared/api';
import type { Family } from '../activities/context';
import type { ActivityRoute, QueryRoute } from '../activities/pipeline';

export interface RouteTable {
  byPath: ReadonlyMap<string, QueryRoute | ActivityRoute>;
  /**
   * For executing an activity later (after consensus) from its stored type, and for the older versions
   * submitted at a current path: their routes carry the `version` they are.
   */
  activitiesByType: ReadonlyMap<string, ActivityRoute>;
}

/** Pairs each operation of the table with its family handler; two families serving one operation is a bug. */
export function buildRouteTable(families: readonly Family[]): RouteTable {
  const byPath = new Map<string, QueryRoute | ActivityRoute>();
  const activitiesByType = new Map<string, ActivityRoute>();
  const claim = (op: Operation, handler: unknown, family: Family): void => {
    if (byPath.has(op.path)) throw new Error(`two families provide a handler for ${op.name}`);
    if (op.kind === 'activity') {
      const route = { op, handler } as ActivityRoute;
      byPath.set(op.path, route);
      activitiesByType.set(op.activityType, route);
    } else if (op.kind === 'query') {
      const resources = family.queryResources?.[op.name as keyof NonNullable<Family['queryResources']>];
      byPath.set(op.path, { op, handler, ...(resources === undefined ? {} : { resources }) } as QueryRoute);
    }
  };
  for (const op of allOperations) {
    for (const family of families) {
      const handlers: Record<string, unknown> | undefined =
        op.kind === 'query' ? family.queries : op.kind === 'activity' ? family.activities : undefined;
      const handler = handlers?.[op.name];
      if (handler !== undefined) claim(op, handler, family);
    }
  }
  for (const version of olderActivityVersions) {
    const current = activitiesByType.get(activityOperations[version.operation].activityType);
    if (current !== undefined) activitiesByType.set(version.activityType, { ...current, version });
  }
  return { byPath, activitiesByType };
}
