/**
 * What the journal records of an activity this desktop posted: who stamped it (the stamp's key, the vote it cast),
 * the activity and its fingerprint, and its reading in the describer's words (clear signing for signing requests),
 * the same words the approval card and the history row show. For a vote, the reading is the activity voted on.
 */
import { activityResponseSchema, operationByPath, type Activity } from '../../shared/api';
import { QkError, toQkError } from '../../shared/errors';
import type { AppProof } from '../../shared/crypto/app-proof';
import type { BootProof } from '../../shared/crypto/attestation';
import { parseApiKeyStamp } from '../../shared/crypto/stamp';
import { parseWebAuthnStamp } from '../../shared/crypto/webauthn';
import { describeActivity, publicKeyFingerprint, type Ref } from '../../shared/describe';
import type { JournalAction, JournalCredential, JournalReading, JournalRecord } from '../../shared/journal/format';
import { signingDecoder } from '../activities/readings';
import type { AnsweredRequest, ApiClient } from '../client/api-client';
import type { Reading } from '../confirmation/confirmation';
import { describePasskey } from '../passkeys/passkey';
import type { Profile } from '../profiles/profiles';
import type { StampCredential } from '../stamper/stamp';
import type { Journal } from './journal';

/**
 * A 2xx answer from a service, with what the client posted for it and, when main's surface showed it before the
 * stamp, the reading the person confirmed.
 */
export type PostedAnswer = AnsweredRequest<Reading>;

/**
 * Records the activity a submission or vote answered (nothing for a query), with the service's app proofs for it.
 * The action has happened by now: when the entry cannot be written, the error says so.
 */
export async function recordPostedActivity(
  journal: Pick<Journal, 'record'>,
  profile: Pick<Profile, 'id' | 'name'> & StampCredential,
  posted: PostedAnswer,
  client: Pick<ApiClient, 'query'>,
): Promise<void> {
  const activity = answeredActivity(posted);
  if (activity === undefined) return;
  try {
    await journal.record(activityRecord(profile, posted, activity, await serviceProofsOf(client, activity)));
  } catch (error) {
    const cause = toQkError(error);
    throw new QkError(
      cause.code,
      `activity ${activity.id} was posted (${verdictOf(activity)}) but could not be written to the journal: ${cause.message}`,
      {
        activityId: activity.id,
      },
    );
  }
}

/** What the service vouches for an activity with: its app proofs, and the boot proof of each key that signed them. */
export interface ServiceProofs {
  appProofs: readonly AppProof[];
  bootProofs: readonly BootProof[];
}

const NO_PROOFS: ServiceProofs = { appProofs: [], bootProofs: [] };

/**
 * The activity's app proofs (with the answer, or asked for once it completed) and their boot proofs. None when the
 * service has none or cannot answer now: the entry matters more than the proofs, and proofs without the boot proof
 * that vouches for their key would not verify.
 */
async function serviceProofsOf(client: Pick<ApiClient, 'query'>, activity: Activity): Promise<ServiceProofs> {
  try {
    const { organizationId, id: activityId } = activity;
    const appProofs = (activity.appProofs ??
      (activity.status === 'ACTIVITY_STATUS_COMPLETED'
        ? (await client.query('list_app_proofs', { organizationId, activityId })).appProofs
        : [])) as AppProof[];
    const keys = [...new Set(appProofs.map((proof) => proof.publicKey))];
    const bootProofs = await Promise.all(
      keys.map(async (ephemeralKey) => (await client.query('get_boot_proof', { organizationId, ephemeralKey })).bootProof as BootProof),
    );
    return { appProofs, bootProofs };
  } catch {
    return NO_PROOFS;
  }
}

/** The activity a posted submission answered, or undefined when the path is not an activity submission. */
export function answeredActivity(posted: PostedAnswer): Activity | undefined {
  if (operationByPath(posted.path)?.kind !== 'activity') return undefined;
  const parsed = activityResponseSchema.safeParse(posted.answer);
  return parsed.success ? parsed.data.activity : undefined;
}

export function activityRecord(
  profile: Pick<Profile, 'id' | 'name'> & StampCredential,
  posted: PostedAnswer,
  activity: Activity,
  { appProofs, bootProofs }: ServiceProofs = NO_PROOFS,
): JournalRecord {
  // A file stamped elsewhere or earlier says nothing of which credential this profile has now.
  const credential = posted.stampedHere ? stampCredentialRecord(profile, posted.stampHeader) : undefined;
  const stampKey = credential?.publicKey ?? stampPublicKey(posted.stampHeader);
  const vote = activity.votes.find((candidate) =>
    // A passkey's vote names its credential id where an API key's names its public key.
    credential?.credentialId === undefined ? candidate.publicKey.toLowerCase() === stampKey : candidate.publicKey === credential.credentialId,
  );
  return {
    action: actionOf(posted),
    profileId: profile.id,
    profileName: profile.name,
    organizationId: activity.organizationId,
    ...(vote === undefined ? {} : { userId: vote.userId }),
    ...(stampKey === undefined ? {} : { apiKeyFingerprint: publicKeyFingerprint(stampKey) }),
    ...(credential === undefined ? {} : { credential }),
    activityId: activity.id,
    activityFingerprint: activity.fingerprint,
    reading: posted.shown === undefined ? activityReading(activity) : shownReading(posted.shown, activity),
    ...(appProofs.length === 0 ? {} : { appProofs: [...appProofs], bootProofs: [...bootProofs] }),
  };
}

function actionOf({ path, stampedHere }: PostedAnswer): JournalAction {
  const name = operationByPath(path)?.name;
  if (name === 'approve_activity') return 'vote.approved';
  if (name === 'reject_activity') return 'vote.rejected';
  return stampedHere ? 'activity.submitted' : 'request.posted-from-file';
}

/**
 * The reading as the person confirmed it (main's confirmation, word for word: facts, changes before → after,
 * warnings, the verdict and what it still needed), and what came of it.
 */
export function shownReading(shown: Reading, activity: Activity): JournalReading {
  const labelled = (line: string) => {
    const colon = line.indexOf(': ');
    return colon < 0 ? { label: 'Fact', value: line } : { label: line.slice(0, colon).trim(), value: line.slice(colon + 2) };
  };
  return {
    title: shown.title,
    summary: shown.summary,
    facts: [
      ...(shown.voter === undefined ? [] : [{ label: shown.action === 'submit' ? 'Submitted as' : 'Voted as', value: shown.voter }]),
      ...(shown.voteDoes === undefined ? [] : [{ label: 'What the vote did', value: shown.voteDoes }]),
      ...shown.facts.map(labelled),
      ...shown.changes.map(labelled),
      { label: 'Still needed when confirmed', value: shown.stillNeeded },
      { label: 'Outcome', value: verdictOf(activity) },
    ],
    warnings: [...shown.warnings],
    verdict: shown.verdict,
  };
}

/** The describer's reading of the activity as it stands. */
export function activityReading(activity: Activity): JournalReading {
  return describedReading(activity, verdictOf(activity), activity.status !== 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
}

/**
 * The reading of a request stamped into a file and not sent (a vote or any activity): what it asks for, described
 * from its body alone; undefined when the body is not an activity submission this client knows.
 */
export function stampedRequestReading(path: string, body: string): JournalReading | undefined {
  const op = operationByPath(path);
  if (op?.kind !== 'activity') return undefined;
  const { type, parameters } = JSON.parse(body) as { type?: unknown; parameters?: unknown };
  const intent = { [op.intentKey]: parameters };
  return describedReading({ type: typeof type === 'string' ? type : op.activityType, intent }, 'stamped into a file, not sent', false);
}

/** The record of a request stamped (into `file`, or printed when there is none) and not sent. */
export function stampedRequestRecord(
  profile: Pick<Profile, 'id' | 'name' | 'organizationId'> & StampCredential,
  request: { path: string; body: string; stamp: { headerValue: string } },
  file: string | undefined,
): JournalRecord {
  const reading = stampedRequestReading(request.path, request.body);
  const credential = stampCredentialRecord(profile, request.stamp.headerValue);
  const stampKey = credential?.publicKey ?? stampPublicKey(request.stamp.headerValue);
  return {
    action: 'request.stamped-offline',
    profileId: profile.id,
    profileName: profile.name,
    organizationId: profile.organizationId,
    ...(stampKey === undefined ? {} : { apiKeyFingerprint: publicKeyFingerprint(stampKey) }),
    ...(credential === undefined ? {} : { credential }),
    reading: {
      title: reading?.title ?? `Request for ${request.path} stamped`,
      summary: reading?.summary ?? 'not an activity this client describes',
      facts: [...(reading?.facts ?? []), { label: 'Stamped into', value: file ?? 'printed, not saved' }],
      warnings: reading?.warnings ?? [],
      verdict: reading?.verdict ?? 'stamped, not sent',
    },
  };
}

/** The describer's words as text: facts, each change as before → after, exports and deletions. */
function describedReading(activity: { type: string; intent: Readonly<Record<string, unknown>> }, verdict: string, settled: boolean): JournalReading {
  const description = describeActivity(activity, {}, { decodeSigning: signingDecoder({}), settled });
  const facts = [
    ...description.facts.map((fact) => ({ label: fact.label, value: refsText(fact.value) })),
    ...(description.signing?.decoded ?? []).map((fact) => ({ label: fact.label, value: refsText(fact.value) })),
    ...description.changes.map((change) => ({
      label: change.label,
      value: `${change.before === undefined ? 'not known' : refsText(change.before) || 'none'} → ${refsText(change.after) || 'none'}`,
    })),
    ...(description.exports === undefined
      ? []
      : [
          { label: 'Exports', value: refsText(description.exports.what) },
          { label: 'Sealed to', value: description.exports.target.localKeyName ?? description.exports.target.fingerprint },
        ]),
    ...description.deletions.map((deletion) => ({ label: `Deletes ${deletion.kind}`, value: deletion.what.text })),
  ];
  return { title: description.title, summary: description.summary, facts, warnings: [...description.warnings], verdict };
}

function verdictOf(activity: Activity): string {
  switch (activity.status) {
    case 'ACTIVITY_STATUS_COMPLETED':
      return 'completed';
    case 'ACTIVITY_STATUS_CONSENSUS_NEEDED':
      return 'waiting for votes';
    case 'ACTIVITY_STATUS_REJECTED':
      return 'rejected';
    case 'ACTIVITY_STATUS_FAILED':
      return `failed${activity.failure?.message === undefined ? '' : `: ${activity.failure.message}`}`;
    default:
      return activity.status;
  }
}

function refsText(refs: readonly Ref[]): string {
  return refs.map((ref) => ref.text).join(', ');
}

/**
 * The credential that made `stampHeader`, for the journal: the profile's passkey when the header is its assertion, its
 * token key when it has one, its keychain API key otherwise (as the Stamper chose), with the stamp's own key.
 * Undefined when the header is neither an API key stamp nor this profile's passkey's.
 */
export function stampCredentialRecord(credential: StampCredential, stampHeader: string): JournalCredential | undefined {
  const { passkey } = credential;
  if (passkey !== undefined && passkeyOf(stampHeader) === passkey.credentialId) {
    return { kind: 'passkey', name: describePasskey(passkey), publicKey: passkey.publicKey, credentialId: passkey.credentialId };
  }
  const publicKey = stampPublicKey(stampHeader);
  if (publicKey === undefined) return undefined;
  const { tokenKey } = credential;
  if (tokenKey === undefined) {
    return { kind: 'keychain', name: `API key ${JSON.stringify(credential.apiKeyName)} in the OS keychain`, publicKey };
  }
  return { kind: 'pkcs11', name: `PKCS#11 token ${JSON.stringify(tokenKey.tokenLabel)} key ${JSON.stringify(tokenKey.keyLabel)}`, publicKey };
}

/** The credential id of a WebAuthn stamp; undefined for any other header. */
function passkeyOf(header: string): string | undefined {
  try {
    return parseWebAuthnStamp(header).credentialId;
  } catch {
    return undefined;
  }
}

/** The stamp's public key, lowercase; undefined when the header is not an API key stamp (a WebAuthn one, say). */
function stampPublicKey(header: string): string | undefined {
  try {
    return parseApiKeyStamp(header).publicKey.toLowerCase();
  } catch {
    return undefined;
  }
}
