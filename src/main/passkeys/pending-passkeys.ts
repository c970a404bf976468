/**
 * Security keys a profile registered whose `create_authenticators` had to wait for approvals (an MFA policy or votes):
 * `<dataDir>/pending-passkeys.json` holds, per profile, the activity and what identifies the new credential (its id
 * and name, nothing secret). The activity feed's looks at that profile follow it: once it completed, the key the
 * service recorded is read back and the profile votes with it, as if the registration had completed at once; once it
 * was rejected, failed or its approval window closed, or it completed with an authenticator that is not the credential
 * made, it is forgotten. The file is read once and each change written through, so a look costs no disk read.
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

const fileSchema = z.strictObject({ version: z.literal(1), pending: z.array(pendingSchema).max(MAX_PENDING_PASSKEYS) });
type PendingFile = z.infer<typeof fileSchema>;
const EMPTY: PendingFile = { version: 1, pending: [] };

export interface PendingPasskeysOptions {
  dataDir: string;
  profiles: Pick<Profiles, 'update'>;
  feeds: Pick<ActivityFeeds, 'subscribe'>;
  now: () => number;
}

export class PendingPasskeys {
  readonly #file: JsonFile<PendingFile>;
  readonly #profiles: PendingPasskeysOptions['profiles'];
  readonly #now: () => number;
  /** What the file holds, read at the first use and kept since; undefined until then, or after a read that failed. */
  #kept: Promise<readonly PendingPasskey[]> | undefined;
  /** Changes one after the other, each from what the previous one left. */
  #changes: Promise<unknown> = Promise.resolve();

  constructor({ dataDir, profiles, feeds, now }: PendingPasskeysOptions) {
    this.#file = new JsonFile(join(dataDir, 'pending-passkeys.json'), fileSchema);
    this.#profiles = profiles;
    this.#now = now;
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
    await this.#change((kept) => [...kept.filter((other) => other.profileId !== pending.profileId), pending].slice(-MAX_PENDING_PASSKEYS));
  }

  /** What waits for `profileId`, if anything. */
  async of(profileId: string): Promise<PendingPasskey | undefined> {
    return (await this.#load()).find((pending) => pending.profileId === profileId);
  }

  async #follow({ profile, waiting, client, detail }: SeenLook): Promise<void> {
    const pending = await this.of(profile.id);
    if (pending === undefined) return;
    if (profile.organizationId !== pending.organizationId) return this.#forget(pending);
    const listed = waiting.find((activity) => activity.id === pending.activityId);
    // A listed one changed only by votes; one that left the list (or slid off its page) is read once per look.
    const activity = listed ?? (await detail(pending.activityId));
    if (activity.status === 'ACTIVITY_STATUS_COMPLETED') {
      const passkey = await recordedPasskey(client, activity, pending).catch(async (error: unknown) => {
        const failure = toQkError(error);
        // The service's answer will not change: asking again on every look would fail the same way forever.
        if (failure.code !== 'RESPONSE_INVALID' && failure.code !== 'REQUEST_INVALID') throw failure;
        await this.#forget(pending);
        console.error(`security key ${JSON.stringify(pending.name)} was not attached to profile ${profile.id}: ${failure.message}`);
        return undefined;
      });
      if (passkey === undefined) return;
      await this.#profiles.update(profile.id, { passkey });
      return this.#forget(pending);
    }
    if (!isWaitingForApprovals(activity.status) || expired(activity, this.#now())) return this.#forget(pending);
  }

  async #forgetRemoved(present: readonly Profile[]): Promise<void> {
    const ids = new Set(present.map((profile) => profile.id));
    if ((await this.#load()).every((pending) => ids.has(pending.profileId))) return;
    await this.#change((kept) => kept.filter((pending) => ids.has(pending.profileId)));
  }

  #forget(done: PendingPasskey): Promise<void> {
    return this.#change((kept) => kept.filter((pending) => pending.activityId !== done.activityId));
  }

  #load(): Promise<readonly PendingPasskey[]> {
    this.#kept ??= this.#file.read().then(
      (stored) => (stored ?? EMPTY).pending,
      (error: unknown) => {
        // A file that could not be read is read again next time rather than taken as empty.
        this.#kept = undefined;
        throw error;
      },
    );
    return this.#kept;
  }

  /** Writes the changed list, and keeps it once the file holds it. */
  #change(change: (kept: readonly PendingPasskey[]) => PendingPasskey[]): Promise<void> {
    const run = this.#changes.then(async () => {
      const next = change(await this.#load());
      await this.#file.write({ ...EMPTY, pending: next });
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
