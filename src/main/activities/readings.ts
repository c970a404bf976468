/**
 * Readings: what each activity asks for, computed once in main for the screens. One read of the organization (names,
 * "before", export keys, declared tokens) serves a whole list; when the list holds signing requests, one read of the
 * signing context (interfaces, tokens, thresholds, past recipients) serves them all, so a row reads a request exactly
 * as its signing card does, with the same title, and a request still taking votes carries the policies' verdict.
 */
import type { Activity, MfaStatus } from '../../shared/api';
import { signingOperationOf } from '../../shared/api/signing-operations';
import { isWaitingForApprovals } from '../../shared/approvals/voting';
import { describeSigningActivity, flatFacts, signingFacts, type ClearSigningContext } from '../../shared/clear-signing';
import { describeActivity, type ActivityDescription, type SigningDecoder } from '../../shared/describe';
import { toQkError } from '../../shared/errors';
import type { ActivityReadingView } from '../../shared/ipc/readings';
import { visibleText } from '../../shared/visible-text';
import type { Keychain } from '../keychain/keychain';
import type { Profile } from '../profiles/profiles';
import { tallyOf } from '../approvals/approvals';
import { activityStanding, voteReadingOf, type HeldCredentials, type MfaInput, type Standing } from '../approvals/vote-reading';
import { lookupOf } from '../organization/organization';
import type { SnapshotOptions } from '../organization/read-model';
import { policyReader } from '../policies/policy-words';
import type { OrganizationSnapshot } from '../signing/organization';
import { standingView, type SigningReadings } from '../signing/signing';
import { knowsSigner, signingRequestOf, type SigningRequest } from '../signing/signing-request';
import type { DeclaredTokens } from '../tokens/declared-tokens';

export interface ReadingsOptions {
  keychain: Pick<Keychain, 'listEncryptionKeys'>;
  tokens: Pick<DeclaredTokens, 'list'>;
  /** The profile's read of its organization (read-model.ts): names, "before", policies, who is looking. */
  organization: (knows?: (snapshot: OrganizationSnapshot) => boolean, options?: SnapshotOptions) => Promise<OrganizationSnapshot>;
  /** The signing context, read only when a list holds a signing request. */
  signing: (snapshot: OrganizationSnapshot) => Promise<SigningReadings>;
  /** The profile the viewer acts through, as the vote readings name it. */
  profileName: string;
  now: () => number;
  /**
   * For an activity waiting for authenticators: the service's `get_mfa_status` of it, and what this desktop stamps
   * with. Without it such an activity is read as any other waiting for votes.
   */
  mfa?: { status: (activityId: string) => Promise<MfaStatus[]>; held: () => Promise<HeldCredentials> };
}

/** Statuses of an activity that has not run yet: the organization as it stands is its "before". */
const UNSETTLED: ReadonlySet<string> = new Set([
  'ACTIVITY_STATUS_CONSENSUS_NEEDED',
  'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED',
  'ACTIVITY_STATUS_PENDING',
  'ACTIVITY_STATUS_CREATED',
]);

type ReadActivity = Pick<Activity, 'id' | 'type' | 'status' | 'intent' | 'votes'>;

export class Readings {
  constructor(private readonly options: ReadingsOptions) {}

  /** Each activity's reading, in the order given; `options` say when a kept organization read of any age serves. */
  async of(activities: readonly ReadActivity[], options: SnapshotOptions = {}): Promise<ActivityReadingView[]> {
    const { keychain, tokens, now } = this.options;
    const signs = activities.some((activity) => signingOperationOf(activity.type) !== undefined);
    // Read anew if it does not know a key these signing requests name (one another desktop just made).
    const signers = activities.flatMap((activity) => readableSigningRequest(activity)?.signWith ?? []);
    const snapshot = await this.options.organization((read) => signers.every((signWith) => knowsSigner(read, signWith)), options);
    const [lookup, signing] = await Promise.all([lookupOf(snapshot, keychain, tokens, now()), signs ? this.options.signing(snapshot) : undefined]);
    const readPolicy = policyReader(lookup);
    return Promise.all(
      activities.map(async (activity): Promise<ActivityReadingView> => {
        const settled = !UNSETTLED.has(activity.status);
        const description = describeActivity(activity, lookup, {
          settled,
          readPolicy,
          ...(signing === undefined ? {} : { decodeSigning: signingDecoder(signing.contextFor(activity.id)) }),
        });
        const kind = signingOperationOf(activity.type) === undefined ? 'activity' : 'signing';
        if (!isWaitingForApprovals(activity.status)) return { ...description, kind };
        const voting = await this.voteOf(activity, snapshot, signing, description);
        return { ...description, kind, ...voting };
      }),
    );
  }

  /** Where `activity` stands and what the viewer's vote would do: the policies read at the approvals counted now. */
  private async voteOf(
    activity: ReadActivity,
    snapshot: OrganizationSnapshot,
    signing: SigningReadings | undefined,
    description: ActivityDescription,
  ): Promise<Pick<ActivityReadingView, 'verdict' | 'vote'>> {
    const nowMs = this.options.now();
    const tally = tallyOf(activity.votes, nowMs);
    const withViewer = [...new Set([...tally.approverIds, snapshot.viewer.userId])];
    const request = signing === undefined ? undefined : readableSigningRequest(activity);
    const [standing, standingWithViewer] =
      request === undefined || signing === undefined
        ? [activityStanding(activity, snapshot, tally.approverIds, nowMs), activityStanding(activity, snapshot, withViewer, nowMs)]
        : await Promise.all([signingStanding(signing, request, tally.approverIds), signingStanding(signing, request, withViewer)]);
    const signer = request === undefined ? undefined : description.signing?.signer;
    const mfa = activity.status === 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED' ? await this.mfaOf(activity.id) : undefined;
    const vote = voteReadingOf({
      activity,
      tally,
      snapshot,
      profileName: this.options.profileName,
      title: description.title,
      ...(signer === undefined ? {} : { signer }),
      standing,
      withViewer: standingWithViewer,
      ...(mfa === undefined ? {} : { mfa }),
    });
    return { vote, ...(request === undefined || typeof standing === 'string' ? {} : { verdict: standingView(standing) }) };
  }

  private async mfaOf(activityId: string): Promise<MfaInput | undefined> {
    const { mfa } = this.options;
    if (mfa === undefined) return undefined;
    const [statuses, held] = await Promise.all([mfa.status(activityId), mfa.held()]);
    return { statuses, held };
  }
}

/**
 * What `profile` stamps an MFA step with: its passkey, which stamps its votes, else its token key's public key, else
 * its keychain key's, if it can be read.
 */
export async function heldCredentialsOf(
  profile: Pick<Profile, 'apiKeyName' | 'tokenKey' | 'passkey'>,
  keychain: Pick<Keychain, 'getApiKeyPublic'>,
): Promise<HeldCredentials> {
  if (profile.passkey !== undefined) return { passkeyAuthenticatorId: profile.passkey.authenticatorId };
  if (profile.tokenKey !== undefined) return { apiKeyPublicKey: profile.tokenKey.publicKey };
  const publicKey = await keychain.getApiKeyPublic(profile.apiKeyName).then(
    (key) => key.publicKey,
    // A key missing from the keychain stamps nothing: the reading says it cannot be read.
    () => undefined,
  );
  return publicKey === undefined ? {} : { apiKeyPublicKey: publicKey };
}

/** Where the policies stand on a signing request, or why they cannot be read (a key the organization no longer has). */
async function signingStanding(signing: SigningReadings, request: SigningRequest, approverIds: readonly string[]): Promise<Standing> {
  try {
    return await signing.standing(request, approverIds);
  } catch (error) {
    return `QuorumKey cannot read the policies on this request (${visibleText(toQkError(error).message)}); the service decides`;
  }
}

/** The signing request an activity records, or none when it is not one this version reads (its card names the fault). */
function readableSigningRequest(activity: Pick<Activity, 'type' | 'intent'>): SigningRequest | undefined {
  try {
    return signingRequestOf(activity);
  } catch {
    return undefined;
  }
}

/** The describer's signing hook: the request read by clear signing with `context`, as the signing card reads it. */
export function signingDecoder(context: ClearSigningContext): SigningDecoder {
  return (_request, activity) => {
    let description;
    try {
      description = describeSigningActivity(activity, context);
    } catch {
      // Not readable (a malformed payload, a type clear signing does not cover): the raw payload is shown instead.
      return undefined;
    }
    const largeValue = description.warnings.filter((warning) => warning.kind === 'VALUE_ABOVE_THRESHOLD').map((warning) => warning.message);
    return {
      title: description.title,
      summary: description.summary,
      facts: flatFacts(signingFacts(description)),
      warnings: description.warnings.map((warning) => warning.message),
      ...(largeValue.length === 0 ? {} : { largeValue: largeValue.join(' ') }),
      signer: description.signer.text,
    };
  };
}
