/**
 * Security keys a profile registered whose `create_authenticators` had to wait for approvals (an MFA policy or votes):
 * `<dataDir>/pending-passkeys.json` holds, per profile, the activity and what identifies the new credential (its id
 * and name, nothing secret). The activity feed's looks at that profile follow it: once it completed, the key the
 * service recorded is read back and the profile votes with it, as if the registration had completed at once; once it
 * was rejected, failed or its approval window closed, completed with an authenticator that is not the credential made,
 * or its profile moved to another organization, it is forgotten and kept instead as ended, with why, until the person
 * dismisses main's words for it (`passkeys.notices`), which every screen of the window shows. The file is read once
 * and each change written through, so a look costs no disk read.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { activityResultOf, operations } from '../../shared/api';
import type { Activity } from '../../shared/api/activity-record';
import { isWaitingForApprovals } from '../../shared/approvals/voting';
import { QkError, toQkError } from '../../shared/errors';
import type { ActivityFeeds, FeedClient, SeenLook } from '../activities/feed';
import { tallyOf } from '../approvals/approvals';
import type { Profile, Profiles } from '../profiles/profiles';
import { JsonFile } from '../storage/json-file';
import { quotedText } from '../../shared/visible-text';
import { validatePasskey, type PasskeyCredential } from './passkey';

/** More than one desktop's profiles ever wait on at once; a file that cannot grow without end. */
export const MAX_PENDING_PASSKEYS = 20;

const pendingSchema = z.strictObject({
  activityId: z.string().min(1).max(128),
  profileId: z.string().min(1).max(128),
  /** The organization the profile acted in: a profile moved to another since no longer follows it. */
  organizationId: z.string().min(1).max(128),
  /** The new credential's id (base64url), which the authenticator the service creates must carry. */
  credentialId: z.string().min(1).max(1366),
  name: z.string().min(1).max(64),
});
export type PendingPasskey = z.infer<typeof pendingSchema>;

/** Why a registration ended without its key attached. */
export const ENDED_REASONS = ['rejected', 'failed', 'expired', 'other-credential', 'moved'] as const;
export type EndedReason = (typeof ENDED_REASONS)[number];

const endedSchema = z.strictObject({
  activityId: pendingSchema.shape.activityId,
  profileId: pendingSchema.shape.profileId,
  name: pendingSchema.shape.name,
  reason: z.enum(ENDED_REASONS),
});
/** A registration this desktop waited on that ended without its key attached, kept until the person dismisses it. */
export type EndedPasskey = z.infer<typeof endedSchema>;

// `ended` is optional, so a file written before it existed reads unchanged.
const fileSchema = z.strictObject({
  version: z.literal(1),
  pending: z.array(pendingSchema).max(MAX_PENDING_PASSKEYS),
  ended: z.array(endedSchema).max(MAX_PENDING_PASSKEYS).optional(),
});
type PendingFile = z.infer<typeof fileSchema>;
interface Kept {
  pending: readonly PendingPasskey[];
  ended: readonly EndedPasskey[];
}
const EMPTY: Kept = { pending: [], ended: [] };

export interface PendingPasskeysOptions {
  dataDir: string;
  profiles: Pick<Profiles, 'update'>;
  feeds: Pick<ActivityFeeds, 'subscribe'>;
  now: () => number;
  /** Told when a registration ended without its key attached, or such an ending was dismissed (main's `passkey` event). */
  onEndedChange?: () => void;
}

export class PendingPasskeys {
  readonly #file: JsonFile<PendingFile>;
  readonly #profiles: PendingPasskeysOptions['profiles'];
  readonly #now: () => number;
  readonly #onEndedChange: () => void;
  /** What the file holds, read at the first use and kept since; undefined until then, or after a read that failed. */
  #kept: Promise<Kept> | undefined;
  /** Changes one after the other, each from what the previous one left. */
  #changes: Promise<unknown> = Promise.resolve();

  constructor({ dataDir, profiles, feeds, now, onEndedChange = () => undefined }: PendingPasskeysOptions) {
    this.#file = new JsonFile(join(dataDir, 'pending-passkeys.json'), fileSchema);
    this.#profiles = profiles;
    this.#now = now;
    this.#onEndedChange = onEndedChange;
    feeds.subscribe({
      look: (look) => (look.ok ? this.#follow(look) : undefined),
      round: (present) =>
        void this.#forgetRemoved(present).catch((error: unknown) => console.error('forgetting pending security keys failed', error)),
    });
  }

  /**
   * Keeps `pending` until its activity is decided. It replaces any other waiting for the same profile (the latest key
   * asked for is the one the profile should vote with), and the oldest of other profiles' go beyond the bound.
   */
  async add(pending: PendingPasskey): Promise<void> {
    await this.#change(({ pending: kept, ended }) => ({
      pending: [...kept.filter((other) => other.profileId !== pending.profileId), pending].slice(-MAX_PENDING_PASSKEYS),
      ended,
    }));
  }

  /** What waits for `profileId`, if anything. */
  async of(profileId: string): Promise<PendingPasskey | undefined> {
    return (await this.#load()).pending.find((pending) => pending.profileId === profileId);
  }

  /** The registrations that ended without their key attached and were not dismissed yet, oldest first. */
  async ended(): Promise<readonly EndedPasskey[]> {
    return (await this.#load()).ended;
  }

  /** Forgets the ending of `activityId`'s registration, once the person read it. */
  async dismiss(activityId: string): Promise<void> {
    if (!(await this.ended()).some((ended) => ended.activityId === activityId)) return;
    await this.#change(({ pending, ended }) => ({ pending, ended: ended.filter((other) => other.activityId !== activityId) }));
    this.#onEndedChange();
  }

  async #follow({ profile, waiting, client, detail }: SeenLook): Promise<void> {
    const pending = await this.of(profile.id);
    if (pending === undefined) return;
    if (profile.organizationId !== pending.organizationId) return this.#end(pending, 'moved');
    const listed = waiting.find((activity) => activity.id === pending.activityId);
    // A listed one changed only by votes; one that left the list (or slid off its page) is read once per look.
    const activity = listed ?? (await detail(pending.activityId));
    if (activity.status === 'ACTIVITY_STATUS_COMPLETED') {
      const passkey = await recordedPasskey(client, activity, pending).catch(async (error: unknown) => {
        const failure = toQkError(error);
        // The service's answer will not change: asking again on every look would fail the same way forever.
        if (failure.code !== 'RESPONSE_INVALID' && failure.code !== 'REQUEST_INVALID') throw failure;
        await this.#end(pending, 'other-credential');
        console.error(`security key ${JSON.stringify(pending.name)} was not attached to profile ${profile.id}: ${failure.message}`);
        return undefined;
      });
      if (passkey === undefined) return;
      await this.#profiles.update(profile.id, { passkey });
      return this.#forget(pending);
    }
    if (expired(activity, this.#now())) return this.#end(pending, 'expired');
    if (activity.status === 'ACTIVITY_STATUS_REJECTED') return this.#end(pending, 'rejected');
    if (!isWaitingForApprovals(activity.status)) return this.#end(pending, 'failed');
  }

  /** A removed profile's registration, and what ended of it, are forgotten: there is no one left to tell. */
  async #forgetRemoved(present: readonly Profile[]): Promise<void> {
    const ids = new Set(present.map((profile) => profile.id));
    const { pending, ended } = await this.#load();
    if ([...pending, ...ended].every((kept) => ids.has(kept.profileId))) return;
    await this.#change((kept) => ({
      pending: kept.pending.filter((other) => ids.has(other.profileId)),
      ended: kept.ended.filter((other) => ids.has(other.profileId)),
    }));
  }

  #forget(done: PendingPasskey): Promise<void> {
    return this.#change(({ pending, ended }) => ({ pending: pending.filter((other) => other.activityId !== done.activityId), ended }));
  }

  /** Forgets `done` and keeps, for the person who asked for it, why its key was not attached. */
  async #end(done: PendingPasskey, reason: EndedReason): Promise<void> {
    const { activityId, profileId, name } = done;
    await this.#change(({ pending, ended }) => ({
      pending: pending.filter((other) => other.activityId !== activityId),
      ended: [...ended, { activityId, profileId, name, reason }].slice(-MAX_PENDING_PASSKEYS),
    }));
    this.#onEndedChange();
  }

  #load(): Promise<Kept> {
    this.#kept ??= this.#file.read().then(
      (stored) => (stored === undefined ? EMPTY : { pending: stored.pending, ended: stored.ended ?? [] }),
      (error: unknown) => {
        // A file that could not be read is read again next time rather than taken as empty.
        this.#kept = undefined;
        throw error;
      },
    );
    return this.#kept;
  }

  /** Writes the changed list, and keeps it once the file holds it. */
  #change(change: (kept: Kept) => Kept): Promise<void> {
    const run = this.#changes.then(async () => {
      const next = change(await this.#load());
      await this.#file.write({ version: 1, pending: [...next.pending], ended: [...next.ended] });
      this.#kept = Promise.resolve(next);
    });
    this.#changes = run.catch(() => undefined);
    return run;
  }
}

/**
 * The passkey `activity` created, as the service recorded it after checking the attestation (`get_authenticator`),
 * never as the registering page claimed it; REQUEST_INVALID or RESPONSE_INVALID when it is not the credential made.
 */
export async function recordedPasskey(
  client: FeedClient,
  activity: Activity,
  made: Pick<PendingPasskey, 'credentialId' | 'name'>,
): Promise<PasskeyCredential> {
  const authenticatorId = activityResultOf(operations.create_authenticators, activity)?.authenticatorIds[0];
  if (authenticatorId === undefined) {
    throw new QkError('RESPONSE_INVALID', `create_authenticators completed (activity ${activity.id}) without naming the new authenticator`);
  }
  const { authenticator } = await client.query('get_authenticator', { authenticatorId });
  if (authenticator.credentialId !== made.credentialId) {
    throw new QkError(
      'RESPONSE_INVALID',
      `authenticator ${authenticatorId} of activity ${activity.id} holds credential ${authenticator.credentialId}, not the ${made.credentialId} this desktop made`,
    );
  }
  return validatePasskey(
    { credentialId: authenticator.credentialId, publicKey: authenticator.credential.publicKey, authenticatorId, name: made.name },
    'the new authenticator',
  );
}

/** Still waiting, but its approval window closed with every approval expired: it can no longer complete. */
function expired(activity: Activity, nowMs: number): boolean {
  return activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' && tallyOf(activity.votes, nowMs).timeLeftMs === 0;
}

/** Main's words for an ended registration: which key, of which profile, why it was not attached, and what to do now. */
export function endedPasskeyNotice(
  { activityId, name, reason }: EndedPasskey,
  profileName: string,
): { activityId: string; what: string; next: string } {
  const key = `Security key ${quotedText(name)} was not added to profile ${quotedText(profileName)}`;
  const addAgain = 'To vote with it, add it again under Keys → Security key to vote with; until then the profile votes as it did before.';
  const words: Record<EndedReason, { why: string; next: string }> = {
    rejected: { why: 'its registration was rejected by a vote', next: addAgain },
    failed: { why: 'its registration failed on the service', next: addAgain },
    expired: { why: 'its approvals expired before enough of them were given', next: `${addAgain} Ask for the approvals while they are open.` },
    'other-credential': {
      why: 'the service recorded another credential for it than the one this key made, so QuorumKey did not trust it',
      next: 'Check the user’s credentials under Users and remove an authenticator you do not recognise, then add the key again under Keys.',
    },
    moved: {
      why: 'the profile now acts in another organization than the one the key was registered in',
      next: 'Add the key again under Keys while this profile is active, so that it is registered in the organization the profile acts in now.',
    },
  };
  const { why, next } = words[reason];
  return { activityId, what: `${key}: ${why} (activity ${activityId}).`, next };
}
