/**
 * A profile's one read of its organization (docs/architecture.md#one-answer-per-vote): the list rows, the signing
 * card, main's confirmation, the inbox and the Users screen all read the same snapshot, so they cannot disagree, and
 * a vote costs no organization read of its own. It is read again after an activity that can change the organization
 * completed (main's own writes and the activity watch report it; a signature changes nothing here), and at the
 * latest ORGANIZATION_READ_TTL_MS after it was read, for changes another desktop made that took no vote and so passed
 * no watch.
 */
import { activityClassOf, CLASSIFIED_ACTIVITY_TYPES } from '../../shared/policy/activity-classes';
import type { ApiClient } from '../client/api-client';
import { readOrganization, type OrganizationSnapshot } from '../signing/organization';

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

export class OrganizationReads {
  #kept: { snapshot: Promise<OrganizationSnapshot>; readAtMs: number } | undefined;

  constructor(
    private readonly client: Pick<ApiClient, 'query'>,
    private readonly now: () => number,
  ) {}

  /**
   * The snapshot, read now unless one read since the last change is still young. `knows` says whether a kept one
   * knows what the caller is about to name (a key another desktop created since it was read): if not, it is read anew.
   */
  async snapshot(knows?: (snapshot: OrganizationSnapshot) => boolean): Promise<OrganizationSnapshot> {
    const kept = await this.#current();
    if (knows === undefined || knows(kept)) return kept;
    this.forget();
    return this.#current();
  }

  #current(): Promise<OrganizationSnapshot> {
    const nowMs = this.now();
    if (this.#kept === undefined || nowMs - this.#kept.readAtMs > ORGANIZATION_READ_TTL_MS) {
      const kept = { snapshot: readOrganization(this.client), readAtMs: nowMs };
      this.#kept = kept;
      // A read that failed is not kept: the next asks again.
      kept.snapshot.catch(() => {
        if (this.#kept === kept) this.#kept = undefined;
      });
    }
    return this.#kept.snapshot;
  }

  /** Something in the organization changed: the next snapshot is read anew. */
  forget(): void {
    this.#kept = undefined;
  }
}

/**
 * The read of each profile's organization, shared by every service object made for that profile (the window's, the
 * inbox's, a vote from the inbox), so one event of a change reaches them all.
 */
export class OrganizationReadModels {
  readonly #byProfile = new Map<string, { key: string; organizationId: string; reads: OrganizationReads }>();

  constructor(private readonly now: () => number) {}

  /** The read of `profile`'s organization, through `client` when it must be made anew (a new or edited profile). */
  of(profile: { id: string; organizationId: string }, client: Pick<ApiClient, 'query'>): OrganizationReads {
    // The whole profile is the key: an edited URL, key or organization reads another organization, or as another user.
    const key = JSON.stringify(profile);
    const known = this.#byProfile.get(profile.id);
    if (known?.key === key) return known.reads;
    const reads = new OrganizationReads(client, this.now);
    this.#byProfile.set(profile.id, { key, organizationId: profile.organizationId, reads });
    return reads;
  }

  /** An activity of `organizationId` ran: every profile's read of it is made anew when next asked. */
  forget(organizationId: string): void {
    for (const entry of this.#byProfile.values()) if (entry.organizationId === organizationId) entry.reads.forget();
  }

  /** Every read is made anew when next asked (a Sandbox that restarted may serve another database). */
  forgetAll(): void {
    for (const entry of this.#byProfile.values()) entry.reads.forget();
  }
}
