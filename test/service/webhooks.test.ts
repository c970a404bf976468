/**
 * Webhooks (docs/sandbox.md#webhooks): endpoints are made through Turnkey's own client, every status change of an
 * activity reaches a receiver on 127.0.0.1 signed as Turnkey signs deliveries (checked with @turnkey/crypto's own
 * verifier and the key the JWKS route publishes), a 5xx is tried again, and what the Sandbox refuses is refused before
 * anything is recorded.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { signerFromPrivateKey } from '../../src/shared/crypto/stamp';
import { base64UrlEncode, utf8Encode } from '../../src/shared/crypto/encoding';
import { copySeedFixture, type SeedCopy } from '../support/seed';
import { refusal, startTestService, type TestKey, type TestService } from '../support/service';
import {
  startWebhookReceiver,
  verifyDelivery,
  webhookVerificationKey,
  type ReceivedDelivery,
  type WebhookReceiver,
  type WebhookVerificationKey,
} from '../support/webhook-receiver';

const ACTIVITY_UPDATES = 'ACTIVITY_UPDATES';
/** Generous: deliveries run off the requests, and a retry waits half a second. */
const DELIVERY_WAIT_MS = 30_000;

/** A webhook receiver on 127.0.0.1 that records every request and answers what `answer` says (200 by default). */
async function startReceiver(answer?: (received: ReceivedDelivery) => number): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver(answer);
  webhookReceivers.push(receiver);
  return receiver;
}

const services: TestService[] = [];
const receivers: Server[] = [];
const webhookReceivers: WebhookReceiver[] = [];
const copies: SeedCopy[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  for (const server of receivers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const receiver of webhookReceivers.splice(0)) await receiver.close();
  for (const copy of copies.splice(0)) copy.remove();
});

/** The JWKS key as @turnkey/crypto's verifier takes it: its id and the raw public key in hex. */
const verificationKeyOf = (t: TestService) => webhookVerificationKey(t.info.baseUrl);

/** Verifies a delivery exactly as Turnkey's documentation says a receiver does, at the Sandbox's time. */
const verified = (t: TestService, key: WebhookVerificationKey, delivery: ReceivedDelivery) => verifyDelivery(key, delivery, t.clock.now());

function activityOf(delivery: ReceivedDelivery): { id: string; status: string; organizationId: string; type: string } {
  return JSON.parse(delivery.rawBody.toString('utf8')) as { id: string; status: string; organizationId: string; type: string };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + DELIVERY_WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** GET /sandbox/v1/webhooks/deliveries, stamped over its query string. */
async function deliveries(t: TestService, key: TestKey, organizationId = t.info.organizationId) {
  const query = `organizationId=${organizationId}`;
  const signer = signerFromPrivateKey(key.curve, key.privateKey);
  const stamp = { publicKey: signer.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: await signer.sign(utf8Encode(query)) };
  const response = await fetch(`${t.info.baseUrl}/sandbox/v1/webhooks/deliveries?${query}`, {
    headers: { 'x-stamp': base64UrlEncode(utf8Encode(JSON.stringify(stamp))) },
  });
  return { status: response.status, body: await response.json() };
}

describe('ACTIVITY_UPDATES', () => {
  it('delivers every status change, signed as Turnkey signs, and tries a 500 again', async () => {
    const t = await startTestService();
    services.push(t);
    const key = await verificationKeyOf(t);
    let refusedOnce = false;
    // The first delivery of the first rename is answered 500: it must come again, under the same event id.
    const receiver = await startReceiver((delivery) => {
      if (activityOf(delivery).type === 'ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT' && !refusedOnce) {
        refusedOnce = true;
        return 500;
      }
      return 200;
    });
    const client = t.client();
    const created = await client.createWebhookEndpoint({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT'),
      parameters: { url: receiver.url, name: 'CI receiver', subscriptions: [{ eventType: ACTIVITY_UPDATES }] },
    });
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const endpointId = created.activity.result.createWebhookEndpointResult!.endpointId;
    const listed = await client.listWebhookEndpoints({ organizationId: t.info.organizationId });
    expect(listed.webhookEndpoints).toEqual([
      {
        endpointId,
        organizationId: t.info.organizationId,
        url: receiver.url,
        name: 'CI receiver',
        isActive: true,
        subscriptions: [{ eventType: ACTIVITY_UPDATES, isActive: true }],
      },
    ]);

    // 1 (the creation) + 95 renames + 2 activities that wait for a second root user and are then settled = 100.
    const expected = new Set([`${created.activity.id} ACTIVITY_STATUS_COMPLETED`]);
    for (let index = 0; index < 95; index += 1) {
      const renamed = await client.updateWebhookEndpoint({
        ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT'),
        parameters: { endpointId, name: `CI receiver ${index}` },
      });
      expected.add(`${renamed.activity.id} ${renamed.activity.status}`);
    }
    const second = await t.addUser({ name: 'second root' });
    await t.setRootQuorum(2, [t.info.rootUserId, second.userId]);
    for (const decision of ['APPROVE', 'REJECT'] as const) {
      const proposed = await client.updateWebhookEndpoint({
        ...t.nextEnvelope('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT'),
        parameters: { endpointId, name: `decided: ${decision}` },
      });
      expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
      expected.add(`${proposed.activity.id} ACTIVITY_STATUS_CONSENSUS_NEEDED`);
      const vote = { parameters: { fingerprint: proposed.activity.fingerprint } };
      const settled =
        decision === 'APPROVE'
          ? await t.client(second.key).approveActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'), ...vote })
          : await t.client(second.key).rejectActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_REJECT_ACTIVITY'), ...vote });
      expected.add(`${proposed.activity.id} ${settled.activity.status}`);
    }
    expect(expected.size).toBe(100);

    const changesReceived = () =>
      new Set(receiver.received.map((delivery) => activityOf(delivery)).map((activity) => `${activity.id} ${activity.status}`));
    await waitFor(() => changesReceived().size === 100 && receiver.received.length === 101, '100 status changes and one retry');
    expect(changesReceived()).toEqual(expected);

    for (const delivery of receiver.received) {
      expect(verified(t, key, delivery)).toMatchObject({ ok: true, keyId: key.keyId });
      expect(delivery.headers).toMatchObject({
        'content-type': 'application/json',
        'x-turnkey-organization-id': t.info.organizationId,
        'x-turnkey-event-type': ACTIVITY_UPDATES,
        'x-turnkey-webhook-version': '1',
      });
    }
    // The same bytes under another event id no longer verify: the id is signed.
    const first = receiver.received[0]!;
    const forged = { ...first, headers: { ...first.headers, 'x-turnkey-event-id': 'another-event' } };
    expect(verified(t, key, forged)).toEqual({ ok: false, reason: 'invalid_signature' });

    // The 500 and its retry: one event id, two attempts, both signed; the route shows both answers.
    const eventIds = receiver.received.map((delivery) => delivery.headers['x-turnkey-event-id']);
    const retried = eventIds.filter((id, index) => eventIds.indexOf(id) !== index);
    expect(retried).toHaveLength(1);
    const shown = await deliveries(t, t.rootKey);
    expect(shown.status).toBe(200);
    expect(shown.body.deliveries).toHaveLength(100);
    const retriedDelivery = shown.body.deliveries.find((delivery: { eventId: string }) => delivery.eventId === retried[0]);
    expect(retriedDelivery).toMatchObject({ endpointId, state: 'DELIVERED', eventType: ACTIVITY_UPDATES });
    expect(retriedDelivery.attempts.map((attempt: { httpStatus: number }) => attempt.httpStatus)).toEqual([500, 200]);
  });

  it("delivers a sub-organization's activities to its parent's endpoint", async () => {
    const copy = copySeedFixture('two-of-two.yaml');
    copies.push(copy);
    const t = await startTestService({ seed: { file: copy, rootKeyFile: 'alice.key.json' } });
    services.push(t);
    const [alice, bob, carol] = ['alice.key.json', 'bob.key.json', 'carol.key.json'].map((file) => copy.key(file)) as [TestKey, TestKey, TestKey];
    const receiver = await startReceiver();
    // Two root users must agree on the parent's endpoint.
    const proposed = await t.client(alice).createWebhookEndpoint({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT'),
      parameters: { url: receiver.url, name: 'parent', subscriptions: [{ eventType: ACTIVITY_UPDATES }] },
    });
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const approved = await t
      .client(bob)
      .approveActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'), parameters: { fingerprint: proposed.activity.fingerprint } });
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const subOrganizationId = '5e5e5e5e-0000-4000-8000-000000000001';
    const inSub = await t.client(carol).createWallet({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET', subOrganizationId),
      parameters: { walletName: 'customer wallet', accounts: [] },
    });
    await waitFor(() => receiver.received.some((d) => activityOf(d).id === inSub.activity.id), "the sub-organization's activity");
    const delivered = receiver.received.find((d) => activityOf(d).id === inSub.activity.id)!;
    // Routed to the parent's endpoint; the activity names the organization it happened in.
    expect(delivered.headers['x-turnkey-organization-id']).toBe(t.info.organizationId);
    expect(activityOf(delivered)).toMatchObject({ organizationId: subOrganizationId, status: 'ACTIVITY_STATUS_COMPLETED' });
    // Transaction statuses are the billing organization's: a sub-organization cannot subscribe to them.
    const billed = await t.submit(
      'create_webhook_endpoint',
      'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT',
      { url: receiver.url, name: 'sub sends', subscriptions: [{ eventType: 'SEND_TRANSACTION_STATUS_UPDATES' }] },
      { key: carol, organizationId: subOrganizationId },
    );
    expect(refusal(billed)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect(billed.body.message).toContain(t.info.organizationId);
    // A sub-organization's user reads its own deliveries only.
    expect((await deliveries(t, carol, subOrganizationId)).body).toEqual({ deliveries: [] });
    expect(refusal(await deliveries(t, carol))).toEqual([401, 'PUBLIC_KEY_NOT_FOUND']);
  });

  it('stops a delivery under way when the Sandbox stops', async () => {
    const t = await startTestService();
    let connectionClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (connectionClosed = resolve));
    // A receiver that never answers: only the Sandbox's shutdown can end the attempt before its time-out.
    const server = createServer((request) => request.on('close', connectionClosed));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receivers.push(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hangs`;
    let reached = false;
    server.on('request', () => (reached = true));
    await t.client().createWebhookEndpoint({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT'),
      parameters: { url, name: 'hangs', subscriptions: [{ eventType: ACTIVITY_UPDATES }] },
    });
    await waitFor(() => reached, 'the first attempt');
    await t.close();
    await closed;
  });
});

/** A fake Ethereum node on loopback: it broadcasts, and reports a receipt once told the transaction is included. */
async function startFakeNode() {
  const node = { included: false, refuse: false };
  const hex = (value: bigint) => `0x${value.toString(16)}`;
  const txHash = `0x${'22'.repeat(32)}`;
  const answer = (method: string): unknown => {
    switch (method) {
      case 'eth_chainId':
        return '0x7a69';
      case 'eth_getBlockByNumber':
        return {
          number: '0x10',
          hash: `0x${'11'.repeat(32)}`,
          parentHash: `0x${'10'.repeat(32)}`,
          timestamp: '0x6553f100',
          gasLimit: hex(30_000_000n),
          gasUsed: '0x0',
          baseFeePerGas: hex(10n ** 9n),
          transactions: [],
        };
      case 'eth_feeHistory':
        return { oldestBlock: '0xc', baseFeePerGas: Array(6).fill(hex(10n ** 9n)), gasUsedRatio: Array(5).fill(0.5) };
      case 'eth_maxPriorityFeePerGas':
        return hex(10n ** 9n);
      case 'eth_getTransactionCount':
        return '0x0';
      case 'eth_estimateGas':
        return hex(21_000n);
      case 'eth_sendRawTransaction':
        if (node.refuse) throw new Error('insufficient funds for gas * price + value');
        return txHash;
      case 'eth_getTransactionReceipt':
        return node.included
          ? {
              transactionHash: txHash,
              transactionIndex: '0x0',
              blockHash: `0x${'33'.repeat(32)}`,
              blockNumber: '0x11',
              from: '0x0000000000000000000000000000000000000001',
              to: '0x000000000000000000000000000000000000bEEF',
              cumulativeGasUsed: hex(21_000n),
              gasUsed: hex(21_000n),
              effectiveGasPrice: hex(2n * 10n ** 9n),
              contractAddress: null,
              logs: [],
              logsBloom: `0x${'00'.repeat(256)}`,
              status: '0x1',
              type: '0x2',
            }
          : null;
      default:
        throw new Error(`the fake node does not answer ${method}`);
    }
  };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      let reply: object;
      try {
        reply = { jsonrpc: '2.0', id, result: answer(method) };
      } catch (error) {
        reply = { jsonrpc: '2.0', id, error: { code: -32000, message: (error as Error).message } };
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receivers.push(server);
  return { node, txHash, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('SEND_TRANSACTION_STATUS_UPDATES', () => {
  it("reports a send's statuses as the node gives them: BROADCASTING, then INCLUDED; FAILED when the node refuses it", async () => {
    const chain = 'eip155:31337';
    const fake = await startFakeNode();
    const t = await startTestService({ rpc: { [chain]: fake.url } });
    services.push(t);
    const key = await verificationKeyOf(t);
    const receiver = await startReceiver();
    const client = t.client();
    await client.createWebhookEndpoint({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT'),
      parameters: { url: receiver.url, name: 'sends', subscriptions: [{ eventType: 'SEND_TRANSACTION_STATUS_UPDATES' }] },
    });
    const wallet = await client.createWallet({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'),
      parameters: {
        walletName: 'sender',
        accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
      },
    });
    const from = wallet.activity.result.createWalletResult!.addresses[0]!;
    const send = async () => {
      const sent = await client.ethSendTransaction({
        ...t.nextEnvelope('ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2'),
        // The client's types list the hosted chains only; the Sandbox serves the chain its --rpc names.
        parameters: { from, caip2: chain as never, calls: [{ to: '0x000000000000000000000000000000000000bEEF', value: '1000' }] },
      });
      expect(sent.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      return sent.activity;
    };
    type StatusBody = {
      type: string;
      organizationId: string;
      msg: { sendTransactionStatusId: string; activityId: string; status: string; caip2: string; txHash?: string; error?: { message: string } };
    };
    const bodies = () => receiver.received.map((delivery) => JSON.parse(delivery.rawBody.toString('utf8')) as StatusBody);

    const broadcast = await send();
    await waitFor(() => bodies().some((body) => body.msg.status === 'BROADCASTING'), 'BROADCASTING');
    fake.node.included = true;
    await waitFor(() => bodies().some((body) => body.msg.status === 'INCLUDED'), 'INCLUDED');
    expect(bodies().map((body) => body.msg.status)).toEqual(['BROADCASTING', 'INCLUDED']);
    expect(bodies()[1]).toMatchObject({
      type: 'transaction:status',
      organizationId: t.info.organizationId,
      msg: { activityId: broadcast.id, caip2: chain, txHash: fake.txHash },
    });
    expect(bodies()[0]!.msg.txHash).toBeUndefined();

    fake.node.refuse = true;
    const refused = await send();
    await waitFor(() => bodies().some((body) => body.msg.status === 'FAILED'), 'FAILED');
    expect(bodies()[2]!.msg).toMatchObject({
      activityId: refused.id,
      status: 'FAILED',
      error: { message: expect.stringMatching(/insufficient funds/) },
    });
    for (const delivery of receiver.received) {
      expect(verified(t, key, delivery)).toMatchObject({ ok: true });
      expect(delivery.headers['x-turnkey-event-type']).toBe('SEND_TRANSACTION_STATUS_UPDATES');
    }
  });
});

describe('refusals', () => {
  const subscriptions = [{ eventType: ACTIVITY_UPDATES }];
  const cases: { name: string; parameters: Record<string, unknown>; status: number; code: string; message: RegExp }[] = [
    {
      name: 'a URL that is no URL',
      parameters: { url: 'not a url', name: 'x', subscriptions },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /not an absolute URL/,
    },
    {
      name: 'a scheme other than http(s)',
      parameters: { url: 'ftp://127.0.0.1/x', name: 'x', subscriptions },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /http or https/,
    },
    {
      name: 'a user name in the URL',
      parameters: { url: 'http://me:pw@127.0.0.1/x', name: 'x', subscriptions },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /user name or password/,
    },
    {
      name: 'a host beyond loopback without the flag',
      parameters: { url: 'https://hooks.example.com/x', name: 'x', subscriptions },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /--webhook-allow-any-host/,
    },
    {
      name: 'an unknown event type',
      parameters: { url: 'http://localhost:9/x', name: 'x', subscriptions: [{ eventType: 'EVERYTHING' }] },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /not "EVERYTHING"/,
    },
    {
      name: 'a balance event without a node to follow (no --rpc)',
      parameters: { url: 'http://[::1]:9/x', name: 'x', subscriptions: [{ eventType: 'BALANCE_CONFIRMED_UPDATES' }] },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /BALANCE_CONFIRMED_UPDATES follows balances on a chain's node.*--rpc eip155:<chain id>=URL/,
    },
    {
      name: 'no event type',
      parameters: { url: 'http://127.0.0.1:9/x', name: 'x', subscriptions: [] },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /at least one event type/,
    },
    {
      name: 'an empty name',
      parameters: { url: 'http://127.0.0.1:9/x', name: ' ', subscriptions },
      status: 400,
      code: 'REQUEST_INVALID',
      message: /must not be empty/,
    },
  ];
  it.each(cases)('refuses $name', async ({ parameters, status, code, message }) => {
    const t = await startTestService();
    services.push(t);
    const reply = await t.submit('create_webhook_endpoint', 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', parameters);
    expect(refusal(reply)).toEqual([status, code]);
    expect(reply.body.message).toMatch(message);
    expect(await t.activityCount()).toBe(0);
  });

  it('accepts a host beyond loopback with --webhook-allow-any-host', async () => {
    const t = await startTestService({ webhookAllowAnyHost: true });
    services.push(t);
    const reply = await t.submit('create_webhook_endpoint', 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', {
      url: 'https://hooks.example.com/x',
      name: 'elsewhere',
      subscriptions,
    });
    expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('lets policies decide: an explicit deny refuses even a user another policy allows', async () => {
    const t = await startTestService();
    services.push(t);
    const dave = await t.addUser({ name: 'Dave' });
    const parameters = { url: 'http://127.0.0.1:9/x', name: 'by dave', subscriptions };
    const withoutPolicy = await t.submit('create_webhook_endpoint', 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', parameters, { key: dave.key });
    expect(refusal(withoutPolicy)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    for (const [policyName, effect] of [
      ['dave manages webhooks', 'EFFECT_ALLOW'],
      ['no new webhooks', 'EFFECT_DENY'],
    ]) {
      const created = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
        policyName,
        effect,
        condition: "activity.resource == 'WEBHOOK_ENDPOINT' && activity.action == 'CREATE'",
        consensus: effect === 'EFFECT_ALLOW' ? `approvers.any(user, user.id == '${dave.userId}')` : undefined,
        notes: '',
      });
      expect(created.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      t.clock.advance(1);
    }
    const denied = await t.submit('create_webhook_endpoint', 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', parameters, { key: dave.key });
    expect(refusal(denied)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect(denied.body.message).toMatch(/policy engine denied request explicitly/);
  });

  it('refuses to update or delete an endpoint that does not exist, and the deliveries route without a stamp', async () => {
    const t = await startTestService();
    services.push(t);
    const endpointId = '00000000-0000-4000-8000-000000000000';
    for (const [name, type] of [
      ['update_webhook_endpoint', 'ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT'],
      ['delete_webhook_endpoint', 'ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT'],
    ] as const) {
      expect(refusal(await t.submit(name, type, { endpointId }))).toEqual([404, 'NOT_FOUND']);
    }
    const unstamped = await fetch(`${t.info.baseUrl}/sandbox/v1/webhooks/deliveries?organizationId=${t.info.organizationId}`);
    expect(unstamped.status).toBe(401);
  });
});
