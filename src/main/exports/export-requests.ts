/**
 * The exports this desktop asked for that had to wait for votes (`<dataDir>/export-requests.json`): which profile
 * asked, what is exported, and what the bundle is sealed to, a stored encryption key or the one-time key held in the
 * keychain for it. Main tells the requester (an `export` event) when one is approved, and releases a held one-time
 * key once its export is opened, can no longer complete (rejected, failed, or its approval window closed) or is
 * withdrawn by the requester, so a bundle sealed to it opens when the votes are in and the key lives no longer than it
 * must.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { Activity } from '../../shared/api/activity-record';
import { tallyOf } from '../approvals/approvals';
import type { AppEvents } from '../events/app-events';
import type { Keychain } from '../keychain/keychain';
import type { ActiveProfile } from '../profiles/active-profile';
import { JsonFile } from '../storage/json-file';

const sealedToSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('one-time') }),
  z.strictObject({ kind: z.literal('encryption-key'), name: z.string() }),
]);
export type SealedTo = z.infer<typeof sealedToSchema>;

const requestSchema = z.strictObject({
  activityId: z.string(),
  profileId: z.string(),
  organizationId: z.string(),
  /** What is exported, in words: "wallet Treasury". */
  what: z.string(),
  sealedTo: sealedToSchema,
  requestedAtMs: z.number(),
  /** When main first saw it completed (and told the requester). */
  approvedAtMs: z.number().optional(),
});
export type ExportRequest = z.infer<typeof requestSchema>;

const fileSchema = z.strictObject({ version: z.literal(1), requests: z.array(requestSchema) });
type RequestsFile = z.infer<typeof fileSchema>;
const EMPTY: RequestsFile = { version: 1, requests: [] };

/** Activity states after which an export can never produce a bundle. */
const ENDED = new Set(['ACTIVITY_STATUS_REJECTED', 'ACTIVITY_STATUS_FAILED']);

export interface ExportRequestsOptions {
  dataDir: string;
  keychain: Pick<Keychain, 'releaseOneTimeKey'>;
  events: Pick<AppEvents, 'emit'>;
}

export class ExportRequests {
  readonly #file: JsonFile<RequestsFile>;
  readonly #keychain: ExportRequestsOptions['keychain'];
  readonly #events: ExportRequestsOptions['events'];
  /** Activities being withdrawn: their rejection is the requester's own, not an end to report. */
  readonly #withdrawing = new Set<string>();

  constructor({ dataDir, keychain, events }: ExportRequestsOptions) {
    this.#file = new JsonFile(join(dataDir, 'export-requests.json'), fileSchema);
    this.#keychain = keychain;
    this.#events = events;
  }

  async add(request: ExportRequest): Promise<void> {
    await this.#file.update(async (current) => {
      const document = current ?? EMPTY;
      return {
        next: { ...document, requests: [...document.requests.filter((r) => r.activityId !== request.activityId), request] },
        result: undefined,
      };
    });
  }

  async get(activityId: string): Promise<ExportRequest | undefined> {
    return ((await this.#file.read()) ?? EMPTY).requests.find((request) => request.activityId === activityId);
  }

  /** The requests `profileId` made, oldest first. */
  async list(profileId: string): Promise<ExportRequest[]> {
    return ((await this.#file.read()) ?? EMPTY).requests.filter((request) => request.profileId === profileId);
  }

  /**
   * Brings the request for `activity` up to date with it: approved once it completed (the requester is told once),
   * forgotten with its one-time key once it can never complete. Activities this desktop did not request are ignored.
   */
  async follow(activity: Activity, nowMs: number): Promise<void> {
    if (this.#withdrawing.has(activity.id)) return;
    const request = await this.get(activity.id);
    if (request === undefined) return;
    if (activity.status === 'ACTIVITY_STATUS_COMPLETED') {
      if (request.approvedAtMs !== undefined) return;
      await this.#replace(activity.id, (current) => ({ ...current, approvedAtMs: nowMs }));
      this.#events.emit({ type: 'export', change: 'approved', organizationId: request.organizationId, activityId: activity.id });
      return;
    }
    if (ENDED.has(activity.status) || expired(activity, nowMs)) await this.forget(activity.id, 'ended');
  }

  /**
   * Drops the request and deletes its held one-time key: after it was opened (`opened`), when it can no longer
   * complete (`ended`), or when the requester withdrew it (`withdrawn`); the window is told of the last two, once.
   */
  async forget(activityId: string, why: 'opened' | 'ended' | 'withdrawn'): Promise<void> {
    await this.#keychain.releaseOneTimeKey(activityId);
    if ((await this.get(activityId)) === undefined) return;
    // Found again inside the update: of two callers forgetting the same request, only the one that dropped it tells.
    const dropped = await this.#file.update(async (current) => {
      const document = current ?? EMPTY;
      return {
        next: { ...document, requests: document.requests.filter((r) => r.activityId !== activityId) },
        result: document.requests.find((r) => r.activityId === activityId),
      };
    });
    if (dropped === undefined || why === 'opened') return;
    this.#events.emit({ type: 'export', change: why, organizationId: dropped.organizationId, activityId });
  }

  /**
   * Withdraws the request for `activityId` as its requester decided: first `reject` the export when they reject it
   * (meanwhile following the activity would report it ended), then drop the request and delete its held one-time key.
   * Nothing is deleted when `reject` throws; what it answered is answered.
   */
  async withdraw<R>(activityId: string, reject?: () => Promise<R>): Promise<R | undefined> {
    this.#withdrawing.add(activityId);
    try {
      const rejected = await reject?.();
      await this.forget(activityId, 'withdrawn');
      return rejected;
    } finally {
      this.#withdrawing.delete(activityId);
    }
  }

  async #replace(activityId: string, change: (request: ExportRequest) => ExportRequest): Promise<void> {
    await this.#file.update(async (current) => {
      const document = current ?? EMPTY;
      return { next: { ...document, requests: document.requests.map((r) => (r.activityId === activityId ? change(r) : r)) }, result: undefined };
    });
  }
}

/**
 * Still waiting, but its approval window closed with every approval expired (the Approvals screen's "Expired"):
 * the export is over for the requester, who proposes it again if it is still wanted.
 */
function expired(activity: Activity, nowMs: number): boolean {
  return activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' && tallyOf(activity.votes, nowMs).timeLeftMs === 0;
}

/** Reads activity `activityId` through the active profile and follows it, if this desktop requested it. */
export async function followExport(
  requests: ExportRequests,
  active: Pick<ActiveProfile, 'services'>,
  activityId: string,
  now: () => number,
): Promise<void> {
  if ((await requests.get(activityId)) === undefined) return;
  const { client } = await active.services();
  const { activity } = await client.query('get_activity', { activityId });
  await requests.follow(activity, now());
}
