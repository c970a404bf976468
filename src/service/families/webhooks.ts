/**
 * Webhook endpoints (docs/sandbox.md#webhooks): create_webhook_endpoint, update_webhook_endpoint,
 * delete_webhook_endpoint and list_webhook_endpoints, and the events they receive. An activity's every new status is
 * published as ACTIVITY_UPDATES once its transaction has committed; the deliveries themselves are made off the request
 * (webhooks/deliveries.ts); a send it completes is followed for SEND_TRANSACTION_STATUS_UPDATES (webhooks/send-statuses.ts).
 */
import type { Activity } from '../../shared/api/activity-record';
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import type { Repositories } from '../store';
import type { WebhookEndpointRecord } from '../store/webhooks';
import { BILLING_SCOPED_EVENT_TYPES, WEBHOOK_EVENT_TYPES, type WebhookDeliveries } from '../webhooks/deliveries';
import type { SendStatusWebhooks } from '../webhooks/send-statuses';

/** The hosts an endpoint may name unless the Sandbox was started with `--webhook-allow-any-host`. */
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

export interface WebhooksOptions {
  /** Endpoints may name any host, not only this machine's loopback (`--webhook-allow-any-host`). */
  allowAnyHost: boolean;
  /** The EVM chains with a node (`--rpc`), whose balances the balance events follow; none refuses them. */
  balanceChains: readonly string[];
}

const BALANCE_EVENT_TYPES = ['BALANCE_CONFIRMED_UPDATES', 'BALANCE_FINALIZED_UPDATES'];

function invalid(field: string, message: string): QkError {
  return new QkError('REQUEST_INVALID', `${field}: ${message}`, { issues: [{ path: field, message }] });
}

/**
 * An endpoint URL the Sandbox will post to: http(s), no user info, and (by default) this machine's loopback only, so
 * a test's activities are not sent off the machine by mistake (**our choice**; Turnkey instead requires a public HTTPS
 * destination, which a Sandbox in CI rarely has).
 */
function checkUrl(url: string, field: string, options: WebhooksOptions): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(field, `${JSON.stringify(url)} is not an absolute URL; give one such as http://127.0.0.1:8081/webhooks`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid(field, `must be an http or https URL, not ${parsed.protocol}`);
  if (parsed.username !== '' || parsed.password !== '') throw invalid(field, 'must not carry a user name or password');
  if (!options.allowAnyHost && !LOOPBACK_HOSTS.includes(parsed.hostname)) {
    throw invalid(
      field,
      `${parsed.hostname} is not this machine: the Sandbox posts only to ${LOOPBACK_HOSTS.join(', ')} unless started with --webhook-allow-any-host`,
    );
  }
  return url;
}

type SubscriptionParams = { eventType: string; filtersJson?: string | undefined; isActive?: boolean | undefined };

function checkSubscriptions(
  subscriptions: readonly SubscriptionParams[] | undefined,
  options: WebhooksOptions,
): WebhookEndpointRecord['subscriptions'] {
  if (subscriptions === undefined || subscriptions.length === 0) {
    throw invalid('parameters.subscriptions', `subscribe to at least one event type (${WEBHOOK_EVENT_TYPES.join(', ')})`);
  }
  return subscriptions.map((subscription, index) => {
    const field = `parameters.subscriptions[${index}].eventType`;
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(subscription.eventType)) {
      throw invalid(field, `the Sandbox delivers ${WEBHOOK_EVENT_TYPES.join(', ')}, not ${JSON.stringify(subscription.eventType)}`);
    }
    if (BALANCE_EVENT_TYPES.includes(subscription.eventType) && options.balanceChains.length === 0) {
      throw invalid(
        field,
        `${subscription.eventType} follows balances on a chain's node, and the Sandbox has none: start it with --rpc eip155:<chain id>=URL`,
      );
    }
    if (subscriptions.findIndex((other) => other.eventType === subscription.eventType) !== index) {
      throw invalid(field, `${subscription.eventType} is listed twice`);
    }
    if (subscription.filtersJson !== undefined) {
      try {
        JSON.parse(subscription.filtersJson);
      } catch {
        throw invalid(`parameters.subscriptions[${index}].filtersJson`, 'must be JSON');
      }
    }
    return { eventType: subscription.eventType, filtersJson: subscription.filtersJson, isActive: subscription.isActive ?? true };
  });
}

/**
 * Transaction statuses and balance changes are billed to, and delivered to, the parent organization: a
 * sub-organization may not subscribe to them, as Turnkey refuses it.
 */
function checkBillingScope(store: Repositories, organizationId: string, subscriptions: WebhookEndpointRecord['subscriptions']): void {
  const parentId = store.organizations.get(organizationId)?.parentId;
  const billed = subscriptions.find((subscription) => (BILLING_SCOPED_EVENT_TYPES as readonly string[]).includes(subscription.eventType));
  if (parentId === undefined || billed === undefined) return;
  throw new QkError(
    'REQUEST_NOT_AUTHORIZED',
    `request not authorized: ${billed.eventType} endpoints belong to the organization that bills the sub-organization; create it in ${parentId}`,
    { parentOrganizationId: parentId },
  );
}

function checkName(name: string, field: string): string {
  if (name.trim() === '') throw invalid(field, 'must not be empty; name the endpoint so people can tell it apart');
  return name;
}

function requireEndpoint(store: Repositories, organizationId: string, endpointId: string): WebhookEndpointRecord {
  const endpoint = store.webhookEndpoints.get(organizationId, endpointId);
  if (endpoint === undefined) {
    throw new QkError('NOT_FOUND', `no webhook endpoint ${endpointId} in organization ${organizationId}`, { endpointId });
  }
  return endpoint;
}

/** `v1WebhookEndpointData`. */
function endpointView(endpoint: WebhookEndpointRecord) {
  return {
    endpointId: endpoint.id,
    organizationId: endpoint.organizationId,
    url: endpoint.url,
    name: endpoint.name,
    isActive: endpoint.isActive,
    subscriptions: endpoint.subscriptions.map((subscription) => ({
      eventType: subscription.eventType,
      ...(subscription.filtersJson === undefined ? {} : { filtersJson: subscription.filtersJson }),
      isActive: subscription.isActive,
    })),
  };
}

export function webhooksFamily(deliveries: WebhookDeliveries, sendStatuses: SendStatusWebhooks, options: WebhooksOptions): Family {
  return {
    queries: {
      list_webhook_endpoints(ctx) {
        return { webhookEndpoints: ctx.store.webhookEndpoints.listByOrganization(ctx.organizationId).map(endpointView) };
      },
    },
    activities: {
      create_webhook_endpoint: {
        validate(store, organizationId, params) {
          checkUrl(params.url, 'parameters.url', options);
          checkName(params.name, 'parameters.name');
          checkBillingScope(store, organizationId, checkSubscriptions(params.subscriptions, options));
        },
        execute(ctx, params) {
          const endpoint: WebhookEndpointRecord = {
            id: ctx.newId(),
            organizationId: ctx.organizationId,
            url: checkUrl(params.url, 'parameters.url', options),
            name: checkName(params.name, 'parameters.name'),
            isActive: true,
            subscriptions: checkSubscriptions(params.subscriptions, options),
            createdAt: ctx.now,
            updatedAt: ctx.now,
          };
          ctx.store.webhookEndpoints.insert(endpoint);
          return { endpointId: endpoint.id, webhookEndpoint: endpointView(endpoint) };
        },
      },
      update_webhook_endpoint: {
        validate(store, organizationId, params) {
          requireEndpoint(store, organizationId, params.endpointId);
          if (params.url !== undefined) checkUrl(params.url, 'parameters.url', options);
          if (params.name !== undefined) checkName(params.name, 'parameters.name');
        },
        execute(ctx, params) {
          const stored = requireEndpoint(ctx.store, ctx.organizationId, params.endpointId);
          const updated = {
            ...stored,
            url: params.url === undefined ? stored.url : checkUrl(params.url, 'parameters.url', options),
            name: params.name === undefined ? stored.name : checkName(params.name, 'parameters.name'),
            isActive: params.isActive ?? stored.isActive,
            updatedAt: ctx.now,
          };
          ctx.store.webhookEndpoints.update(updated, ctx.now);
          return { endpointId: updated.id, webhookEndpoint: endpointView(updated) };
        },
      },
      delete_webhook_endpoint: {
        validate: (store, organizationId, params) => void requireEndpoint(store, organizationId, params.endpointId),
        execute(ctx, params) {
          requireEndpoint(ctx.store, ctx.organizationId, params.endpointId);
          ctx.store.webhookEndpoints.delete(ctx.organizationId, params.endpointId);
          return { endpointId: params.endpointId };
        },
      },
    },
    hooks: {
      afterStatusChange(activity: Activity) {
        // The body is the activity as get_activity answers it, serialised once for every endpoint and retry, and not
        // at all where no endpoint could receive it (most organizations, told by a memo without reading a row).
        if (deliveries.mayDeliverFor(activity.organizationId)) {
          deliveries.publish({
            eventType: 'ACTIVITY_UPDATES',
            organizationId: activity.organizationId,
            activityId: activity.id,
            body: JSON.stringify(activity),
          });
        }
        sendStatuses.onActivity(activity);
      },
    },
  };
}
