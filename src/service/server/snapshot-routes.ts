/**
 * `POST /sandbox/v1/snapshot` and `POST /sandbox/v1/restore` (docs/sandbox.md#snapshots): take the Sandbox's state
 * and put it back between tests. Protected as the clock is (root-operator.ts): a restore rewinds every user's data.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { req } from '../../shared/api/primitives';
import { parseRequest } from '../../shared/api/validate';
import type { StampFormat } from '../auth/authenticate';
import type { SandboxClock } from '../clock';
import type { SandboxSnapshots } from '../snapshots';
import type { Store } from '../store';
import { parseJsonBody, requestBytes } from './app';
import { requireRootOperator } from './root-operator';

export const SNAPSHOT_PATH = '/sandbox/v1/snapshot';
export const RESTORE_PATH = '/sandbox/v1/restore';

const snapshotRequest = req({ organizationId: z.string() });
const restoreRequest = req({ organizationId: z.string(), snapshotId: z.string().min(1).max(64) });

export function registerSnapshotRoutes(
  app: FastifyInstance,
  deps: { snapshots: SandboxSnapshots; clock: SandboxClock; store: Store; stampFormats: readonly StampFormat[] },
): void {
  const operator = { ...deps, now: deps.clock.now };
  app.post(SNAPSHOT_PATH, async (request) => {
    const rawBody = requestBytes(request);
    const body = parseRequest(snapshotRequest, parseJsonBody(rawBody), 'snapshot request');
    await requireRootOperator(request, rawBody, body.organizationId, operator, 'take a snapshot of the Sandbox');
    return { snapshotId: await deps.snapshots.take() };
  });
  app.post(RESTORE_PATH, async (request) => {
    const rawBody = requestBytes(request);
    const body = parseRequest(restoreRequest, parseJsonBody(rawBody), 'restore request');
    await requireRootOperator(request, rawBody, body.organizationId, operator, 'restore a snapshot of the Sandbox');
    await deps.snapshots.restore(body.snapshotId);
    return { snapshotId: body.snapshotId, nowMs: String(deps.clock.now()) };
  });
}
