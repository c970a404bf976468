/**
 * The webhook delivery queue's bounds (src/service/webhooks/deliveries.ts), on a real store with small limits: attempts
 * per delivery, which answers are tried again, the queue's size, and a stop that leaves nothing running; and the memo
 * that tells an organization no endpoint could receive its events without reading a row.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../../src/service/store';
import { WebhookDeliveries, type DeliveryLimits, type DeliveryRecord } from '../../src/service/webhooks/deliveries';
import { ensureWebhookSigningKey } from '../../src/service/webhooks/signing-key';

const ORGANIZATION = '0b0b0b0b-0000-4000-8000-000000000001';
const WAIT_MS = 20_000;

const opened: { store: Store; deliveries: WebhookDeliveries; server: Server; held: ServerResponse[] }[] = [];
afterEach(async () => {
  for (const { store, deliveries, server, held } of opened.splice(0)) {
    await deliveries.close();
    for (const response of held) response.end();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  }
});

/** A store with one organization whose endpoint posts to a receiver answering `status` (or never, for 0). */
async function setUp(status: number, limits: Partial<DeliveryLimits>) {
  const held: ServerResponse[] = [];
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    request.resume();
    if (status === 0) held.push(response);
    else response.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const store = Store.open(':memory:');
  await store.transaction((tx) => {
    tx.organizations.insert({ id: ORGANIZATION, name: 'deliveries', rootQuorumThreshold: 1, now: 0 });
    tx.webhookEndpoints.insert({
      id: 'endpoint-1',
      organizationId: ORGANIZATION,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      name: 'receiver',
      isActive: true,
      subscriptions: [{ eventType: 'ACTIVITY_UPDATES', filtersJson: undefined, isActive: true }],
      createdAt: 0,
      updatedAt: 0,
    });
  });
  const logs: string[] = [];
  const deliveries = new WebhookDeliveries({
    store: store.read,
    signingKey: await ensureWebhookSigningKey(store, 0),
    wall: Date.now,
    log: (line) => logs.push(line),
    limits,
  });
  opened.push({ store, deliveries, server, held });
  const publish = (count: number) => {
    for (let index = 0; index < count; index += 1) {
      deliveries.publish({ eventType: 'ACTIVITY_UPDATES', organizationId: ORGANIZATION, body: JSON.stringify({ index }) });
    }
  };
  return { deliveries, store, publish, logs, requests: () => requests };
}

async function settled(deliveries: WebhookDeliveries, count: number): Promise<DeliveryRecord[]> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const shown = deliveries.deliveriesOf(ORGANIZATION);
    if (shown.length === count && shown.every((delivery) => delivery.state !== 'PENDING')) return shown;
    if (Date.now() > deadline) throw new Error(`deliveries did not settle: ${JSON.stringify(shown.map((d) => d.state))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('webhook deliveries', () => {
  it('tries a 5xx again, up to the attempt bound', async () => {
    const { deliveries, publish, requests } = await setUp(503, { maxAttempts: 3, firstRetryMs: 5, backoffFactor: 2 });
    publish(1);
    const [delivery] = await settled(deliveries, 1);
    expect(delivery).toMatchObject({ state: 'FAILED' });
    expect(delivery!.attempts.map((attempt) => attempt.httpStatus)).toEqual([503, 503, 503]);
    expect(requests()).toBe(3);
  });

  it.each([301, 404, 429])('ends a delivery answered %i after one attempt', async (status) => {
    const { deliveries, publish, requests } = await setUp(status, { maxAttempts: 3, firstRetryMs: 5 });
    publish(1);
    const [delivery] = await settled(deliveries, 1);
    expect(delivery).toMatchObject({ state: 'FAILED', attempts: [{ httpStatus: status }] });
    expect(requests()).toBe(1);
  });

  it('drops what finds the queue full, says so, and cuts off attempts under way when stopped', async () => {
    const { deliveries, publish, logs } = await setUp(0, { maxQueued: 2, concurrency: 1 });
    publish(5);
    const deadline = Date.now() + WAIT_MS;
    while (deliveries.deliveriesOf(ORGANIZATION).length < 5) {
      if (Date.now() > deadline) throw new Error('the events were not queued');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(deliveries.deliveriesOf(ORGANIZATION).map((delivery) => delivery.state)).toEqual(['PENDING', 'PENDING', 'DROPPED', 'DROPPED', 'DROPPED']);
    expect(logs.filter((line) => line.startsWith('webhook queue full (2 deliveries)'))).toHaveLength(3);
    await deliveries.close();
    const stopped = deliveries.deliveriesOf(ORGANIZATION).find((delivery) => delivery.attempts.length > 0)!;
    expect(stopped).toMatchObject({ state: 'FAILED', attempts: [{ error: 'the Sandbox stopped' }] });
  });

  it('tells from memory that an organization has no endpoint, and sees one added to it or its parent, or removed', async () => {
    const { deliveries, store } = await setUp(200, {});
    const [lone, parent, child] = [
      '0b0b0b0b-0000-4000-8000-000000000002',
      '0b0b0b0b-0000-4000-8000-000000000003',
      '0b0b0b0b-0000-4000-8000-000000000004',
    ];
    await store.transaction((tx) => {
      tx.organizations.insert({ id: lone, name: 'no endpoints', rootQuorumThreshold: 1, now: 0 });
      tx.organizations.insert({ id: parent, name: 'parent', rootQuorumThreshold: 1, now: 0 });
      tx.organizations.insert({ id: child, parentId: parent, name: 'child', rootQuorumThreshold: 1, now: 0 });
    });
    const endpointReads = vi.spyOn(store.read.webhookEndpoints, 'hasAny');
    expect([ORGANIZATION, lone, child].map((id) => deliveries.mayDeliverFor(id))).toEqual([true, false, false]);
    const readsToLearn = endpointReads.mock.calls.length;
    expect([ORGANIZATION, lone, child].map((id) => deliveries.mayDeliverFor(id))).toEqual([true, false, false]);
    expect(deliveries.hasSubscriber(lone, 'ACTIVITY_UPDATES')).toBe(false);
    expect(endpointReads.mock.calls.length).toBe(readsToLearn);

    const endpointOf = (organizationId: string) => ({
      id: `endpoint-of-${organizationId}`,
      organizationId,
      url: 'http://127.0.0.1:9/hook',
      name: 'added later',
      isActive: true,
      subscriptions: [{ eventType: 'ACTIVITY_UPDATES', filtersJson: undefined, isActive: true }],
      createdAt: 1,
      updatedAt: 1,
    });
    await store.transaction((tx) => tx.webhookEndpoints.insert(endpointOf(parent)));
    expect(deliveries.mayDeliverFor(child)).toBe(true);
    expect(deliveries.hasSubscriber(child, 'ACTIVITY_UPDATES')).toBe(true);
    await store.transaction((tx) => tx.webhookEndpoints.insert(endpointOf(lone)));
    expect(deliveries.mayDeliverFor(lone)).toBe(true);
    await store.transaction((tx) => void tx.webhookEndpoints.delete(lone, endpointOf(lone).id));
    expect(deliveries.mayDeliverFor(lone)).toBe(false);
  });
});
