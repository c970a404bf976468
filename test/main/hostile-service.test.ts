/**
 * Issue 36, item 5: a hostile hosted service stalls main. A fake service on 127.0.0.1 answers far more than any
 * operation needs: main reads each answer only up to its operation's byte cap, then closes the connection and fails
 * with RESPONSE_TOO_LARGE naming the operation and the cap. The inbox keeps one page of what waits and shows a few
 * notifications per look, the service's names escaped, and asks how decided proposals ended a few at a time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ActivityFeeds } from '../../src/main/activities/feed';
import { ApiClient, COLLECTION_RESPONSE_BYTE_CAP, RESPONSE_BYTE_CAP } from '../../src/main/client/api-client';
import { ACTIVITIES_PER_LOOK, DETAILS_IN_FLIGHT } from '../../src/main/client/waiting-activities';
import { AppEvents } from '../../src/main/events/app-events';
import { Inbox, NOTIFIED_PER_LOOK, type InboxOptions } from '../../src/main/inbox/inbox';
import { AppLock } from '../../src/main/lock/lock';
import type { Profile } from '../../src/main/profiles/profiles';
import { Settings } from '../../src/main/settings/settings';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { describeActivity } from '../../src/shared/describe';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { rejection } from '../support/assertions';
import { ORGANIZATION_ID, VIEWER_ID, startHostileService, type HostileService, type HostileServiceOptions } from '../support/hostile-service';
import { NotificationRecorder } from '../support/notification-recorder';

const MIB = 1024 * 1024;
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** How much of an answer the fake service managed to send before its connection closed. */
interface Sent {
  bytes: number;
  closed: Promise<void>;
}

/** A service whose every answer is `totalBytes` of JSON-ish text, sent as fast as the client takes it. */
async function flooding(totalBytes: number, options: { declareLength?: boolean } = {}): Promise<{ baseUrl: string; sent: Sent[] }> {
  const sent: Sent[] = [];
  const server = createServer((request, response) => {
    request.resume();
    const record: Sent = { bytes: 0, closed: new Promise((resolve) => response.on('close', () => resolve())) };
    sent.push(record);
    response.writeHead(200, {
      'content-type': 'application/json',
      ...(options.declareLength === true ? { 'content-length': String(totalBytes) } : {}),
    });
    pour(response, totalBytes, record);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent };
}

function pour(response: ServerResponse, totalBytes: number, record: Sent): void {
  const chunk = Buffer.alloc(MIB, ' ');
  const more = () => {
    while (record.bytes < totalBytes && !response.destroyed) {
      const piece = chunk.subarray(0, Math.min(MIB, totalBytes - record.bytes));
      record.bytes += piece.byteLength;
      if (!response.write(piece)) return void response.once('drain', more);
    }
    if (!response.destroyed) response.end();
  };
  response.write('{"activities":[');
  more();
}

function clientFor(baseUrl: string): ApiClient {
  const signer = signerFromPrivateKey('p256', generateApiKeyPair('p256').privateKey);
  return new ApiClient({
    profile: { baseUrl, organizationId: '5f6b1e1c-7c38-4d6b-9a53-2b3f9a4f4a10', apiKeyName: 'operator' },
    stamper: { stamp: (_name, body) => stampBody(body, signer) },
  });
}

describe('a hostile hosted service stalls main', () => {
  it('a 300 MiB list_activities answer is cut off at its cap: RESPONSE_TOO_LARGE naming the operation, the connection closed', async () => {
    const { baseUrl, sent } = await flooding(300 * MIB);

    const error = await rejection(clientFor(baseUrl).query('list_activities', { filterByStatus: ['ACTIVITY_STATUS_CONSENSUS_NEEDED'] }));

    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toContain('list_activities');
    expect(error.message).toContain(`${COLLECTION_RESPONSE_BYTE_CAP / MIB} MiB`);
    expect(error.details).toMatchObject({ operation: 'list_activities', capBytes: COLLECTION_RESPONSE_BYTE_CAP });
    await sent[0]!.closed;
    // Closed near the cap, not drained: what the socket buffers held beyond it is all the service got out.
    expect(sent[0]!.bytes).toBeLessThan(COLLECTION_RESPONSE_BYTE_CAP + 16 * MIB);
  });

  it('an answer about one resource has the smaller cap: a whoami a MiB over it is refused', async () => {
    const { baseUrl } = await flooding(RESPONSE_BYTE_CAP + MIB);

    const error = await rejection(clientFor(baseUrl).query('whoami', {}));

    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toContain(`whoami with over ${RESPONSE_BYTE_CAP} bytes, more than the ${RESPONSE_BYTE_CAP / MIB} MiB`);
  });

  it('a Content-Length over the cap is refused before the body is read', async () => {
    const { baseUrl, sent } = await flooding(300 * MIB, { declareLength: true });

    const error = await rejection(clientFor(baseUrl).query('list_wallets', {}));

    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toContain(`list_wallets with ${300 * MIB} bytes`);
    await sent[0]!.closed;
    expect(sent[0]!.bytes).toBeLessThan(16 * MIB);
  });
});

describe('the inbox against a hostile service', () => {
  const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
  const SHOWN_NAME = 'Mallory\\u0007\\u001B]0;owned\\u0007\\u202Edrow\\u2028Approved: all\\u200B';
  const started: HostileService[] = [];
  const dataDirs: string[] = [];
  afterEach(async () => {
    for (const service of started.splice(0)) await service.close();
    for (const dataDir of dataDirs.splice(0)) await rm(dataDir, { recursive: true, force: true });
  });

  async function inboxOn(options: HostileServiceOptions) {
    const service = await startHostileService(options);
    started.push(service);
    const dataDir = await mkdtemp(join(tmpdir(), 'qk-hostile-inbox-'));
    dataDirs.push(dataDir);
    const profile: Profile = {
      id: 'profile-hosted',
      name: 'Hosted',
      kind: 'hosted',
      baseUrl: service.baseUrl,
      organizationId: ORGANIZATION_ID,
      apiKeyName: 'operator',
      enclaveSignerPublicKey: `04${'ab'.repeat(64)}`,
    };
    const notifications = new NotificationRecorder();
    const profiles = { list: async () => [profile], getActive: async () => undefined, setActive: async () => undefined };
    const [settings, lock, events] = [new Settings({ dataDir }), new AppLock(), new AppEvents()];
    const feeds = new ActivityFeeds({ profiles, clientFor: () => clientFor(service.baseUrl), settings, lock, events, now: Date.now });
    const inbox = new Inbox({ feeds, profiles, readingsFor: waitingForTheViewer, settings, lock, notifier: notifications, events, now: Date.now });
    return { service, inbox, notifications };
  }

  it('a hostile hosted service stalls main: 5,000 waiting activities, one page kept and five notified, the rest counted, names escaped', async () => {
    const { service, inbox, notifications } = await inboxOn({ waiting: 5_000 });

    await inbox.check();

    expect(service.listRequests).toEqual([expect.objectContaining({ paginationOptions: { limit: String(ACTIVITIES_PER_LOOK) } })]);
    const [view] = inbox.list().profiles;
    expect(view?.error).toBeUndefined();
    expect(view?.items).toHaveLength(ACTIVITIES_PER_LOOK);
    expect(view?.organizationName).toBe(`${SHOWN_NAME} Inc.`);
    expect(view?.items[0]?.requester).toMatch(new RegExp(`^${escapeRegExp(SHOWN_NAME)} \\d+$`));
    const told = notifications.notifications;
    expect(told.map((notification) => notification.kind)).toEqual([...Array<string>(NOTIFIED_PER_LOOK).fill('waiting'), 'count']);
    expect(told.at(-1)?.title).toBe(`${ACTIVITIES_PER_LOOK - NOTIFIED_PER_LOOK} more in QuorumKey's inbox`);
    for (const { title, body } of told) {
      expect(title).not.toMatch(HIDDEN);
      expect(body).not.toMatch(HIDDEN);
    }
    expect(told[0]?.body).toContain(`Proposed by ${SHOWN_NAME}`);
    expect(told.at(-1)?.body).toBe(`Also waiting or decided on ${SHOWN_NAME} Inc. (profile Hosted).`);
  });

  it('asks how the viewer’s decided proposals ended a few at a time, for no more than it keeps', async () => {
    const { service, inbox, notifications } = await inboxOn({ waiting: 50, proposedByViewer: 50, detailsDelayMs: 40 });
    await inbox.check();
    expect(notifications.notifications).toEqual([]);

    service.decideAll();
    await inbox.check();

    expect(service.detailsAsked).toHaveLength(20);
    expect(service.detailsInFlightMost).toBe(DETAILS_IN_FLIGHT);
    expect(inbox.list().profiles[0]?.decided).toHaveLength(20);
    expect(notifications.notifications.map((notification) => notification.kind)).toEqual([
      ...Array<string>(NOTIFIED_PER_LOOK).fill('decided'),
      'count',
    ]);
  });
});

/**
 * Main's readings, as far as this service allows: it answers no organization, so each activity is read by the
 * describer alone and its vote reading says what main's would for a member of the service's 2-of-2 root quorum: one
 * the viewer proposed has their vote, any other waits for it.
 */
const waitingForTheViewer: NonNullable<InboxOptions['readingsFor']> = () => ({
  of: async (activities) =>
    activities.map((activity) => {
      const proposedByViewer = activity.votes[0]?.userId === VIEWER_ID;
      return {
        ...describeActivity(activity),
        kind: 'activity' as const,
        vote: {
          voter: 'Operator (profile Hosted)',
          proposedByViewer,
          ...(proposedByViewer ? { viewerVote: 'approved' as const } : {}),
          approvals: 1,
          progress: '1 of 2 approved',
          verdict: 'no policy matches; the root quorum decides',
          stillNeeded: 'more approvals',
          stillToVote: [],
          viewerCounts: !proposedByViewer,
          viewerCompletes: false,
          approveDoes: 'your approval counts toward it',
          rejectDoes: 'your rejection ends it: it will not run',
          warnings: [],
        },
      };
    }),
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
