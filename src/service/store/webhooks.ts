/**
 * Webhook endpoints (schema: the webhook endpoints migration): where an organization's events are posted, and the
 * event types each one receives. Deliveries are not stored: the service keeps the recent ones in memory.
 */
import { type Connection, type Row, integer, text } from './connection';

export const WEBHOOK_ENDPOINTS_SQL = `
  CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    name TEXT NOT NULL,
    is_active INTEGER NOT NULL,
    -- JSON array of {eventType, filtersJson?, isActive}, as the request gave them.
    subscriptions TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_endpoints_organization ON webhook_endpoints(organization_id);
`;

export interface WebhookSubscriptionRecord {
  eventType: string;
  filtersJson: string | undefined;
  isActive: boolean;
}

export interface WebhookEndpointRecord {
  id: string;
  organizationId: string;
  url: string;
  name: string;
  isActive: boolean;
  subscriptions: WebhookSubscriptionRecord[];
  createdAt: number;
  updatedAt: number;
}

function toEndpoint(row: Row): WebhookEndpointRecord {
  const subscriptions = JSON.parse(text(row, 'subscriptions')) as { eventType: string; filtersJson?: string; isActive: boolean }[];
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    url: text(row, 'url'),
    name: text(row, 'name'),
    isActive: integer(row, 'is_active') === 1,
    subscriptions: subscriptions.map((subscription) => ({
      eventType: subscription.eventType,
      filtersJson: subscription.filtersJson,
      isActive: subscription.isActive,
    })),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class WebhookEndpointRepository {
  constructor(private readonly connection: Connection) {}

  insert(endpoint: WebhookEndpointRecord): void {
    this.connection.run(
      `INSERT INTO webhook_endpoints (id, organization_id, url, name, is_active, subscriptions, created_at, updated_at)
       VALUES (:id, :organizationId, :url, :name, :isActive, :subscriptions, :createdAt, :updatedAt)`,
      {
        id: endpoint.id,
        organizationId: endpoint.organizationId,
        url: endpoint.url,
        name: endpoint.name,
        isActive: endpoint.isActive ? 1 : 0,
        subscriptions: JSON.stringify(endpoint.subscriptions),
        createdAt: endpoint.createdAt,
        updatedAt: endpoint.updatedAt,
      },
    );
  }

  get(organizationId: string, id: string): WebhookEndpointRecord | undefined {
    const row = this.connection.get('SELECT * FROM webhook_endpoints WHERE organization_id = :organizationId AND id = :id', { organizationId, id });
    return row === undefined ? undefined : toEndpoint(row);
  }

  /** The organization's endpoints, oldest first. */
  listByOrganization(organizationId: string): WebhookEndpointRecord[] {
    return this.connection
      .all('SELECT * FROM webhook_endpoints WHERE organization_id = :organizationId ORDER BY created_at, rowid', { organizationId })
      .map(toEndpoint);
  }

  update(endpoint: Pick<WebhookEndpointRecord, 'id' | 'organizationId' | 'url' | 'name' | 'isActive'>, now: number): void {
    this.connection.run(
      `UPDATE webhook_endpoints SET url = :url, name = :name, is_active = :isActive, updated_at = :now
       WHERE organization_id = :organizationId AND id = :id`,
      { id: endpoint.id, organizationId: endpoint.organizationId, url: endpoint.url, name: endpoint.name, isActive: endpoint.isActive ? 1 : 0, now },
    );
  }

  /** Whether the organization owns any endpoint, active or not. */
  hasAny(organizationId: string): boolean {
    return (
      this.connection.get('SELECT 1 AS found FROM webhook_endpoints WHERE organization_id = :organizationId LIMIT 1', { organizationId }) !==
      undefined
    );
  }

  /** Whether an active endpoint of any organization has an active subscription to `eventType`. */
  anySubscribedTo(eventType: string): boolean {
    const row = this.connection.get(
      `SELECT 1 AS found FROM webhook_endpoints, json_each(webhook_endpoints.subscriptions) AS subscription
       WHERE is_active = 1 AND json_extract(subscription.value, '$.eventType') = :eventType
         AND json_extract(subscription.value, '$.isActive') = 1
       LIMIT 1`,
      { eventType },
    );
    return row !== undefined;
  }

  /** False when there was no such endpoint. */
  delete(organizationId: string, id: string): boolean {
    return this.connection.run('DELETE FROM webhook_endpoints WHERE organization_id = :organizationId AND id = :id', { organizationId, id }) > 0;
  }
}
