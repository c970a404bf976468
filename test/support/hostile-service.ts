/**
 * A hosted service gone hostile, on 127.0.0.1, for issue 36 item 5's tests and bench. It answers main's polls with
 * far more than they ask for (a flood of bytes, or every one of many waiting activities whatever the page size),
 * puts controls, separators and bidi characters in every name it serves, and answers `get_activity` slowly while
 * counting how many such requests are in flight at once. It checks no stamp: it is the far end of a profile.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ORGANIZATION_ID = '5f6b1e1c-7c38-4d6b-9a53-2b3f9a4f4a10';
/** The user the profile signs as. */
export const VIEWER_ID = 'user-viewer';
/** Another root quorum member, who proposes what waits unless the viewer did. */
export const PROPOSER_ID = 'user-proposer';
/** Every name the service serves: a bell, a terminal title change, a right-to-left override, a line separator. */
export const HOSTILE_NAME = 'Mallory\u0007\u001b]0;owned\u0007\u202Edrow\u2028Approved: all\u200B';

const MIB = 1024 * 1024;

export interface HostileServiceOptions {
  /** How many activities `list_activities` answers, whatever page it was asked for. */
  waiting: number;
  /** How many of them (the first ones) the viewer proposed. */
  proposedByViewer?: number;
  /** When set, `list_activities` answers this many bytes that never end the JSON instead. */
  floodBytes?: number;
  /** How long each `get_activity` takes to answer. */
  detailsDelayMs?: number;
}

export interface HostileService {
  readonly baseUrl: string;
  /** The request body of every `list_activities` asked, in order. */
  readonly listRequests: unknown[];
  /** The activity ids `get_activity` was asked for, in order. */
  readonly detailsAsked: string[];
  /** The most `get_activity` requests that were in flight at once. */
  readonly detailsInFlightMost: number;
  /** From now on nothing waits: every activity is decided (completed). */
  decideAll(): void;
  close(): Promise<void>;
}

export async function startHostileService(options: HostileServiceOptions): Promise<HostileService> {
  const nowMs = Date.now();
  const activities = Array.from({ length: options.waiting }, (_, index) =>
    activityOf(index, index < (options.proposedByViewer ?? 0) ? VIEWER_ID : PROPOSER_ID, nowMs),
  );
  let listAnswer = JSON.stringify({ activities });
  const listRequests: unknown[] = [];
  const detailsAsked: string[] = [];
  let detailsInFlight = 0;
  let detailsInFlightMost = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const operation = request.url?.split('/').at(-1);
      switch (operation) {
        case 'whoami':
          return json(response, { organizationId: ORGANIZATION_ID, organizationName: `${HOSTILE_NAME} Inc.`, userId: VIEWER_ID, username: 'viewer' });
        case 'get_organization_configs':
          return json(response, { configs: { quorum: { threshold: 2, userIds: [VIEWER_ID, PROPOSER_ID] } } });
        case 'list_activities':
          listRequests.push(body);
          if (options.floodBytes !== undefined) return flood(response, options.floodBytes);
          return json(response, listAnswer);
        case 'get_activity': {
          const activityId = String(body['activityId']);
          detailsAsked.push(activityId);
          detailsInFlight += 1;
          detailsInFlightMost = Math.max(detailsInFlightMost, detailsInFlight);
          setTimeout(() => {
            detailsInFlight -= 1;
            const index = activities.findIndex((activity) => activity.id === activityId);
            json(response, { activity: { ...activities[index]!, status: 'ACTIVITY_STATUS_COMPLETED' } });
          }, options.detailsDelayMs ?? 0);
          return;
        }
        default:
          response.writeHead(404, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ code: 5, message: `no ${operation} here`, details: [] }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    listRequests,
    detailsAsked,
    get detailsInFlightMost() {
      return detailsInFlightMost;
    },
    decideAll() {
      listAnswer = JSON.stringify({ activities: [] });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Answers `value` as JSON; a string is JSON made beforehand (a long list is serialized once, not per request). */
function json(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(typeof value === 'string' ? value : JSON.stringify(value));
}

/** `totalBytes` of an answer that never closes its JSON, written as fast as the client takes it. */
function flood(response: ServerResponse, totalBytes: number): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(MIB, ' ');
  let sent = 0;
  const more = () => {
    while (sent < totalBytes && !response.destroyed) {
      const piece = chunk.subarray(0, Math.min(MIB, totalBytes - sent));
      sent += piece.byteLength;
      if (!response.write(piece)) return void response.once('drain', more);
    }
    if (!response.destroyed) response.end();
  };
  response.write('{"activities":[');
  more();
}

/** One activity waiting for votes, as `list_activities` answers it: proposed (and so approved) by `proposerId`. */
function activityOf(index: number, proposerId: string, nowMs: number) {
  const id = `activity-${index}`;
  const at = { seconds: String(Math.floor(nowMs / 1000) - index), nanos: '0' };
  const proposer = {
    userId: proposerId,
    userName: `${HOSTILE_NAME} ${index}`,
    authenticators: [],
    apiKeys: [],
    userTags: [],
    oauthProviders: [],
    mfaPolicies: [],
    createdAt: at,
    updatedAt: at,
  };
  return {
    id,
    organizationId: ORGANIZATION_ID,
    status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
    type: 'ACTIVITY_TYPE_UPDATE_USER_NAME',
    intent: { updateUserNameIntent: { userId: PROPOSER_ID, userName: `${HOSTILE_NAME} ${index}` } },
    result: {},
    votes: [
      {
        id: `vote-${index}`,
        userId: proposerId,
        user: proposer,
        activityId: id,
        selection: 'VOTE_SELECTION_APPROVED',
        message: 'approved',
        publicKey: `02${'ab'.repeat(32)}`,
        signature: `30${'cd'.repeat(35)}`,
        scheme: 'SIGNATURE_SCHEME_TK_API_P256',
        createdAt: at,
      },
    ],
    fingerprint: `sha256:${index.toString(16).padStart(64, '0')}`,
    canApprove: true,
    canReject: true,
    createdAt: at,
    updatedAt: at,
  };
}
