/**
 * `POST /sandbox/v1/clock` (docs/sandbox.md#the-clock): reads the Sandbox's time, or moves it forward. Stamped like
 * any request, by a root quorum member of the root organization: moving time expires what others hold.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { decimalString, req } from '../../shared/api/primitives';
import { parseRequest } from '../../shared/api/validate';
import { QkError } from '../../shared/errors';
import type { StampFormat } from '../auth/authenticate';
import type { SandboxClock } from '../clock';
import type { Store } from '../store';
import { parseJsonBody, requestBytes } from './app';
import { requireRootOperator } from './root-operator';

export const CLOCK_PATH = '/sandbox/v1/clock';

const clockRequest = req({
  organizationId: z.string(),
  /** Milliseconds to move forward by. */
  advanceMs: decimalString.optional(),
  /** Milliseconds since the epoch to move forward to. */
  setMs: decimalString.optional(),
});

export function registerClockRoute(app: FastifyInstance, deps: { clock: SandboxClock; store: Store; stampFormats: readonly StampFormat[] }): void {
  app.post(CLOCK_PATH, async (request) => {
    const rawBody = requestBytes(request);
    const body = parseRequest(clockRequest, parseJsonBody(rawBody), 'clock request');
    const { clock } = deps;
    await requireRootOperator(request, rawBody, body.organizationId, { ...deps, now: clock.now }, 'read or move the Sandbox clock');
    if (body.advanceMs !== undefined && body.setMs !== undefined) {
      throw new QkError('REQUEST_INVALID', 'give advanceMs or setMs, not both', {
        issues: [{ path: 'setMs', message: 'give advanceMs or setMs, not both' }],
      });
    }
    if (body.advanceMs !== undefined) clock.move({ byMs: Number(body.advanceMs) });
    if (body.setMs !== undefined) clock.move({ toMs: Number(body.setMs) });
    return { nowMs: String(clock.now()), aheadMs: String(clock.aheadMs), controllable: clock.controllable };
  });
}
