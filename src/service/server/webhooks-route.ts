/**
 * The webhook routes outside the API (docs/sandbox.md#webhooks):
 * - `GET /public/v1/discovery/webhooks/jwks`: the key deliveries are signed with, unauthenticated, as Turnkey serves
 *   its own;
 * - `GET /sandbox/v1/webhooks/deliveries?organizationId=ID[&endpointId=ID]`: the recent deliveries to the
 *   organization's endpoints, each attempt with its answer. A GET has no body, so its `X-Stamp` signs the query string
 *   exactly as sent (the bytes after `?`); any user of the organization may read them.
 */
import type { FastifyInstance } from 'fastify';
import { QkError } from '../../shared/errors';
import { authenticate, type StampFormat } from '../auth/authenticate';
import type { Store } from '../store';
import type { DeliveryRecord, WebhookDeliveries } from '../webhooks/deliveries';
import { webhookJwks, type WebhookSigningKey } from '../webhooks/signing-key';

export const WEBHOOK_JWKS_PATH = '/public/v1/discovery/webhooks/jwks';
export const WEBHOOK_DELIVERIES_PATH = '/sandbox/v1/webhooks/deliveries';

interface WebhookRouteDeps {
  store: Store;
  stampFormats: readonly StampFormat[];
  now: () => number;
  signingKey: WebhookSigningKey;
  deliveries: WebhookDeliveries;
}

function deliveryView(delivery: DeliveryRecord) {
  return {
    eventId: delivery.eventId,
    endpointId: delivery.endpointId,
    organizationId: delivery.organizationId,
    eventType: delivery.eventType,
    ...(delivery.activityId === undefined ? {} : { activityId: delivery.activityId }),
    url: delivery.url,
    state: delivery.state,
    attempts: delivery.attempts.map((attempt) => ({
      atMs: String(attempt.atMs),
      ...(attempt.httpStatus === undefined ? {} : { httpStatus: attempt.httpStatus }),
      ...(attempt.error === undefined ? {} : { error: attempt.error }),
      ms: Math.round(attempt.ms),
    })),
    body: delivery.body,
  };
}

function queryParameter(query: URLSearchParams, name: string, required: boolean): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw new QkError('REQUEST_INVALID', `give ${name} once in the query string`);
  if (required && (values[0] ?? '') === '') {
    throw new QkError('REQUEST_INVALID', `${name}: required in the query string (${WEBHOOK_DELIVERIES_PATH}?${name}=…)`, {
      issues: [{ path: name, message: 'required' }],
    });
  }
  return values[0];
}

export function registerWebhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  app.get(WEBHOOK_JWKS_PATH, async () => webhookJwks(deps.signingKey));

  app.get(WEBHOOK_DELIVERIES_PATH, async (request) => {
    const queryString = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const query = new URLSearchParams(queryString);
    const organizationId = queryParameter(query, 'organizationId', true)!;
    const endpointId = queryParameter(query, 'endpointId', false);
    const { organization, fromParentOrganization } = await authenticate(
      request.headers,
      Buffer.from(queryString, 'utf8'),
      organizationId,
      deps.stampFormats,
      deps.store.read,
      deps.now(),
    );
    if (fromParentOrganization) {
      throw new QkError('REQUEST_NOT_AUTHORIZED', `only users of organization ${organization.id} may read the deliveries to its endpoints`);
    }
    const deliveries = deps.deliveries.deliveriesOf(organization.id).filter((d) => endpointId === undefined || d.endpointId === endpointId);
    return { deliveries: deliveries.map(deliveryView) };
  });
}
