/**
 * A profile's one read of its organization (docs/architecture.md#one-answer-per-vote): the list rows, the signing
 * card, main's confirmation, the inbox and the Users screen all read the same snapshot, so they cannot disagree, and
 * a vote costs no organization read of its own. It is read again after an activity that can change the organization
 * completed (main's own writes and the activity watch report it; a signature changes nothing here), and at the
 * latest ORGANIZATION_READ_TTL_MS after it was read, for changes another desktop made that took no vote and so passed
 * no watch.
 *
 * The organization's recent completed signatures (whose recipients are not "new") are kept beside it the same way:
 * listed once for every profile of the organization, a signature this desktop's vote or submission completed added
 * from the service's answer, and listed anew at the latest ORGANIZATION_READ_TTL_MS after, for those completed
 * elsewhere.
 */
import type { Activity } from '../../shared/api';
import { activityClassOf, CLASSIFIED_ACTIVITY_TYPES } from '../../shared/policy/activity-classes';
import type { ApiClient } from '../client/api-client';
import {
  isRecentSignature,
  readOrganizationData,
  readRecentSignatures,
  readViewer,
  RECENT_SIGNATURES,
  type OrganizationSnapshot,
} from '../signing/organization';

/** The longest a snapshot serves without an event saying the organization changed. */
export const ORGANIZATION_READ_TTL_MS = 15_000;

/**
 * Whether a completed activity of `activityType` may have changed what the snapshot holds. A signature (a transaction,
 * a payload, a send) changes none of the users, tags, quorum, policies, wallets or accounts; anything else, or a type
 * this desktop does not know, may.
 */
export function changesOrganization(activityType: string): boolean {
  return !CLASSIFIED_ACTIVITY_TYPES.includes(activityType) || activityClassOf(activityType).action !== 'SIGN';
}

/** What `snapshot` may serve besides a young read. */
export interface SnapshotOptions {
  /**
   * Only votes changed since the caller last read (a vote changes no user, policy, wallet or quorum): a kept read
   * serves whatever its age, so a vote costs no organization read.
   */
  keptOfAnyAge?: boolean;
}

type OrganizationData = Awaited<ReturnType<typeof readOrganizationData>>;

/**
 * The part of the snapshot that is the same for every profile of one organization (everything but who is looking),
 * read once for all of them.
 */
export class SharedOrganizationRead {
  #kept: { data: Promise<OrganizationData>; readAtMs: number } | undefined;
  #signatures: { list: Promise<readonly Activity[]>; readAtMs: number } | undefined;

  constructor(private readonly now: () => number) {}

  /** The kept read unless it is older than `maxAgeMs` (then it is read anew through `client`). */
  data(client: Pick<ApiClient, 'query'>, maxAgeMs: number): { data: Promise<OrganizationData>; readAtMs: number } {
    const nowMs = this.now();
    if (this.#kept === undefined || nowMs - this.#kept.readAtMs > maxAgeMs) {
      const kept = { data: readOrganizationData(client), readAtMs: nowMs };
      this.#kept = kept;
      // A read that failed is not kept: the next asks again.
      kept.data.catch(() => {
        if (this.#kept === kept) this.#kept = undefined;
      });
    }
    return this.#kept;
  }

  /** The recent completed signatures: the kept list unless it is older than `maxAgeMs` (then listed anew). */
  signatures(client: Pick<ApiClient, 'query'>, maxAgeMs: number): Promise<readonly Activity[]> {
    const nowMs = this.now();
    if (this.#signatures === undefined || nowMs - this.#signatures.readAtMs > maxAgeMs) {
      const kept = { list: readRecentSignatures(client), readAtMs: nowMs };
      this.#signatures = kept;
      kept.list.catch(() => {
        if (this.#signatures === kept) this.#signatures = undefined;
      });
    }
    return this.#signatures.list;
  }

  /**
   * `activity` as the service answered a vote or submission: a completed signature joins the kept list (newest first,
   * as long as a listing), so the readings after the vote know its recipient without listing again.
   */
  answered(activity: Activity): void {
    const kept = this.#signatures;
    if (kept === undefined || !isRecentSignature(activity)) return;
    kept.list = kept.list.then((list) => (list.some((known) => known.id === activity.id) ? list : [activity, ...list].slice(0, RECENT_SIGNATURES)));
    // A failed listing is dropped by its own handler; this copy of it must not be reported unhandled.
    kept.list.catch(() => undefined);
  }

  /** The organization's record is read anew when next asked; the signatures stay, since no change removes one. */
  forget(): void {
    this.#kept = undefined;
  }

  /** Everything is read anew when next asked (another database may be served now). */
  forgetAll(): void {
    this.#kept = undefined;
    this.#signatures = undefined;
  }
}

export class OrganizationReads {
  #kept: { snapshot: Promise<OrganizationSnapshot>; readAtMs: number } | undefined;
  /** Who this profile's key acts as, asked once: its names are then read from the organization's own record. */
  #viewer: Promise<OrganizationSnapshot['viewer']> | undefined;

  constructor(
    private readonly client: Pick<ApiClient, 'query'>,
    private readonly now: () => number,
    /** Shared with the other profiles of the same organization (OrganizationReadModels); its own otherwise. */
    private readonly shared: SharedOrganizationRead = new SharedOrganizationRead(now),
  ) {}

  /**
   * The snapshot, read now unless one read since the last change is still young (or `keptOfAnyAge`). `knows` says
   * whether a kept one knows what the caller is about to name (a key another desktop created since it was read): if
   * not, it is read anew.
   */
  async snapshot(knows?: (snapshot: OrganizationSnapshot) => boolean, options: SnapshotOptions = {}): Promise<OrganizationSnapshot> {
    const kept = await this.#current(options);
    if (knows === undefined || knows(kept)) return kept;
    this.forget();
    return this.#current({});
  }

  #current({ keptOfAnyAge = false }: SnapshotOptions): Promise<OrganizationSnapshot> {
    const nowMs = this.now();
    if (this.#kept === undefined || (!keptOfAnyAge && nowMs - this.#kept.readAtMs > ORGANIZATION_READ_TTL_MS)) {
      // Another profile's young read of the organization serves; its age is this snapshot's.
      const { data, readAtMs } = this.shared.data(this.client, ORGANIZATION_READ_TTL_MS);
      const snapshot = Promise.all([this.#whoAmI(), data]).then(([viewer, { organizationName, ...rest }]) => ({
        // A user renamed, or the organization, since whoami answered: the names are the record's, as read now.
        viewer: {
          ...viewer,
          username: rest.users.find((user) => user.userId === viewer.userId)?.userName ?? viewer.username,
          organizationName: organizationName ?? viewer.organizationName,
        },
        ...rest,
      }));
      const kept = { snapshot, readAtMs };
      this.#kept = kept;
      kept.snapshot.catch(() => {
        if (this.#kept === kept) this.#kept = undefined;
      });
    }
    return this.#kept.snapshot;
  }

  #whoAmI(): Promise<OrganizationSnapshot['viewer']> {
    if (this.#viewer === undefined) {
      const viewer = readViewer(this.client);
      this.#viewer = viewer;
      viewer.catch(() => {
        if (this.#viewer === viewer) this.#viewer = undefined;
      });
    }
    return this.#viewer;
  }

  /** The organization's recent completed signatures, shared with the other profiles of the organization. */
  recentSignatures(): Promise<readonly Activity[]> {
    return this.shared.signatures(this.client, ORGANIZATION_READ_TTL_MS);
  }

  /** What the service answered this profile's vote or submission with (see SharedOrganizationRead.answered). */
  answered(activity: Activity): void {
    this.shared.answered(activity);
  }

  /** Something in the organization changed: the next snapshot is read anew, for every profile sharing its read. */
  forget(): void {
    this.#kept = undefined;
    this.shared.forget();
  }

  /** Everything is read anew when next asked, the recent signatures included. */
  forgetAll(): void {
    this.#kept = undefined;
    this.shared.forgetAll();
  }
}

/**
 * The read of each profile's organization, shared by every service object made for that profile (the window's, the
 * inbox's, a vote from the inbox), so one event of a change reaches them all; profiles of the same organization at the
 * same service share the organization's own record, and read only who they are on their own.
 */
export class OrganizationReadModels {
  readonly #byProfile = new Map<string, { key: string; organizationId: string; reads: OrganizationReads }>();
  readonly #byOrganization = new Map<string, SharedOrganizationRead>();

  constructor(private readonly now: () => number) {}

  /** The read of `profile`'s organization, through `client` when it must be made anew (a new or edited profile). */
  of(profile: { id: string; organizationId: string; baseUrl?: string }, client: Pick<ApiClient, 'query'>): OrganizationReads {
    // The whole profile is the key: an edited URL, key or organization reads another organization, or as another user.
    const key = JSON.stringify(profile);
    const known = this.#byProfile.get(profile.id);
    if (known?.key === key) return known.reads;
    const organizationKey = JSON.stringify([profile.baseUrl, profile.organizationId]);
    let shared = this.#byOrganization.get(organizationKey);
    if (shared === undefined) {
      shared = new SharedOrganizationRead(this.now);
      this.#byOrganization.set(organizationKey, shared);
    }
    const reads = new OrganizationReads(client, this.now, shared);
    this.#byProfile.set(profile.id, { key, organizationId: profile.organizationId, reads });
    return reads;
  }

  /** An activity of `organizationId` ran: every profile's read of it is made anew when next asked. */
  forget(organizationId: string): void {
    for (const entry of this.#byProfile.values()) if (entry.organizationId === organizationId) entry.reads.forget();
  }

  /** Every read is made anew when next asked (a Sandbox that restarted may serve another database). */
  forgetAll(): void {
    for (const entry of this.#byProfile.values()) entry.reads.forgetAll();
  }
}
