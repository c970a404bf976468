/**
 * Main's reading of a stamp, from the service's own data: what the activity does (the clear-signing reader for a
 * signature request, the activity describer with before → after for anything else), where the organization's
 * policies stand once this stamp counts, and what it still needs. A vote is read as the activity it votes on.
 * It also finds the changes that would lock the organization or this profile out (see lockOutOf).
 */
import type { Activity } from '../../shared/api';
import { WAITING_STATUSES } from '../../shared/approvals/voting';
import { heldCredentialsOf } from '../activities/readings';
import { flatFacts, signingFacts, type SigningDescription } from '../../shared/clear-signing';
import { activityStatusInWords, describeActivity, type ActivityDescription, type Change, type Fact } from '../../shared/describe';
import { QkError, toQkError } from '../../shared/errors';
import { quotedText, visibleText } from '../../shared/visible-text';
import { tallyOf } from '../approvals/approvals';
import { activityStanding, stillNeededInWords, verdictInWords, voteReadingOf, voterInWords, type Standing } from '../approvals/vote-reading';
import { valueText } from '../cli/signing-text';
import type { Keychain } from '../keychain/keychain';
import { lookupOf } from '../organization/organization';
import { policyReader } from '../policies/policy-words';
import type { ProfileServices } from '../profiles/active-profile';
import type { Profile } from '../profiles/profiles';
import type { Settings } from '../settings/settings';
import type { OrganizationSnapshot } from '../signing/organization';
import { knowsSigner, signingRequestOf } from '../signing/signing-request';
import { describeOffline, signingFor } from '../signing/signing';
import type { AddressBook } from '../address-book/address-book';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import type { TokenUsage } from '../tokens/token-usage';
import { simulationInLines } from '../simulation/reading';
import type { Simulations } from '../simulation/simulation';
import type { Reading } from './confirmation';
import type { Submission } from '../client/submission';
import { credentialInWords, credentialKind } from '../stamper/stamper';
import { workingLeft } from '../users/credentials';

export interface StampReaderDeps {
  settings: Pick<Settings, 'get'>;
  tokens: Pick<DeclaredTokens, 'list'>;
  /** This desktop's names for the organization's addresses. */
  addressBook?: Pick<AddressBook, 'list'>;
  /** Says when a token's declaration changed since the organization last used it. */
  tokenUsage?: Pick<TokenUsage, 'changedSince'>;
  /** Simulates a transaction to be signed, so the confirmation restates what the card says it would do. */
  simulations?: Pick<Simulations, 'forRequest'>;
  keychain: Pick<Keychain, 'listEncryptionKeys' | 'getApiKeyPublic' | 'listOneTimeKeys'>;
  now: () => number;
  /**
   * What the activity feed last saw waiting for `profile` (activities/feed.ts), where a vote finds its activity
   * without listing the queue again; undefined when the feed has not looked at it.
   */
  waitingSeen?: (profile: Profile) => readonly Activity[] | undefined;
}

export interface StampReading {
  reading: Reading;
  /** Why the activity would lock the organization or this profile out; undefined when it would not. */
  lockOut: string | undefined;
}

type Subject = { type: string; intent: Record<string, unknown> };

/**
 * Main's reading of `submission`. A stamp into an offline file is often made where the service cannot be reached:
 * then the reading is what the request itself says (a vote's fingerprint, a signing request decoded without the
 * organization's names but with this desktop's address book), and says so.
 */
export async function readStamp(submission: Submission, services: ProfileServices, deps: StampReaderDeps): Promise<StampReading> {
  let read: StampReading;
  try {
    read = await readFromService(submission, services, deps);
  } catch (error) {
    if (submission.delivery !== 'file') throw error;
    read = { reading: await readOffline(submission, services.profile.organizationId, deps, toQkError(error).message), lockOut: undefined };
  }
  // A hardware credential signs after a PIN or a touch: the reading names it and the bytes it will sign.
  if (credentialKind(services.profile, submission.body) === 'keychain') return read;
  return {
    ...read,
    reading: {
      ...read.reading,
      signedBy: { credential: credentialInWords(services.profile, submission.body), bodyFingerprint: submission.bodyFingerprint },
    },
  };
}

function actionOf(submission: Submission): Reading['action'] {
  return submission.operation.name === 'approve_activity' ? 'approve' : submission.operation.name === 'reject_activity' ? 'reject' : 'submit';
}

function subjectOf({ operation, parameters }: Submission): Subject {
  return { type: operation.activityType, intent: { [operation.intentKey]: parameters } };
}

async function readOffline(submission: Submission, organizationId: string, deps: StampReaderDeps, reason: string): Promise<Reading> {
  const action = actionOf(submission);
  const unread = `not read: the service could not be asked (${visibleText(reason)})`;
  const base = { action, delivery: submission.delivery, verdict: unread, stillNeeded: unread, changes: [] };
  if (action !== 'submit') {
    const fingerprint = visibleText(String(submission.parameters['fingerprint']));
    return {
      ...base,
      activityType: submission.operation.activityType,
      fingerprint,
      title: 'an activity known by its fingerprint alone',
      summary: 'Compare the fingerprint below, in full, with the one on the activity on a connected machine.',
      facts: [`Fingerprint: ${fingerprint}`],
      warnings: [],
    };
  }
  const subject = subjectOf(submission);
  const signingRequest = signingRequestOf(subject);
  if (signingRequest !== undefined) {
    const addressBook = (await deps.addressBook?.list(organizationId)) ?? [];
    const description = describeOffline(signingRequest, await deps.settings.get(), await deps.tokens.list(), addressBook);
    return { ...base, activityType: subject.type, ...signingReading(description) };
  }
  return { ...base, activityType: subject.type, ...describedReading(describeActivity(subject)) };
}

async function readFromService(submission: Submission, services: ProfileServices, deps: StampReaderDeps): Promise<StampReading> {
  const { profile } = services;
  const nowMs = deps.now();
  const action = actionOf(submission);
  const [target, oneTimeKeys] = await Promise.all([
    action === 'submit' ? undefined : votedOn(services, String(submission.parameters['fingerprint']), deps.waitingSeen?.(profile)),
    // Only a vote can be on an export this desktop asked for.
    action === 'submit' ? [] : deps.keychain.listOneTimeKeys(),
  ]);
  const subject: Subject = target ?? subjectOf(submission);
  const signingRequest = signingRequestOf(subject);
  // The profile's read of its organization, read anew if it does not know the key a signing request names.
  const snapshot = await services.organization.snapshot(
    signingRequest === undefined ? undefined : (read) => knowsSigner(read, signingRequest.signWith),
  );
  const lookup = await lookupOf(snapshot, deps.keychain, deps.tokens, nowMs);
  // A vote on an export this desktop asked for, sealed to the one-time key it holds: named as such, and a rejection
  // ends it, so the key is deleted (export-requests.ts) and the bundle can never be opened.
  const held = target === undefined ? undefined : oneTimeKeys.find((key) => key.activityId === target.id);
  const heldKeyWarnings = held !== undefined && action === 'reject' ? [HELD_KEY_DELETED] : [];
  const counted = target === undefined ? [] : tallyOf(target.votes, nowMs).approverIds;
  // A submission is its submitter's approval, as the service counts it; a rejection adds none.
  const approverIds = action === 'reject' ? counted : [...new Set([...counted, snapshot.viewer.userId])];

  let described: Described;
  // Where the policies stand with the approvals that count now, and once this stamp counts.
  let standings: { before: Standing; after: Standing };
  let signer: string | undefined;
  if (signingRequest !== undefined) {
    const signing = signingFor(services, deps);
    const explained = await signing.explain(signingRequest, snapshot, approverIds);
    standings = {
      before: action === 'submit' ? explained.standing : await signing.standing(signingRequest, snapshot, counted),
      after: explained.standing,
    };
    described = signingReading(explained.description);
    signer = explained.description.signer.text;
    // Its words are the declaration's validated symbol and address, numbers and a date: nothing to escape.
    const redeclared = (await deps.tokenUsage?.changedSince(profile.organizationId, explained.description)) ?? [];
    described = { ...described, warnings: [...redeclared, ...described.warnings] };
    if (deps.simulations !== undefined) {
      const simulated = simulationInLines(await deps.simulations.forRequest(signingRequest, snapshot));
      described = { ...described, facts: [...described.facts, ...simulated.map(visibleText)] };
    }
  } else {
    // This desktop's own export, sealed to the one-time key it made for it just now: named as such, not as a stranger's.
    const sealedTo = action === 'submit' ? submission.parameters['targetPublicKey'] : undefined;
    const madeKey = typeof sealedTo === 'string' && services.exporter.isSealingToOneTimeKey(sealedTo) ? sealedTo : undefined;
    const oneTimeKey =
      held !== undefined
        ? { name: HELD_KEY_NAME, publicKey: held.publicKey }
        : madeKey !== undefined
          ? { name: MADE_KEY_NAME, publicKey: madeKey }
          : undefined;
    const withOneTimeKey = oneTimeKey === undefined ? lookup : { ...lookup, localExportKeys: [...lookup.localExportKeys, oneTimeKey] };
    described = describedReading(describeActivity(subject, withOneTimeKey, { readPolicy: policyReader(lookup) }));
    const after = activityStanding(subject, snapshot, approverIds, nowMs);
    standings = { before: action === 'submit' ? after : activityStanding(subject, snapshot, counted, nowMs), after };
  }
  // An activity waiting for authenticators: whose MFA steps are open, and whether this profile's stamp meets the viewer's.
  const mfa =
    target?.status === 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED'
      ? await Promise.all([services.client.query('get_mfa_status', { activityId: target.id }), heldCredentialsOf(profile, deps.keychain)]).then(
          ([{ mfaStatuses }, held]) => ({ statuses: mfaStatuses, held }),
        )
      : undefined;
  const vote =
    target === undefined
      ? undefined
      : voteReadingOf({
          activity: target,
          tally: tallyOf(target.votes, nowMs),
          snapshot,
          profileName: profile.name,
          title: described.title,
          ...(signer === undefined ? {} : { signer }),
          standing: standings.before,
          withViewer: standings.after,
          ...(mfa === undefined ? {} : { mfa }),
        });
  const ownKey = await ownPublicKeyOf(profile, deps.keychain);
  const lockOut = lockOutOf(subject, snapshot, ownKey, profile.name, nowMs);
  const override = action === 'approve' ? (vote?.warnings ?? []) : [];
  return {
    reading: {
      action,
      delivery: submission.delivery,
      activityType: subject.type,
      ...(target === undefined ? {} : { fingerprint: visibleText(target.fingerprint) }),
      ...described,
      voter: voterInWords(snapshot, profile.name),
      ...(vote === undefined ? {} : { voteDoes: action === 'reject' ? vote.rejectDoes : vote.approveDoes }),
      warnings: [
        ...override,
        ...(lockOut === undefined || action === 'reject' ? [] : [`Lock-out: ${lockOut}.`]),
        ...heldKeyWarnings,
        ...described.warnings,
      ],
      verdict: verdictInWords(standings.before),
      stillNeeded: stillNeededInWords(action === 'reject' ? standings.before : standings.after),
    },
    lockOut,
  };
}

type Described = Pick<Reading, 'title' | 'summary' | 'facts' | 'changes' | 'warnings' | 'lookAlikes'>;

const HELD_KEY_NAME = 'the one-time key this desktop holds for it';
const MADE_KEY_NAME = 'a one-time key this desktop made for it';
const HELD_KEY_DELETED =
  'This desktop asked for this export and holds the one-time key it is sealed to: rejecting it deletes that key, so the bundle can never be opened.';

function signingReading(description: SigningDescription): Described {
  return {
    title: visibleText(description.title),
    summary: visibleText(description.summary),
    facts: flatFacts(signingFacts(description)).map((fact) => `${visibleText(fact.label)}: ${fact.value.map(valueText).join(' · ')}`),
    changes: [],
    warnings: description.warnings.map((warning) => visibleText(warning.message)),
    lookAlikes: description.warnings.flatMap((warning) => (warning.lookAlike === undefined ? [] : [warning.lookAlike])),
  };
}

function describedReading(description: ActivityDescription): Described {
  return {
    title: visibleText(description.title),
    summary: visibleText(description.summary),
    facts: [
      ...description.facts.map(factLine),
      ...(description.exports === undefined
        ? []
        : [
            `Exports: ${refsText(description.exports.what)}`,
            `Sealed to: ${visibleText(description.exports.target.localKeyName ?? 'a key this desktop does not hold')} (${visibleText(description.exports.target.fingerprint)})`,
          ]),
      ...description.deletions.map((deletion) => `Deletes ${deletion.kind}: ${visibleText(deletion.what.text)}`),
    ],
    changes: description.changes.map(changeLine),
    warnings: description.warnings.map(visibleText),
  };
}

/**
 * The activity waiting for votes with `fingerprint`; a vote on anything else is refused before it is stamped. The
 * feed's last listing serves when it holds it: the fingerprint binds what is voted on, only its votes may have moved
 * since, and the vote's own answer says where it stands then. Otherwise the queue is listed.
 */
async function votedOn({ client }: Pick<ProfileServices, 'client'>, fingerprint: string, seen: readonly Activity[] | undefined): Promise<Activity> {
  const listed = seen?.find((activity) => activity.fingerprint === fingerprint);
  if (listed !== undefined) return listed;
  const { activities } = await client.query('list_activities', { filterByStatus: [...WAITING_STATUSES] });
  const target = activities.find((activity) => activity.fingerprint === fingerprint);
  if (target !== undefined) return target;
  const settled = (await client.query('list_activities', {})).activities.find((activity) => activity.fingerprint === fingerprint);
  const shown = fingerprint.slice(0, 80);
  if (settled !== undefined) {
    throw new QkError(
      'ACTIVITY_NOT_PENDING',
      `activity ${settled.id} (fingerprint ${shown}) is ${activityStatusInWords(settled.status).toLowerCase()} and takes no more votes; nothing was stamped`,
      {
        activityId: settled.id,
      },
    );
  }
  throw new QkError('ACTIVITY_NOT_FOUND', `no activity of this organization has fingerprint ${shown}; nothing was stamped`, { fingerprint: shown });
}

/**
 * Whether `subject` would leave someone unable to act: removing the key this profile signs with (or deleting the
 * user it signs as), or the last credential of a root quorum member, who could then never vote again.
 */
export function lockOutOf(
  subject: Subject,
  snapshot: OrganizationSnapshot,
  ownPublicKey: string | undefined,
  profileName: string,
  nowMs: number,
): string | undefined {
  const fields = Object.values(subject.intent)[0] as Record<string, unknown> | undefined;
  const ids = (name: string) => (Array.isArray(fields?.[name]) ? (fields[name] as unknown[]).map(String) : []);
  const profile = quotedText(profileName);
  if (subject.type === 'ACTIVITY_TYPE_DELETE_USERS') {
    if (ids('userIds').includes(snapshot.viewer.userId))
      return `it deletes ${visibleText(snapshot.viewer.username)}, the user profile ${profile} signs as`;
    const member = ids('userIds').find((userId) => snapshot.rootQuorum?.userIds.includes(userId) === true);
    return member === undefined ? undefined : `it deletes ${userName(snapshot, member)}, a member of the root quorum`;
  }
  const removing =
    subject.type === 'ACTIVITY_TYPE_DELETE_API_KEYS'
      ? ids('apiKeyIds')
      : subject.type.startsWith('ACTIVITY_TYPE_DELETE_AUTHENTICATORS')
        ? ids('authenticatorIds')
        : [];
  if (removing.length === 0) return undefined;
  const user = snapshot.users.find((candidate) => candidate.userId === fields?.['userId']);
  if (user === undefined) return undefined;
  const own = user.apiKeys.find((key) => removing.includes(key.apiKeyId) && key.credential.publicKey.toLowerCase() === ownPublicKey?.toLowerCase());
  if (own !== undefined) {
    return `it removes API key ${quotedText(own.apiKeyName)} of ${visibleText(user.userName)}, the key profile ${profile} signs with: QuorumKey could no longer act for that profile`;
  }
  // Counted by kind: an expired session key is listed but signs nothing, so it does not keep a member able to vote.
  if (workingLeft(user, removing, nowMs) === 0 && snapshot.rootQuorum?.userIds.includes(user.userId) === true) {
    const listedLeft = user.apiKeys.length + user.authenticators.length - removing.length > 0;
    return `it removes the last ${listedLeft ? 'working ' : ''}credential of ${visibleText(user.userName)}, a member of the root quorum (${snapshot.rootQuorum.threshold} of ${snapshot.rootQuorum.userIds.length}), who could never vote again${listedLeft ? ' (the others have expired)' : ''}`;
  }
  return undefined;
}

/** The public key the profile signs with: its token key's pinned one, else its keychain key's; undefined if gone. */
export async function ownPublicKeyOf(
  profile: Pick<ProfileServices['profile'], 'apiKeyName' | 'tokenKey'>,
  keychain: Pick<Keychain, 'getApiKeyPublic'>,
): Promise<string | undefined> {
  if (profile.tokenKey !== undefined) return profile.tokenKey.publicKey;
  return keychain.getApiKeyPublic(profile.apiKeyName).then(
    (key) => key.publicKey,
    () => undefined,
  );
}

function userName(snapshot: OrganizationSnapshot, userId: string): string {
  return visibleText(snapshot.users.find((user) => user.userId === userId)?.userName ?? userId);
}

/** Names and values from the organization and the request, escaped as every surface shows them (no fake lines). */
function factLine({ label, value }: Fact): string {
  return `${visibleText(label)}: ${refsText(value)}`;
}

function changeLine({ label, before, after }: Change): string {
  return `${visibleText(label)}: ${before === undefined ? 'not known' : refsText(before)} → ${refsText(after)}`;
}

function refsText(refs: Fact['value']): string {
  return refs.length === 0 ? 'none' : refs.map((ref) => visibleText(ref.text)).join(', ');
}
