/** Webhook endpoints: where the service posts signed notices of activities and sent transactions. */
import type { Describer, Describers } from '../draft';
import { code, plain, records, text } from '../pieces';

const createWebhookEndpoint: Describer = (fields, draft) => {
  draft.title = `Create the webhook endpoint “${text(fields, 'name') ?? ''}”`;
  draft.fact('Delivers to', code(text(fields, 'url') ?? ''));
  const eventTypes = records(fields, 'subscriptions').map((subscription) => code(text(subscription, 'eventType') ?? ''));
  draft.change('Events', [], eventTypes);
  draft.warn('Every delivery to this URL carries what the organization’s activities ask for and answer.');
};

const updateWebhookEndpoint: Describer = (fields, draft) => {
  draft.title = 'Update a webhook endpoint';
  draft.fact('Endpoint', code(text(fields, 'endpointId') ?? ''));
  const url = text(fields, 'url');
  if (url !== undefined) draft.change('Delivers to', undefined, [code(url)]);
  const name = text(fields, 'name');
  if (name !== undefined) draft.change('Name', undefined, [plain(name)]);
  const isActive = fields['isActive'];
  if (typeof isActive === 'boolean') draft.change('Delivering', undefined, [plain(isActive ? 'yes' : 'paused')]);
};

const deleteWebhookEndpoint: Describer = (fields, draft) => {
  draft.title = 'Delete a webhook endpoint';
  draft.deletions.push({ what: code(text(fields, 'endpointId') ?? ''), kind: 'webhook endpoint' });
};

export const webhookDescribers = {
  ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT: createWebhookEndpoint,
  ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT: updateWebhookEndpoint,
  ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT: deleteWebhookEndpoint,
} satisfies Describers;
